"""Print the `assay` distribution's requirements from pyproject.toml, one per line, for an image's dependency
layer (which is built before the sources are copied in, so a source change leaves it cached).

    python3.11 requirements.py pyproject.toml [EXTRA...]    the core dependencies plus each extra's
    python3.11 requirements.py pyproject.toml --build-system the build backend ([build-system] requires)

Standard library only: it runs in the image's builder, before anything is installed.
"""

from __future__ import annotations

import sys
import tomllib


def requirements(pyproject: dict[str, object], extras: list[str]) -> list[str]:
    project = pyproject["project"]
    assert isinstance(project, dict)
    found = list(project.get("dependencies") or [])
    optional = project.get("optional-dependencies") or {}
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"pyproject.toml has no extra {extra!r} (known: {', '.join(sorted(optional))})")
        found += optional[extra]
    return found


def build_system(pyproject: dict[str, object]) -> list[str]:
    build = pyproject.get("build-system")
    assert isinstance(build, dict)
    return list(build["requires"])


def main(argv: list[str]) -> int:
    if not argv:
        raise SystemExit(__doc__)
    with open(argv[0], "rb") as f:
        pyproject = tomllib.load(f)
    lines = build_system(pyproject) if argv[1:] == ["--build-system"] else requirements(pyproject, argv[1:])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
