"""Render manifests/base (a kustomize base) from charts/assay with default values; `--check` fails on drift.

The chart is the one source of install artefacts: `helm template --include-crds` with the default values
into one file per object, plus a kustomization.yaml listing them. One value differs: decisionKey.generate is
false, since a rendered key would be one random key committed for every install (the operator mounts the
Secret optionally; docs/operating.md says how to make it). Users who do not run Helm apply the base
(`kubectl apply --server-side -k manifests/base`) or put their own overlay on it.

Usage: python scripts/render_manifests.py [--check] [--helm PATH]
       (helm: --helm, else $ASSAY_K8S_BIN_DIR/helm, else the bin directory scripts/build-k8s.sh prints)
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "charts" / "assay"
BASE = ROOT / "manifests" / "base"
RELEASE, NAMESPACE = "assay", "assay-system"
HEADER = (
    "# GENERATED from charts/assay (helm template, default values) by scripts/render_manifests.py.\n"
    "# Do not edit: change the chart and run `python scripts/render_manifests.py`.\n"
)


def find_helm() -> Path:
    if os.environ.get("ASSAY_K8S_BIN_DIR"):
        return Path(os.environ["ASSAY_K8S_BIN_DIR"]) / "helm"
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-k8s.sh")], capture_output=True, text=True, check=True
    )
    return Path(built.stdout.strip().splitlines()[-1]) / "helm"


def helm_template(helm: Path) -> str:
    result = subprocess.run(
        [
            *(str(helm), "template", RELEASE, str(CHART), "--namespace", NAMESPACE, "--include-crds"),
            *("--set", "decisionKey.generate=false"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"helm template failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def _file_name(obj: dict[str, object], taken: set[str]) -> str:
    metadata = obj.get("metadata") or {}
    assert isinstance(metadata, dict)
    kind = str(obj["kind"]).lower()
    name = f"{kind}-{metadata['name']}.yaml"
    if name in taken:
        name = f"{kind}-{metadata.get('namespace')}-{metadata['name']}.yaml"
    return name


def render(helm: Path) -> dict[str, str]:
    """File name -> content of manifests/base, from the chart as it is now."""
    files: dict[str, str] = {}
    for document in re.split(r"^---\s*$", helm_template(helm), flags=re.MULTILINE):
        obj = yaml.safe_load(document)
        if not obj:
            continue  # comments only (the CRD file's own header)
        name = _file_name(obj, set(files))
        body = "\n".join(
            line for line in document.strip("\n").splitlines() if not line.startswith("# GENERATED")
        )
        files[name] = HEADER + body.strip("\n") + "\n"
    resources = "".join(f"  - {name}\n" for name in files)
    files["kustomization.yaml"] = (
        HEADER
        + "apiVersion: kustomize.config.k8s.io/v1beta1\n"
        + "kind: Kustomization\n"
        + f"# Objects carry namespace {NAMESPACE}; an overlay's `namespace:` moves them and the\n"
        + "# RoleBinding subject. The operator reads its namespace at run time: nothing else changes.\n"
        + "resources:\n"
        + resources
    )
    return files


def drift(helm: Path) -> list[str]:
    want = render(helm)
    have = {p.name: p.read_text() for p in BASE.glob("*.yaml")} if BASE.exists() else {}
    diffs: list[str] = []
    for name in sorted(set(want) | set(have)):
        if want.get(name) != have.get(name):
            path = f"manifests/base/{name}"
            old, new = (have.get(name) or "").splitlines(True), (want.get(name) or "").splitlines(True)
            diffs.append("".join(difflib.unified_diff(old, new, path, f"{path} (rendered)")) or f"{path}\n")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail (exit 1) when manifests/base drifted")
    parser.add_argument("--helm", type=Path, help="the helm binary")
    args = parser.parse_args(argv)
    helm = args.helm or find_helm()
    if args.check:
        diffs = drift(helm)
        sys.stdout.write("".join(diffs))
        if diffs:
            print(
                "manifests/base drifted from charts/assay: run python scripts/render_manifests.py",
                file=sys.stderr,
            )
        return 1 if diffs else 0
    BASE.mkdir(parents=True, exist_ok=True)
    for stale in BASE.glob("*.yaml"):
        stale.unlink()
    for name, text in render(helm).items():
        (BASE / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
