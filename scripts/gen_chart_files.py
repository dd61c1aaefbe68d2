"""Write the chart's generated files from their single sources; `--check` fails when a committed copy drifts.

- charts/assay/files/operator-rules.yaml: the operator's RBAC rules, from assay_operator.rbac (the table of
  what the handlers touch). The chart's Role or ClusterRole includes it verbatim.
- charts/assay/files/leader-election-rules.yaml: the Lease rules (rbac.LEADER_ELECTION), for the Role in the
  release namespace when operator.replicas > 1.
- charts/assay/files/approval-policy.yaml and approver-rules.yaml: the ValidatingAdmissionPolicy's spec and
  the approver role's rules, from assay_operator.approvals.
- charts/assay/crds/*.yaml: copies of crds/*.yaml (themselves generated from the operator's API models by
  `make crds`), which Helm installs before the first release.

Usage: python scripts/gen_chart_files.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from assay_dev.generated import diffs, write_or_check
from assay_operator import approvals
from assay_operator.rbac import LEADER_ELECTION, PERMISSIONS, Permission, leader_election_rules, role_rules

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "charts" / "assay"
RULES = CHART / "files" / "operator-rules.yaml"
LEADER_RULES = CHART / "files" / "leader-election-rules.yaml"
APPROVAL_POLICY = CHART / "files" / "approval-policy.yaml"
APPROVER_RULES = CHART / "files" / "approver-rules.yaml"
CRD_SOURCES = sorted((ROOT / "crds").glob("*.yaml"))


def rules_yaml(
    permissions: tuple[Permission, ...] = PERMISSIONS, rules: list[dict[str, object]] | None = None
) -> str:
    """The rules as a YAML list, each rule under a comment saying why the operator needs it."""
    lines = [
        "# GENERATED from assay_operator.rbac by scripts/gen_chart_files.py. Do not edit: change rbac.py and",
        "# run `python scripts/gen_chart_files.py`.",
    ]
    rules = role_rules() if rules is None else rules
    if len(rules) != len(permissions):
        raise SystemExit("the rules and their permissions disagree: one rule per permission expected")
    for permission, rule in zip(permissions, rules, strict=True):
        lines.append(f"# {permission.why}")
        lines.append(yaml.safe_dump([rule], sort_keys=False, default_flow_style=None, width=200).rstrip())
    return "\n".join(lines) + "\n"


def crd_copy(source: Path) -> str:
    header = (
        f"# GENERATED copy of crds/{source.name} by scripts/gen_chart_files.py. Do not edit.\n"
        "# Helm installs this file on the first install only; see charts/assay/README.md for upgrades.\n"
    )
    return header + source.read_text()


def generated_yaml(source: str, data: object) -> str:
    header = f"# GENERATED from {source} by scripts/gen_chart_files.py. Do not edit.\n"
    return header + yaml.safe_dump(data, sort_keys=False, width=200)


def expected() -> dict[Path, str]:
    return {
        RULES: rules_yaml(),
        APPROVAL_POLICY: generated_yaml("assay_operator.approvals.policy()", approvals.policy()),
        APPROVER_RULES: generated_yaml("assay_operator.approvals.APPROVER_RULES", approvals.APPROVER_RULES),
        LEADER_RULES: rules_yaml(LEADER_ELECTION, leader_election_rules()),
        **{CHART / "crds" / src.name: crd_copy(src) for src in CRD_SOURCES},
    }


def drift() -> list[str]:
    """Unified diffs of every generated file that differs from what would be generated now."""
    return diffs(expected(), ROOT)


def main(argv: list[str] | None = None) -> int:
    return write_or_check(
        argv,
        description=__doc__.splitlines()[0],
        expected=expected,
        drift=drift,
        command="python scripts/gen_chart_files.py",
    )


if __name__ == "__main__":
    sys.exit(main())
