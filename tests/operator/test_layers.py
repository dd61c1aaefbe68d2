"""The layers stay apart: the operator imports only the runner's contract and its pure decision (never judge
code or suite content), and the runner never imports the operator."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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
        " assay_operator.evaluation.reconcile;"
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
