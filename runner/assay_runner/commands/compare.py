"""`assay compare RESULT.json...` or `assay compare --grid GRID.yaml`: rank candidates by the release key,
compare each with the incumbent (paired tests, per-judge differences) and decide whether to promote."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError, Problem

if TYPE_CHECKING:
    from assay_runner.contract import Result
    from assay_runner.core.standing import Standing
    from assay_runner.views.report.comparison import GridLayout


def _share(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def add_parser(commands: Subcommands) -> None:
    compare = commands.add_parser("compare", help="rank candidates by the release key and decide promotion")
    compare.add_argument("results", nargs="*", metavar="RESULT.json", help="one result.json per candidate")
    compare.add_argument(
        "--grid",
        type=Path,
        metavar="GRID.yaml",
        help="a grid manifest (axes, a results path pattern, optionally the incumbent) "
        "instead of RESULT.json files",
    )
    compare.add_argument("--incumbent", metavar="RESULT.json", help="the result of what is released now")
    compare.add_argument(
        "--key",
        default="fully-resolved,mean",
        help="ordered reductions the gate uses: fully-resolved, mean, lowest-ticket, "
        "judges-passing, and cost (the run's priced usage, lower is better; never first), e.g. "
        "fully-resolved,mean,cost lets the cheaper of two equal candidates win "
        "(default: fully-resolved,mean)",
    )
    compare.add_argument(
        "--on-tie",
        choices=["keep", "full-key"],
        default="keep",
        help="when the winner only matches the incumbent on the primary key: keep it (default) "
        "or decide on the rest of the key",
    )
    compare.add_argument(
        "--min-confidence",
        type=_share,
        help="promote only when the paired test against the incumbent (Holm-adjusted over the candidates) "
        "is at least this confident, e.g. 0.95; without it the figures are shown but do not decide",
    )
    compare.add_argument(
        "--max-judge-drop",
        type=_share,
        help="promote only when no judge's mean falls below the incumbent's by more than this, e.g. 0.05",
    )
    compare.add_argument("--seed", type=int, help="seed of the bootstrap and sampled permutation tests")
    compare.add_argument(
        "--verify",
        action="store_true",
        help="check every candidate's evidence MACs, judge its stored answers again and check its selection "
        "against the suite and its request (as `assay gate --verify`); a candidate that is unauthenticated "
        "or does not verify is bad input",
    )
    compare.add_argument("--suite", help="the suite the candidates were evaluated on (for --verify)")
    compare.add_argument("--keys", help="its answer-key file, when --suite is only the public part")
    compare.add_argument(
        "--evidence-key",
        metavar="FILE",
        help="the candidates' evidence key file (for --verify; default: each one's in the local key store)",
    )
    compare.add_argument("--json", action="store_true", help="print the decision as JSON")
    compare.add_argument("--html", type=Path, metavar="PAGE.html", help="also write the comparison page")
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.core.decision import PromotionRules, decide
    from assay_runner.core.decision_report import report_of, to_json
    from assay_runner.core.standing import parse_key
    from assay_runner.core.statistics import DEFAULT_SEED

    key = parse_key(args.key)
    rules = PromotionRules(
        min_confidence=args.min_confidence,
        max_judge_drop=args.max_judge_drop,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
    )
    candidates, incumbent, layout = _standings(args)
    report = report_of(decide(candidates, incumbent, key, args.on_tie, rules))
    if args.html is not None:
        from assay_runner.views.report.comparison import render_comparison

        try:
            args.html.parent.mkdir(parents=True, exist_ok=True)
            args.html.write_text(render_comparison(report, layout), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--html {args.html}: {exc.strerror or exc}") from None
        print(f"wrote {args.html}", file=sys.stderr)
    if args.json:
        out = to_json(report)
        if layout is not None:
            out["grid"] = {"axes": dict(layout.axes), "cells": dict(layout.cells)}
        print(json.dumps(out, indent=2))
    else:
        from assay_runner.views.compare_table import print_decision

        print_decision(report)
    return ExitCode.PASS if report.promote else ExitCode.BLOCKED


def _standings(args: argparse.Namespace) -> tuple[list[Standing], Standing | None, GridLayout | None]:
    """The candidates' and the incumbent's standings, recomputed from their result files; and the grid's
    layout when the candidates came from one."""
    from assay_runner.core.result_standing import candidate_name, standing
    from assay_runner.io.results import read_result
    from assay_runner.views.report.comparison import GridLayout

    layout = None
    check = _verifier(args)
    incumbent_path = None if args.incumbent is None else Path(args.incumbent)
    candidates = []
    if args.grid is not None:
        from assay_runner.io.grid import read_grid

        if args.results:
            raise InputError("give either RESULT.json files or --grid, not both")
        grid = read_grid(args.grid)
        for cell in grid.cells:
            path = grid.result_path(cell)
            candidates.append(standing(cell.name, _release(read_result(path), path, check)))
        incumbent_path = incumbent_path or grid.incumbent_path()
        layout = GridLayout(axes=grid.axes, cells={cell.name: dict(cell.coordinates) for cell in grid.cells})
    else:
        if not args.results:
            raise InputError("give one RESULT.json per candidate, or --grid GRID.yaml")
        for path in map(Path, args.results):
            result = _release(read_result(path), path, check)
            candidates.append(standing(candidate_name(result, path), result))
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise InputError(f"candidate names must differ (they come from runName or the folder): {names}")
    incumbent = None
    if incumbent_path is not None:
        result = _release(read_result(incumbent_path), incumbent_path, check)
        incumbent = standing(candidate_name(result, incumbent_path), result)
    return candidates, incumbent, layout


def _release(result: Result, path: Path, check: Verifier | None = None) -> Result:
    """Only release results compete: an online result (assay judge) is never promoted; with --verify, only
    results that verify."""
    if result.mode != "release":
        raise InputError([Problem(str(path), "mode", "an online result (assay judge) is never a release")])
    if check is not None and (problems := check(result)):
        shown = "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
        raise InputError([Problem(str(path), "verify", f"does not verify: {shown}")])
    return result


Verifier = Callable[["Result"], list[str]]


def _verifier(args: argparse.Namespace) -> Verifier | None:
    if not args.verify:
        if args.suite or args.keys or args.evidence_key:
            raise InputError(
                "--suite, --keys and --evidence-key are what --verify checks against: add --verify"
            )
        return None
    import asyncio

    from assay_runner.run.verify import against, verify

    target = against(args.suite, args.keys, None, None, args.evidence_key)
    return lambda result: asyncio.run(verify(result, target))
