"""No two files of the runner, the operator or the harness import each other, directly or round a ring.

The runner's folders are ordered by tests/unit/test_layers.py; this holds every package to the finer rule,
file by file: a cycle of imports fails here, named file by file. Every import counts, lazy ones and those
under `if TYPE_CHECKING:` included (a cycle only a type checker sees is still two files that need each other).
An import of `pkg.mod` is an edge to `pkg/mod.py` alone (the parent packages it also runs are not its
subject), and `from pkg import name` is an edge to `pkg/name.py` when that is a module, else to
`pkg/__init__.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "assay_runner": ROOT / "runner",
    "assay_operator": ROOT / "operator",
    "assay_dev": ROOT / "dev",
}


def module_files(packages: Mapping[str, Path]) -> dict[str, Path]:
    """Every module by its dotted name (a package by its own name, for its __init__.py)."""
    files: dict[str, Path] = {}
    for package, home in packages.items():
        for path in sorted((home / package).rglob("*.py")):
            parts = path.relative_to(home).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = path
    return files


def imported_modules(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The known modules `path` (module `name`) imports, anywhere in the file."""
    modules = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)
                elif origin in modules:
                    found.add(origin)
    found.discard(name)
    return found


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One ring per strongly connected group of more than one module (Tarjan), each written as a path that
    comes back to where it started, so the message names every file on it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep import chain cannot reach Python's recursion limit.
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [ring(graph, group) for group in groups]


def ring(graph: Mapping[str, set[str]], group: list[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    members = set(group)
    start = group[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph.get(node, set()) & members):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{group} is not strongly connected")


def import_graph(packages: Mapping[str, Path]) -> dict[str, set[str]]:
    files = module_files(packages)
    return {name: imported_modules(name, path, files) for name, path in files.items()}


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_file_imports_itself_round_a_ring(package: str) -> None:
    graph = import_graph({package: PACKAGES[package]})
    rings = cycles(graph)
    assert not rings, "import cycles:\n" + "\n".join(" -> ".join(ring) for ring in rings)


def test_the_whole_repository_has_no_cycle_across_packages() -> None:
    assert cycles(import_graph(PACKAGES)) == []


def test_the_check_sees_a_cycle_lazy_and_relative(tmp_path: Path) -> None:
    package = tmp_path / "probe"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from probe.sub import b\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import C\n"
    )
    (package / "c.py").write_text("def f():\n    import probe.a\n")
    (package / "d.py").write_text("from . import a\n")  # into the ring, not on it
    graph = import_graph({"probe": tmp_path})
    assert graph["probe.d"] == {"probe.a"}
    assert cycles(graph) == [["probe.a", "probe.sub.b", "probe.c", "probe.a"]]
    (package / "c.py").write_text("")
    assert cycles(import_graph({"probe": tmp_path})) == []
