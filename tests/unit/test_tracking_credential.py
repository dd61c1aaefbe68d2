"""The runner's MLflow credential file: a bearer token, or `username:password` for MLflow's basic-auth app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay_runner.io.tracking.settings import TOKEN_FILE_ENV, client_settings

CLIENT_VARIABLES = ("MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD")


@pytest.fixture
def credential_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for (
        name
    ) in CLIENT_VARIABLES:  # absent now, and as they were after the test (whatever client_settings sets)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    for name in ("MAX_RETRIES", "BACKOFF_FACTOR", "TIMEOUT"):  # client_settings sets them: restored after
        monkeypatch.setenv(f"MLFLOW_HTTP_REQUEST_{name}", "1")
    path = tmp_path / "token"
    monkeypatch.setenv(TOKEN_FILE_ENV, str(path))
    return path


def client_variables() -> dict[str, str]:
    return {name: os.environ[name] for name in CLIENT_VARIABLES if name in os.environ}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ml-token_5e2b.9A~+/=\n", {"MLFLOW_TRACKING_TOKEN": "ml-token_5e2b.9A~+/="}),
        (
            "assay-runner:p:ss w0rd\n",  # the first colon splits: a password may hold colons and spaces
            {"MLFLOW_TRACKING_USERNAME": "assay-runner", "MLFLOW_TRACKING_PASSWORD": "p:ss w0rd"},
        ),
        ("\n", {}),
    ],
)
def test_the_file_sets_a_bearer_token_or_basic_credentials(
    credential_file: Path, text: str, expected: dict[str, str]
) -> None:
    credential_file.write_text(text)
    client_settings()
    assert client_variables() == expected


@pytest.mark.parametrize("text", ["assay-runner:", ":s3cret-password"])
def test_an_empty_username_or_password_is_refused_without_echoing_the_secret(
    credential_file: Path, text: str
) -> None:
    credential_file.write_text(text)
    with pytest.raises(ValueError, match=TOKEN_FILE_ENV) as refused:
        client_settings()
    assert "s3cret" not in str(refused.value) and "assay-runner" not in str(refused.value)
    assert client_variables() == {}


def test_a_credential_already_in_the_environment_wins(
    credential_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    credential_file.write_text("assay-runner:from-the-file")
    monkeypatch.setenv("MLFLOW_TRACKING_USERNAME", "someone")
    monkeypatch.setenv("MLFLOW_TRACKING_PASSWORD", "from-the-environment")
    client_settings()
    assert client_variables() == {
        "MLFLOW_TRACKING_USERNAME": "someone",
        "MLFLOW_TRACKING_PASSWORD": "from-the-environment",
    }
