"""The chat-completions client: one POST per call, bounded retries with backoff and jitter.

429s and 5xx replies and transport errors are retried (honouring `Retry-After` up to a cap); anything else
(400, 401, 404, a reply without a message) fails at once, because retrying cannot fix it. The runner never
holds a provider key: the gateway does. An optional bearer token for the gateway itself comes from
`ASSAY_GATEWAY_TOKEN` or the file named by `ASSAY_GATEWAY_TOKEN_FILE`; the judges may use a token of their
own, `ASSAY_JUDGE_GATEWAY_TOKEN(_FILE)`, and fall back to the gateway token. On the cluster the files are
Secrets the kubelet mounts, each only into the phase that needs it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any, Literal

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from assay_runner.gateway.chat import ChatMessage, ChatReply
from assay_runner.gateway.errors import GatewayError

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_RETRY_AFTER = 30.0


class RetryableReply(GatewayError):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


TokenRole = Literal["agent", "judge"]
TOKEN_ENV = {"agent": "ASSAY_GATEWAY_TOKEN", "judge": "ASSAY_JUDGE_GATEWAY_TOKEN"}


def _token(variable: str) -> str | None:
    token_file = os.environ.get(f"{variable}_FILE")
    if token_file:
        return Path(token_file).read_text(encoding="utf-8").strip() or None
    return os.environ.get(variable) or None


def gateway_token(role: TokenRole = "agent") -> str | None:
    """The bearer token for `role`'s calls; the judge's falls back to the agent's (one gateway token)."""
    if role == "judge":
        return _token(TOKEN_ENV["judge"]) or _token(TOKEN_ENV["agent"])
    return _token(TOKEN_ENV["agent"])


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(float(value), MAX_RETRY_AFTER) if value is not None else None
    except ValueError:
        return None


class GatewayClient:
    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 120.0,
        attempts: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.attempts = attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._http = httpx.AsyncClient(timeout=timeout, headers=headers, transport=transport)

    async def aclose(self) -> None:
        await self._http.aclose()

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, RetryableReply) and error.retry_after is not None:
            return error.retry_after
        exponential = min(self.max_backoff, self.backoff * 2 ** (state.attempt_number - 1))
        return random.uniform(0, exponential)  # full jitter: concurrent tickets do not retry in lockstep

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await self._http.post(self.url, json=body)
        except httpx.TransportError as exc:
            raise RetryableReply(f"gateway unreachable at {self.url}: {exc!r}") from exc
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableReply(
                f"gateway answered {response.status_code}: {response.text[:200]}", _retry_after(response)
            )
        if response.status_code != 200:
            raise GatewayError(
                f"gateway answered {response.status_code} (not retried): {response.text[:300]}"
            )
        try:
            data = response.json()
        except ValueError:
            raise RetryableReply(f"gateway reply is not JSON: {response.text[:200]!r}") from None
        if not isinstance(data, dict):
            raise GatewayError(f"gateway reply is not an object: {response.text[:200]!r}")
        return data

    async def complete(
        self, *, model: str, messages: list[ChatMessage], temperature: float, sample: int = 0
    ) -> ChatReply:
        # `seed` makes each sample a distinct, reproducible draw where the provider supports it.
        body = {
            "model": model,
            "temperature": temperature,
            "seed": sample,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(lambda e: isinstance(e, RetryableReply)),
            reraise=True,
        )
        try:
            data: dict[str, Any] = await retrying(self._post, body)
        except RetryableReply as exc:
            raise GatewayError(f"gave up after {self.attempts} attempts: {exc}") from exc
        return parse_completion(data)


def parse_completion(data: dict[str, Any]) -> ChatReply:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise GatewayError(f"reply has no choices[0].message.content: {str(data)[:200]}") from None
    if not isinstance(content, str):
        raise GatewayError("reply content is not text")
    usage = data.get("usage") or {}
    return ChatReply(
        text=content,
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        model=str(data.get("model") or ""),
    )
