"""The CRD is generated from the models, committed, and documented; settings and RBAC are validated."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from assay_operator import crdgen, rbac
from assay_operator.evaluation.api import BundledRef, EvaluationSpec
from assay_operator.settings import SettingsError, from_environment

ROOT = Path(__file__).resolve().parents[2]


def test_committed_crds_match_the_models() -> None:
    files = crdgen.rendered_files()
    assert set(files) == {"assay.dev_evaluations.yaml", "assay.dev_campaigns.yaml"}
    for name, text in files.items():
        assert (ROOT / "crds" / name).read_text() == text, f"crds/{name} drifted: run `make crds`"


def test_crd_check_reports_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert crdgen.main(["--out", str(tmp_path)]) == 0
    assert crdgen.main(["--check", str(tmp_path)]) == 0
    stale = tmp_path / "assay.dev_campaigns.yaml"
    stale.write_text(stale.read_text().replace("maxParallel", "maxParallelism"))
    assert crdgen.main(["--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^-\s+maxParallelism:", out, re.M) and re.search(r"^\+\s+maxParallel:", out, re.M)


def _walk(schema: dict[str, Any], path: str = "spec") -> list[str]:
    missing = [] if "description" in schema or path == "spec" else [path]
    for name, child in (schema.get("properties") or {}).items():
        missing += _walk(child, f"{path}.{name}")
    if "items" in schema and schema["items"].get("type") == "object":
        missing += _walk(schema["items"], f"{path}[]")
    return missing


@pytest.mark.parametrize("name", ["assay.dev_evaluations.yaml", "assay.dev_campaigns.yaml"])
def test_every_spec_field_has_a_description(name: str) -> None:
    crd = yaml.safe_load((ROOT / "crds" / name).read_text().split("---", 1)[1])
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert _walk(spec) == []


@pytest.mark.parametrize("name", ["assay.dev_evaluations.yaml", "assay.dev_campaigns.yaml"])
def test_schema_is_structural(name: str) -> None:
    """No $ref, no titles, and anyOf only in the one structural form Kubernetes allows it with types: an
    int-or-string (resource quantities)."""
    text = (ROOT / "crds" / name).read_text()
    assert "$ref" not in text and "title:" not in text
    crd = yaml.safe_load(text.split("---", 1)[1])

    def walk(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, dict):
            return ([node] if "anyOf" in node else []) + [n for v in node.values() for n in walk(v)]
        if isinstance(node, list):
            return [n for v in node for n in walk(v)]
        return []

    with_any_of = walk(crd["spec"]["versions"][0]["schema"])
    assert with_any_of, "the resource quantities are int-or-string"
    for node in with_any_of:
        assert node.get("x-kubernetes-int-or-string") is True and "type" not in node, node
        assert node["anyOf"] == [{"type": "integer"}, {"type": "string"}], node


def test_spec_cannot_name_pod_level_settings() -> None:
    crd = crdgen.evaluation_crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    assert not {"image", "serviceAccountName", "volumes", "env", "podTemplate"} & set(spec)


def test_settings_errors_name_the_variable() -> None:
    with pytest.raises(SettingsError, match="ASSAY_RUNNER_IMAGE"):
        from_environment({})
    with pytest.raises(SettingsError, match="ASSAY_BACKOFF_LIMIT"):
        from_environment({"ASSAY_RUNNER_IMAGE": "x", "ASSAY_BACKOFF_LIMIT": "lots"})
    settings = from_environment(
        {"ASSAY_RUNNER_IMAGE": "x", "ASSAY_NAMESPACES": "a, b", "ASSAY_RUNNER_COMMAND": "py -m m"}
    )
    assert settings.namespaces == ("a", "b") and settings.runner_command == ("py", "-m", "m")
    assert settings.runner_agent_presets == ()  # the default runner image has no agent CLI


def test_agent_presets_setting_takes_only_the_cli_presets() -> None:
    settings = from_environment({"ASSAY_RUNNER_IMAGE": "x", "ASSAY_RUNNER_AGENT_PRESETS": "codex, opencode"})
    assert settings.runner_agent_presets == ("codex", "opencode")
    with pytest.raises(SettingsError, match=r"ASSAY_RUNNER_AGENT_PRESETS: unknown preset\(s\) chat, cursor"):
        from_environment({"ASSAY_RUNNER_IMAGE": "x", "ASSAY_RUNNER_AGENT_PRESETS": "codex,cursor,chat"})


def test_rbac_has_no_secrets_exec_or_wildcards() -> None:
    rules = rbac.role_rules()
    flat = [
        (g, r, v)
        for rule in rules
        for g in rule["apiGroups"]
        for r in rule["resources"]
        for v in rule["verbs"]
    ]
    assert not any("*" in (g, r, v) for g, r, v in flat)
    assert not any(r in ("secrets", "pods/exec", "serviceaccounts/token") for _, r, _ in flat)
    for needed in [
        ("batch", "jobs", "create"),
        ("", "configmaps", "create"),
        ("assay.dev", "evaluations/status", "patch"),
        ("", "pods", "list"),
        ("assay.dev", "evaluations/finalizers", "update"),
        ("assay.dev", "evaluations", "create"),
        ("assay.dev", "campaigns", "watch"),
        ("assay.dev", "campaigns/status", "patch"),
        ("assay.dev", "campaigns/finalizers", "update"),
        ("", "persistentvolumeclaims", "create"),
        ("", "persistentvolumeclaims", "delete"),
        ("networking.k8s.io", "networkpolicies", "create"),
        ("networking.k8s.io", "networkpolicies", "patch"),
    ]:
        assert rbac.allowed(*needed), needed


@pytest.mark.parametrize(
    "path",
    ["support-desk/../../../etc", "/etc/passwd", "support-desk//answers", "support-desk/answers/", ".hidden"],
)
def test_bundled_paths_cannot_leave_the_bundled_root(path: str) -> None:
    with pytest.raises(ValidationError):
        BundledRef(bundled=path)


def test_bundled_paths_take_nested_relative_paths() -> None:
    assert BundledRef(bundled="support-desk/answers/v1.2_b").bundled == "support-desk/answers/v1.2_b"


@pytest.mark.parametrize("gateway", ["gateway.ai:8080", "ftp://gateway.ai", "http://gw.ai/v1 --x", "http://"])
def test_gateway_is_one_http_url(gateway: str) -> None:
    spec = {
        "brain": {"configMap": {"name": "b"}},
        "suite": {"bundled": "s"},
        "agent": {"kind": "replay", "answers": {"bundled": "a"}},
        "gateway": gateway,
    }
    with pytest.raises(ValidationError):
        EvaluationSpec.model_validate(spec)


@pytest.mark.parametrize("field", ["experiment", "trackingUri"])
@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_mlflow_name_or_uri_is_refused_by_the_model_and_the_crd(field: str, blank: str) -> None:
    """The runner refuses a blank experiment or tracking URI; found by the property test on the cluster,
    where the operator kept failing to build the RunConfig of an Evaluation the apiserver had admitted."""
    base = {"brain": {"configMap": {"name": "b"}}, "suite": {"bundled": "support"}, "agent": {"kind": "chat"}}
    with pytest.raises(ValidationError, match=rf"mlflow\.{field}\n  String should match pattern"):
        EvaluationSpec.model_validate({**base, "mlflow": {field: blank}})
    EvaluationSpec.model_validate({**base, "mlflow": {field: "a b" if field == "experiment" else "http://m"}})
    crd = yaml.safe_load((ROOT / "crds" / "assay.dev_evaluations.yaml").read_text())
    mlflow = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "mlflow"
    ]
    pattern = mlflow["properties"][field]["pattern"]
    assert not re.search(pattern, blank) and re.search(pattern, " x ")  # the apiserver searches, unanchored


@pytest.mark.parametrize(
    ("where", "value"),
    [
        pytest.param(("agent", "model"), "gpt\n-small", id="model-newline"),
        pytest.param(("judgeModel",), "judge\x00", id="judge-model-nul"),
        pytest.param(("mlflow", "experiment"), "exp\x1b[31m", id="experiment-escape"),
        pytest.param(("agent", "command", 0), "run\x00", id="command-nul"),
        pytest.param(("prices", "m", "inputPerMillion"), 1e308, id="price-1e308"),
    ],
)
def test_what_the_runner_refuses_the_evaluation_refuses_too(
    where: tuple[str | int, ...], value: object
) -> None:
    """Issue 42: a name with a control character, a NUL in an argument or a price past a dollar a token is
    refused by the runner's RunConfig; admitted here, the operator could not build the RunConfig at all. The
    model and the CRD refuse it by the runner's own figures (contract.LABEL_PATTERN, MAX_PRICE)."""
    spec: dict[str, Any] = {
        "brain": {"configMap": {"name": "b"}},
        "suite": {"bundled": "s"},
        "agent": {"kind": "command", "model": "m", "command": ["run"]},
        "prices": {"m": {"inputPerMillion": 1, "outputPerMillion": 1}},
    }
    target: Any = spec
    for part in where[:-1]:
        target = target.setdefault(part, {}) if isinstance(part, str) else target[part]
    target[where[-1]] = value
    with pytest.raises(ValidationError):
        EvaluationSpec.model_validate(spec)
    target[where[-1]] = "fine name" if isinstance(value, str) else 1_000_000
    EvaluationSpec.model_validate(spec)
    if isinstance(value, str) and where[-1] != 0:
        crd = yaml.safe_load((ROOT / "crds" / "assay.dev_evaluations.yaml").read_text())
        schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        for part in where:
            schema = schema["properties"][part]
        assert not re.search(schema["pattern"], value) and re.search(schema["pattern"], "fine name")
