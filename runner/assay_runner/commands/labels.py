"""`assay labels export EVALUATION.json --result RESULT.json [--out LABELS.jsonl]`: people's overrides of
Evaluations as labels for `assay calibrate` (core.override_labels says what an override can and cannot say).

EVALUATION.json is `kubectl get evaluation NAME -o json` (or a list: `kubectl get evaluations -o json`, one
`--result` per item in the same order); RESULT.json is that run's result.json (docs/operating.md says how to
download it). Labels are appended to --out, or printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError


def add_parser(commands: Subcommands) -> None:
    labels = commands.add_parser("labels", help="labels for assay calibrate from people's decisions")
    actions = labels.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export", help="an Evaluation's override (Blocked -> Pass) as labels")
    export.add_argument("evaluation", type=Path, help="kubectl get evaluation NAME -o json (or a List)")
    export.add_argument("--result", type=Path, action="append", required=True, help="the run's result.json")
    export.add_argument("--out", type=Path, help="append the labels to this .jsonl file (default: print)")
    export.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.contract import Result
    from assay_runner.core.override_labels import override_labels

    try:
        document = json.loads(args.evaluation.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{args.evaluation}: not a readable JSON document ({exc})") from None
    items = document.get("items") if isinstance(document, dict) and "items" in document else [document]
    if not isinstance(items, list) or len(items) != len(args.result):
        raise InputError(f"give one --result per Evaluation ({len(items) if isinstance(items, list) else 0})")
    lines: list[str] = []
    for item, path in zip(items, args.result, strict=True):
        try:
            result = Result.model_validate_json(path.read_bytes())
        except (OSError, ValueError) as exc:
            raise InputError(f"--result {path}: not a readable result.json ({exc})") from None
        exported = override_labels(item if isinstance(item, dict) else {}, result)
        if exported.skipped:
            print(f"assay: {exported.skipped}: no labels", file=sys.stderr)
        lines += [label.model_dump_json(by_alias=True, exclude_none=True) for label in exported.labels]
    if args.out is not None:
        with args.out.open("a", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines)
        print(f"appended {len(lines)} label(s) to {args.out}", file=sys.stderr)
    else:
        sys.stdout.writelines(line + "\n" for line in lines)
    return ExitCode.PASS
