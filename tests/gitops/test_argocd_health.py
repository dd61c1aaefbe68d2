"""The Argo CD health check (gitops/argocd/.../health.lua) run by a real Lua interpreter on every fixture of
its health_test.yaml, Argo CD's own format. Lua 5.1 first (Argo CD's gopher-lua implements 5.1), then 5.4,
so nothing depends on one version's number formatting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lupa.lua51
import lupa.lua54
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "gitops" / "argocd" / "resource_customizations" / "assay.dev"
KINDS = ("Evaluation", "Campaign")
CHECK = CHECKS / "Evaluation"
LUA = (CHECK / "health.lua").read_text()
CASES = [
    (kind, case)
    for kind in KINDS
    for case in yaml.safe_load((CHECKS / kind / "health_test.yaml").read_text())["tests"]
]
RUNTIMES = {"lua51": lupa.lua51.LuaRuntime, "lua54": lupa.lua54.LuaRuntime}


def health(obj: dict[str, Any], runtime: str = "lua51", script: str = LUA) -> dict[str, str]:
    """What Argo CD does: the object as the global `obj`, the script's returned table read back."""
    lua = RUNTIMES[runtime]()
    lua.globals().obj = lua.table_from(obj, recursive=True)
    result = lua.execute(script)
    return {key: result[key] for key in ("status", "message")}


@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
@pytest.mark.parametrize(("kind", "case"), CASES, ids=[f"{k}-{Path(c['inputPath']).stem}" for k, c in CASES])
def test_health_check_fixture(kind: str, case: dict[str, Any], runtime: str) -> None:
    obj = yaml.safe_load((CHECKS / kind / case["inputPath"]).read_text())
    assert obj["kind"] == kind
    assert health(obj, runtime, (CHECKS / kind / "health.lua").read_text()) == case["healthStatus"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_fixture_is_listed_and_every_state_covered(kind: str) -> None:
    cases = [c for k, c in CASES if k == kind]
    listed = {c["inputPath"] for c in cases}
    on_disk = {f"testdata/{p.name}" for p in (CHECKS / kind / "testdata").glob("*.yaml")}
    assert listed == on_disk
    assert {c["healthStatus"]["status"] for c in cases} == {"Progressing", "Healthy", "Degraded"}
    # The fixture's name says what it expects, so a mislabelled expectation stands out.
    for case in cases:
        assert Path(case["inputPath"]).stem.split("_")[0] == case["healthStatus"]["status"].lower()


def test_a_broken_check_fails_the_fixtures() -> None:
    """The fixtures can fail: a check that forgets the generation calls a stale Pass Healthy. (The status's
    and each condition's observedGeneration are both checked, so both must go.)"""
    careless = LUA.replace("obj.status.observedGeneration ~= generation", "false").replace(
        "condition.observedGeneration ~= nil and condition.observedGeneration ~= generation", "false"
    )
    assert careless.count("false") == LUA.count("false") + 2
    stale = yaml.safe_load((CHECK / "testdata" / "progressing_stale_generation.yaml").read_text())
    assert health(stale, script=careless)["status"] == "Healthy"
    assert health(stale)["status"] == "Progressing"


def test_status_defaulted_by_the_apiserver_is_progressing() -> None:
    """A CRD may default `status: {observedGeneration: 0}` so a new object never reads as finished."""
    obj = yaml.safe_load((CHECK / "testdata" / "progressing_no_status.yaml").read_text())
    obj["status"] = {"observedGeneration": 0}
    assert health(obj) == {
        "status": "Progressing",
        "message": "Waiting for the Assay operator to reconcile generation 1",
    }


@pytest.mark.parametrize(
    ("path", "kind", "keys"),
    [
        ("argocd-cm-patch.yaml", kind, ["data", f"resource.customizations.health.assay.dev_{kind}"])
        for kind in KINDS
    ]
    + [
        ("openshift-gitops-patch.yaml", kind, ["spec", "resourceHealthChecks", i, "check"])
        for i, kind in enumerate(KINDS)
    ],
)
def test_the_install_snippets_carry_the_same_lua(path: str, kind: str, keys: list[Any]) -> None:
    node: Any = yaml.safe_load((ROOT / "gitops" / "argocd" / path).read_text())
    if keys[1] == "resourceHealthChecks":
        assert node["spec"]["resourceHealthChecks"][keys[2]]["kind"] == kind
    for key in keys:
        node = node[key]
    assert node == (CHECKS / kind / "health.lua").read_text(), f"gitops/argocd/{path} drifted: copy it over"


def test_the_chart_readme_shows_the_same_lua() -> None:
    readme = (ROOT / "charts" / "assay" / "README.md").read_text()
    block = readme.split("```lua\n", 1)[1].split("```", 1)[0]
    assert block == LUA, "charts/assay/README.md shows an old health.lua: copy it over"
