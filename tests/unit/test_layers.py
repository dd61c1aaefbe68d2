"""The runner's folders are layers, and each imports only the layers beneath it.

`contract` and `errors` are the base; `core` is pure arithmetic over verdicts (never an agent, a judge run, a
file tree or a terminal); judges and agents do not know each other; `run` orchestrates without views or
commands; only `cli` and `commands` sit on top. A new import that crosses a layer fails here, with the
module that made it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "runner" / "assay_runner"
BASE = {"contract", "errors"}
# layer -> the layers it may import (itself always).
ALLOWED: dict[str, set[str]] = {
    "contract": set(),
    "errors": set(),
    "core": BASE | {"suite"},
    "gateway": BASE,
    "suite": BASE | {"judges"},  # the loader compiles code judges and checks patterns as it validates
    "judges": BASE | {"gateway", "suite"},
    "agents": BASE | {"core", "gateway", "io", "suite"},
    "io": BASE | {"core", "suite", "views"},  # outputs renders the report beside result.json
    "views": BASE | {"core", "judges", "run"},
    "run": BASE | {"agents", "core", "gateway", "io", "judges", "suite"},
    "commands": BASE | {"agents", "core", "gateway", "io", "judges", "run", "suite", "views"},
    "cli": BASE | {"commands", "run"},
}


def layer_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py")


def imported_layers(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "assay_runner":  # `from assay_runner import contract`
                names = [f"assay_runner.{alias.name}" for alias in node.names]
        found.update(name.split(".")[1] for name in names if name.startswith("assay_runner."))
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


def test_every_module_belongs_to_a_known_layer() -> None:
    assert {layer_of(p) for p in SOURCES} <= set(ALLOWED)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down_the_layers(source: Path) -> None:
    layer = layer_of(source)
    crossing = imported_layers(source) - ALLOWED[layer] - {layer}
    assert not crossing, f"{source.relative_to(PACKAGE)} ({layer}) imports {sorted(crossing)}"


def test_the_check_sees_a_crossing(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from assay_runner.run.evaluation import run_evaluation\nfrom assay_runner import views\n"
    )
    assert imported_layers(probe) == {"run", "views"}
