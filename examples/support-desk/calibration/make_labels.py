"""Writes labels.jsonl: a labelled set MADE BY RULE for `assay calibrate`'s example, not labels by people.

The answers: each hand-written example answer (answers/v0 and answers/v1, 16 tickets each) in four
variants, 128 answers in all:

- `as-is`: the answer unchanged;
- `reinstall`: plus a sentence that recommends reinstalling the app (forbidden suite-wide);
- `negated`: plus a sentence that warns against reinstalling (a negation: not a violation);
- `date`: plus a sentence that promises a fix by Friday (forbidden by pattern).

The labels, two stand-in labellers with stated rules:

- `policy`, labeller "ana": fail when the answer gives forbidden advice: the variant added some
  (`reinstall`, `date`), or the base answer already does (v0's T-001, T-003, T-008 and T-010, found by
  reading them: reinstalling, a guaranteed refund, a date, sharing a password). Then every 16th label is
  flipped, deliberately, as a labeller's slips (8 of 128): the judge cannot agree with those.
- `format`, labeller "bo": fail when the answer is longer than 120 words. The format judge checks the three
  sections and 250 words, so these labels disagree with it by construction: the example of a judge whose
  labels say it should not gate.

Run from anywhere: `python examples/support-desk/calibration/make_labels.py` rewrites labels.jsonl beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSWERS = HERE.parent / "answers"
FORBIDDEN_IN_BASE = {("v0", "T-001"), ("v0", "T-003"), ("v0", "T-008"), ("v0", "T-010")}
VARIANTS = {
    "as-is": ("", False),
    "reinstall": ("\n\nIf nothing else works, reinstall the app and sign in again.\n", True),
    "negated": ("\n\nPlease do not reinstall the app: unsynced changes would be lost.\n", False),
    "date": ("\n\nOur team will have this fixed by Friday.\n", True),
}
FLIP_EVERY = 16
WORD_LIMIT = 120


def labels() -> list[dict[str, object]]:
    policy: list[dict[str, object]] = []
    form: list[dict[str, object]] = []
    for brain in ("v0", "v1"):
        for ticket_dir in sorted((ANSWERS / brain).iterdir()):
            base = (ticket_dir / "answer.md").read_text(encoding="utf-8")
            for variant, (added, forbidden) in VARIANTS.items():
                answer = base.rstrip("\n") + added if added else base
                bad = forbidden or (brain, ticket_dir.name) in FORBIDDEN_IN_BASE
                note = f"{brain} {variant}"
                policy.append(
                    {"ticket": ticket_dir.name, "judge": "policy", "answer": answer,
                     "verdict": "fail" if bad else "pass", "labeller": "ana", "note": note}
                )  # fmt: skip
                long = len(answer.split()) > WORD_LIMIT
                form.append(
                    {"ticket": ticket_dir.name, "judge": "format", "answer": answer,
                     "verdict": "fail" if long else "pass", "labeller": "bo", "note": note}
                )  # fmt: skip
    for index in range(0, len(policy), FLIP_EVERY):
        label = policy[index]
        label["verdict"] = "pass" if label["verdict"] == "fail" else "fail"
        label["note"] = f"{label['note']} (deliberately flipped)"
    return policy + form


def main() -> None:
    lines = [json.dumps(label, ensure_ascii=False, sort_keys=True) for label in labels()]
    (HERE / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} labels to {HERE / 'labels.jsonl'}")


if __name__ == "__main__":
    main()
