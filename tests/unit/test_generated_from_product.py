"""Nothing shipped is generated from test code: every generator of committed files (CRDs, chart files,
manifests/base, the OLM bundle, the images' dependency lists) reaches, through all its imports, only product
modules and the generated-file helper, never the test harness (the control plane, the operator's test
support, the fake servers) or tests/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_import_cycles import PACKAGES, import_graph, imported_modules

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = (
    "operator/assay_operator/crdgen.py",
    "scripts/gen_chart_files.py",
    "scripts/render_manifests.py",
    "scripts/gen_olm_bundle.py",
    "dev/assay_dev/images/requirements.py",
)
HARNESS_ALLOWED = {"assay_dev", "assay_dev.generated", "assay_dev.images", "assay_dev.images.requirements"}
"""The write-or-check helper and the dependency-list generator itself: tooling, not test support."""


def reached(source: Path, graph: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(imported_modules("__generator__", source, graph))
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph.get(module, ()))
    return seen


@pytest.mark.parametrize("generator", GENERATORS)
def test_a_generator_imports_no_test_support(generator: str) -> None:
    assert (ROOT / generator).is_file(), f"{generator}: not found (is the list of generators current?)"
    modules = reached(ROOT / generator, import_graph(PACKAGES))
    harness = {m for m in modules if m.split(".")[0] == "assay_dev"} - HARNESS_ALLOWED
    assert not harness, f"{generator} is generated through test support: {sorted(harness)}"


def test_the_check_sees_the_harness(tmp_path: Path) -> None:
    probe = tmp_path / "gen.py"
    probe.write_text("from assay_dev.cluster.assay_install import example_evaluation\n")
    assert "assay_dev.cluster.assay_install" in reached(probe, import_graph(PACKAGES))
