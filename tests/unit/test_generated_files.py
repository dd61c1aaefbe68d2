"""`make crds` regenerates every generated file, `make crds-check` and `make chart-check` check the same set,
and every generated file says at its top that it is generated (so nobody edits one by hand).

The generators are read from the Makefile's recipes; the files each writes from the generator itself (its
`expected()`), except manifests/base, which helm renders: its committed files are read instead.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = re.compile(r"\$\(BIN\)/python (-m [\w.]+|scripts/\w+\.py)(.*)$")


def recipe(target: str) -> list[str]:
    """The recipe lines of a Makefile target."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    body = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        body.append(line.strip())
    return body


def generators(target: str) -> dict[str, str]:
    """Generator (a module or a script) -> the rest of its command line, in a target's recipe."""
    found = {}
    for line in recipe(target):
        match = GENERATOR.search(line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def test_make_crds_writes_what_the_two_checks_check() -> None:
    written = generators("crds")
    checked = {**generators("crds-check"), **generators("chart-check")}
    assert set(written) == set(checked), set(written) ^ set(checked)
    assert all(arguments.startswith("--check") for arguments in checked.values()), checked
    assert not any("--check" in arguments for arguments in written.values()), written
    assert recipe("chart") == [] and "chart: crds" in (ROOT / "Makefile").read_text()


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_generator_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def generated_files() -> list[Path]:
    from assay_dev.images import requirements
    from assay_operator import crdgen

    files = [ROOT / "crds" / name for name in crdgen.rendered_files()]
    files += [*load_script("gen_chart_files").expected(), *load_script("gen_olm_bundle").expected()]
    files += [*requirements.expected(), load_script("gen_homoglyphs").TARGET]
    files += sorted((ROOT / "manifests" / "base").glob("*.yaml"))
    return files


GENERATED = generated_files()


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_generated_file_says_so_at_its_top(path: Path) -> None:
    top = path.read_text().splitlines()[:2]
    assert any("GENERATED" in line for line in top), f"{path.relative_to(ROOT)} starts {top}"


def test_every_generator_is_seen() -> None:
    folders = {p.relative_to(ROOT).parts[0] for p in GENERATED}
    assert folders >= {"crds", "charts", "bundle", "images", "runner", "manifests"}, folders
