"""`assay calibrate SUITE LABELS [--out DIR]`: how often the suite's judges agree with people.

It runs the labelled judges on the labelled answers and prints, per judge, the agreement, Cohen's kappa
(quadratic-weighted for scores) with a seeded bootstrap interval, and the number of disagreements to review.
With `--out DIR` it writes calibration.json (what a suite's `calibration:` requirement reads, bound to each
judge's definition and to the labels by digest) and calibration.md (the review page). Not a verdict: it
exits 0 once measured, 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError


def add_parser(commands: Subcommands) -> None:
    calibrate = commands.add_parser(
        "calibrate", help="measure how often the suite's judges agree with people's labels (kappa)"
    )
    calibrate.add_argument("suite", help="suite directory (with suite.yaml)")
    calibrate.add_argument("labels", type=Path, help="labels file (.jsonl, or .yaml with a labels: list)")
    calibrate.add_argument("--result", type=Path, help="result.json whose cells labels name (cell: T-001/1)")
    calibrate.add_argument("--out", type=Path, help="write calibration.json and calibration.md here")
    calibrate.add_argument(
        "--resamples", type=options.positive_int, default=2000, help="bootstrap resamples (default 2000)"
    )
    calibrate.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    options.add_gateway_options(calibrate)
    calibrate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from assay_runner.contract import Result
    from assay_runner.io.labels import labels_digest, read_labels
    from assay_runner.run.calibration import judge_labelled, measure, resolve_answers
    from assay_runner.suite import load_suite
    from assay_runner.views.calibration_page import render_calibration, summary_line

    suite = load_suite(args.suite)
    labels, data = read_labels(args.labels)
    result = None
    if args.result is not None:
        try:
            result = Result.model_validate_json(args.result.read_bytes())
        except (OSError, ValueError) as exc:
            raise InputError(f"--result {args.result}: not a readable result.json ({exc})") from None
    answers = resolve_answers(labels, suite, result)
    verdicts = asyncio.run(
        judge_labelled(suite, labels, answers, options.model_access(args), args.judge_model)
    )
    calibration = measure(
        suite,
        labels,
        answers,
        verdicts,
        labels_file=args.labels.name,
        labels_digest=labels_digest(data),
        judge_model=args.judge_model,
        resamples=args.resamples,
        seed=args.seed,
    )
    for name, judge in calibration.judges.items():
        print(summary_line(name, judge, calibration.level))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "calibration.json").write_text(calibration.to_json(indent=2) + "\n")
        (args.out / "calibration.md").write_text(render_calibration(calibration))
        print(f"wrote {args.out / 'calibration.json'} and {args.out / 'calibration.md'}")
    return ExitCode.PASS
