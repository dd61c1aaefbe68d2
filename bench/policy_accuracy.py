"""The policy judge on its adversarial table (tests/data/policy_adversarial.yaml): accuracy per class.

.venv/bin/python bench/policy_accuracy.py            # accuracy per class, false negatives and positives
.venv/bin/python bench/policy_accuracy.py --list     # also every wrong row
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from assay_runner.text.policy_reader import ForbiddenRule, find_violations

TABLE = Path(__file__).resolve().parents[1] / "tests/data/policy_adversarial.yaml"
RULES = [ForbiddenRule(phrase=p) for p in ("reinstall", "disable selinux", "disable the firewall")]


def rows() -> list[tuple[str, str, bool]]:
    data = yaml.safe_load(TABLE.read_text("utf-8"))
    return [(c, row["text"], row["violates"]) for c, items in data["cases"].items() for row in items]


def main() -> None:
    table = rows()
    by_class: dict[str, list[int]] = {}
    wrong = []
    for cls, text, expected in table:
        got = bool(find_violations(text, RULES))
        counts = by_class.setdefault(cls, [0, 0, 0])  # right, false negatives, false positives
        if got == expected:
            counts[0] += 1
        else:
            counts[1 if expected else 2] += 1
            wrong.append((cls, text, expected))
    print(f"{'class':<18} {'right':>7} {'FN':>3} {'FP':>3}")
    for cls, (right, fn, fp) in by_class.items():
        total = right + fn + fp
        print(f"{cls:<18} {right:>3}/{total:<3} {fn:>3} {fp:>3}")
    correct = sum(v[0] for v in by_class.values())
    print(f"overall: {correct}/{len(table)} = {correct / len(table):.1%}")
    if "--list" in sys.argv:
        for cls, text, expected in wrong:
            print(f"  [{cls}] {'FN' if expected else 'FP'}: {text!r}")


if __name__ == "__main__":
    main()
