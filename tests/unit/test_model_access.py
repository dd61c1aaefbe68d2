"""The model client of a run is assembled by one recipe (`gateway.access.run_model_access`): every phase
that calls a model (`assay run`, the answer phase, the judge phase) gets the client its RunConfig asks for,
and none rebuilds it from the config's fields."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from assay_runner.contract import PriceConfig, RunConfig
from assay_runner.gateway.access import ModelAccess, model_access, run_model_access
from assay_runner.gateway.cassette import CassetteClient
from assay_runner.gateway.http import GatewayClient
from assay_runner.gateway.usage import MeteredClient

RUN = Path(__file__).resolve().parents[2] / "runner" / "assay_runner" / "run"
PRICES = {"m": PriceConfig(input_per_million=1.0, output_per_million=2.0)}


def shape(access: ModelAccess) -> tuple[object, ...]:
    """What a phase gets: the client's layers (metered, cassettes with their directory and mode, the
    gateway's address and whether it sends a token) and the meter's prices."""
    client = access.client
    assert client is None or isinstance(client, MeteredClient)
    inner = client.inner if client is not None else None
    cassette = (inner.directory, inner.mode) if isinstance(inner, CassetteClient) else None
    http = inner.inner if isinstance(inner, CassetteClient) else inner
    gateway = (http.url, "Authorization" in http._http.headers) if isinstance(http, GatewayClient) else None
    asyncio.run(access.aclose())
    return (type(inner).__name__, cassette, gateway, dict(access.meter.prices))


def run_config(**fields: object) -> RunConfig:
    return RunConfig.model_validate({"suite": "s", "agent": {"kind": "replay"}, **fields})


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"gateway": "http://gw.test:8080"},
        {"cassettes": {"dir": "/c"}},
        {"cassettes": {"dir": "/c", "mode": "record"}, "gateway": "http://gw.test:8080"},
        {"cassettes": {"dir": "/c", "mode": "replay"}, "gateway": "http://gw.test:8080"},
    ],
)
@pytest.mark.parametrize("role", ["agent", "judge"])
def test_the_recipe_gives_what_the_config_asks_for(
    fields: dict[str, object], role: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASSAY_GATEWAY_URL", raising=False)
    monkeypatch.setenv("ASSAY_JUDGE_GATEWAY_TOKEN", "judge-token")
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN", raising=False)
    config = run_config(**fields)
    cassettes = config.cassettes
    by_hand = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        PRICES,
        role=role,  # type: ignore[arg-type]
    )
    assert shape(run_model_access(config, PRICES, role=role)) == shape(by_hand)  # type: ignore[arg-type]


def test_the_recipe_reads_every_field_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_GATEWAY_URL", raising=False)
    monkeypatch.setenv("ASSAY_JUDGE_GATEWAY_TOKEN", "judge-token")
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN", raising=False)
    config = run_config(cassettes={"dir": "/c", "mode": "record"}, gateway="http://gw.test:8080")
    assert shape(run_model_access(config, PRICES, role="judge")) == (
        "CassetteClient",
        (Path("/c"), "record"),
        ("http://gw.test:8080/chat/completions", True),
        PRICES,
    )
    assert shape(run_model_access(config, None))[2] == ("http://gw.test:8080/chat/completions", False)
    assert shape(run_model_access(run_config(), PRICES)) == ("NoneType", None, None, PRICES)


def _calls(path: Path) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]


@pytest.mark.parametrize(
    ("module", "role"), [("evaluation.py", None), ("answering.py", None), ("scoring.py", "judge")]
)
def test_every_phase_uses_the_recipe(module: str, role: str | None) -> None:
    calls = _calls(RUN / module)
    assert not [c for c in calls if c.func.id == "model_access"], f"{module} rebuilds the model client"  # type: ignore[attr-defined]
    recipe = [c for c in calls if c.func.id == "run_model_access"]  # type: ignore[attr-defined]
    assert len(recipe) == 1, module
    given = {k.arg: ast.literal_eval(k.value) for k in recipe[0].keywords if k.arg == "role"}
    assert given.get("role") == role


def test_no_other_run_module_builds_a_model_client() -> None:
    for path in RUN.glob("*.py"):
        names = {c.func.id for c in _calls(path)}  # type: ignore[attr-defined]
        assert "model_access" not in names, path.name
