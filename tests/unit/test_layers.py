"""The runner's folders are layers in a strict order, and each imports only the layers beneath it.

The order is one list (LAYERS), so two folders cannot import each other: a new import that runs back up
the list fails here, with the module that made it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "runner" / "assay_runner"
# The layers, lowest first: each may import only the layers before it (and itself), so a cycle between two
# folders cannot be written.
# - vocabulary, errors, contract: the base (the closed sets; exit codes and exceptions; the public wire
#   models and the rules both sides of them share);
# - collector, processes, cgroup, sandbox: when the process runs the garbage collector; the processes it
#   started and the ones agents left behind; a cgroup per cell where the runtime delegates one; the kernel's
#   confinement of each agent program (Landlock);
# - usercode, text: the code judge's worker, and reading an answer (words, sentences, clauses): what the
#   suite validates with and the judges read with;
# - gateway, suite: model calls; the suite's models and loader;
# - core: pure arithmetic over verdicts (scores, gate, decision);
# - judges; io (files in and out); views (terminal, HTML); agents;
# - run: the phases composed from one-cell steps; commands and cli on top.
LAYERS: tuple[str, ...] = (
    "vocabulary",
    "errors",
    "contract",
    "collector",
    "processes",
    "cgroup",
    "sandbox",
    "usercode",
    "text",
    "gateway",
    "suite",
    "core",
    "judges",
    "io",
    "views",
    "agents",
    "conversation",
    "run",
    "commands",
    "cli",
)
ALLOWED: dict[str, set[str]] = {layer: set(LAYERS[:i]) for i, layer in enumerate(LAYERS)}


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
        found.update(
            name.split(".")[1]
            for name in names
            if name.startswith("assay_runner.") and not name.split(".")[1].startswith("__")  # __version__
        )
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
