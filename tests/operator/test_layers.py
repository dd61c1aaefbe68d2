"""The layers stay apart: the operator imports only the runner's contract and its pure decision (never judge
code or suite content), and the runner never imports the operator. Inside the operator, its own layers keep
a strict order (OPERATOR_LAYERS), the runner's kind (tests/unit/test_layers.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imports(package: Path) -> set[str]:
    found: set[str] = set()
    for source in package.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
    return found


ALLOWED_RUNNER_MODULES = {
    "assay_runner.vocabulary",  # the closed sets (standard library only)
    "assay_runner.contract",  # the wire models and the rules both sides share
    "assay_runner.contract.yaml_scalars",  # the contract's YAML reading (imported where YAML is needed)
    "assay_runner.core.standing",  # the decision: pure Python, no judge code
    "assay_runner.core.decision",
    "assay_runner.core.decision_report",
    "assay_runner.core.statistics",
    "assay_runner.errors",  # the exit codes the Job's pod reports
}


def test_operator_imports_only_the_runner_contract_and_decision() -> None:
    runner_imports = {
        m for m in imports(ROOT / "operator" / "assay_operator") if m.startswith("assay_runner")
    }
    assert runner_imports <= ALLOWED_RUNNER_MODULES, sorted(runner_imports - ALLOWED_RUNNER_MODULES)


def test_runner_never_imports_the_operator() -> None:
    assert not {m for m in imports(ROOT / "runner" / "assay_runner") if m.startswith("assay_operator")}


def test_the_decision_needs_no_numerical_library() -> None:
    probe = (
        "import sys, assay_runner.core.decision;"
        "print(sorted({'numpy', 'scipy', 'pandas'} & set(sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_loading_the_operator_pulls_in_no_judge_code() -> None:
    probe = (
        "import sys, assay_operator.evaluation.handlers, assay_operator.campaign.handlers,"
        " assay_operator.evaluation.read.reconcile;"
        "print(sorted(m for m in sys.modules if m.startswith('assay_runner')))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    # The contract is a package of pydantic models and rules: its modules come with it.
    modules = [m for m in ast.literal_eval(loaded.strip()) if not m.startswith("assay_runner.contract.")]
    assert modules == (
        [
            "assay_runner",
            "assay_runner.contract",
            "assay_runner.core",
            "assay_runner.core.decision",
            "assay_runner.core.decision_report",
            "assay_runner.core.standing",
            "assay_runner.core.statistics",  # the decision's paired tests: pure Python, standard library
            "assay_runner.errors",
            "assay_runner.vocabulary",
        ]
    )


# The operator's own layers, lowest first, named by module path under assay_operator: each module may import
# only the layers before its own (and its own), so an import that runs back up fails here with its module.
# - the shared base: schema and quantities, bounded text, timers, the Kubernetes object models (those it
#   builds, and the views of those it reads: cluster_views), who may approve, RBAC, coalescing, metrics,
#   conditions, settings, Events, the API client, the leader lease, retries, the status write;
# - per kind, the runner's shape: the API; pure builders of children; pure readers of what the cluster
#   shows; steps that touch the cluster; the kopf handlers. `startup` (the process's kopf settings) sits
#   where it is needed: it reads the children's labels (build) and the steps read its settings;
# - the Campaign kind above the Evaluation kind it makes: its API, reading its children, the plan, the
#   standings, the status reduction, the one typed view of a Campaign per reconcile, the approval annotation
#   spent and its Events, the handlers;
# - the CRD generator, the shipped example resources (the OLM bundle's alm-examples) and the entry point on
#   top.
OPERATOR = ROOT / "operator" / "assay_operator"
OPERATOR_LAYERS: tuple[str, ...] = (
    "schema",
    "image_mirrors",
    "registry_api",
    "oci_documents",
    "quantity",
    "bounded",
    "timers",
    "objects",
    "cluster_views",
    "field_managers",
    "seals",
    "approvals",
    "rbac",
    "coalesce",
    "metrics",
    "conditions",
    "settings",
    "image_verification",
    "events",
    "kube",
    "leader",
    "retries",
    "status_writer",
    "evaluation.api",
    "evaluation.build",
    "evaluation.read",
    "startup",
    "evaluation.steps",
    "evaluation.handlers",
    "campaign.api",
    "campaign.children",
    "campaign.plan",
    "campaign.standings",
    "campaign.status",
    "campaign.watched",
    "campaign.approval",
    "campaign.handlers",
    "crdgen",
    "examples",
    "__main__",
)


def operator_layer(module: str) -> int | None:
    """The index in OPERATOR_LAYERS of a dotted module under assay_operator (`evaluation.build.pods`), or
    None for a package that is no layer (`assay_operator`, `assay_operator.evaluation`)."""
    found = [
        i for i, layer in enumerate(OPERATOR_LAYERS) if module == layer or module.startswith(layer + ".")
    ]
    return max(found, key=lambda i: len(OPERATOR_LAYERS[i])) if found else None


def operator_module(path: Path) -> str:
    parts = path.relative_to(OPERATOR).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def operator_imports(path: Path) -> set[str]:
    """The assay_operator modules a source imports, without the package prefix; `from assay_operator.x import
    y` counts as `x.y` when y is a module of its own, else as `x`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                relative = submodule.removeprefix("assay_operator.").replace(".", "/")
                is_module = (OPERATOR / f"{relative}.py").exists() or (OPERATOR / relative).is_dir()
                found.add(submodule if is_module else node.module)
    return {
        name.removeprefix("assay_operator.")
        for name in found
        if name.startswith("assay_operator.")
        and operator_layer(name.removeprefix("assay_operator.")) is not None
    }


OPERATOR_SOURCES = sorted(OPERATOR.rglob("*.py"))


def test_every_operator_module_belongs_to_a_known_layer() -> None:
    loose = [
        operator_module(p)
        for p in OPERATOR_SOURCES
        if operator_layer(operator_module(p)) is None and p.name != "__init__.py"
    ]
    assert not loose, f"modules in no layer of OPERATOR_LAYERS: {loose}"


@pytest.mark.parametrize("source", OPERATOR_SOURCES, ids=lambda p: str(p.relative_to(OPERATOR)))
def test_operator_imports_go_down_the_layers(source: Path) -> None:
    own = operator_layer(operator_module(source))
    ceiling = len(OPERATOR_LAYERS) if own is None else own  # a package's __init__ may gather its layers
    up = sorted(m for m in operator_imports(source) if (operator_layer(m) or 0) > ceiling)
    assert not up, f"{source.relative_to(OPERATOR)} ({OPERATOR_LAYERS[ceiling]}) imports {up}, above it"


def test_the_operator_check_sees_an_import_back_up(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from assay_operator.evaluation.steps import run\n"
        "from assay_operator.evaluation.build.pods import runner_container\n"
        "import assay_operator.evaluation.handlers\n"
        "from assay_operator.evaluation.api import EvaluationSpec\n"
    )
    assert operator_imports(probe) == {
        "evaluation.steps.run",
        "evaluation.build.pods",
        "evaluation.handlers",
        "evaluation.api",
    }
    assert operator_layer("evaluation.read.reconcile") == OPERATOR_LAYERS.index("evaluation.read")
    assert OPERATOR_LAYERS.index("evaluation.build") < OPERATOR_LAYERS.index("evaluation.steps")
