"""`assay compare RESULT.json...`: rank candidates by the release key and decide whether to promote."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands.options import EXIT_BLOCKED, EXIT_PASS, Subcommands
from assay_runner.errors import InputError, Problem

if TYPE_CHECKING:
    from assay_runner.contract import Result


def add_parser(commands: Subcommands) -> None:
    compare = commands.add_parser("compare", help="rank candidates by the release key and decide promotion")
    compare.add_argument("results", nargs="+", metavar="RESULT.json", help="one result.json per candidate")
    compare.add_argument("--incumbent", metavar="RESULT.json", help="the result of what is released now")
    compare.add_argument(
        "--key",
        default="fully-resolved,mean",
        help="ordered reductions the gate uses: fully-resolved, mean, lowest-ticket, "
        "judges-passing (default: fully-resolved,mean)",
    )
    compare.add_argument(
        "--on-tie",
        choices=["keep", "full-key"],
        default="keep",
        help="when the winner only matches the incumbent on the primary key: keep it (default) "
        "or decide on the rest of the key",
    )
    compare.add_argument("--json", action="store_true", help="print the decision as JSON")
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.core.decision import decide, decision_json, parse_key
    from assay_runner.core.standings import candidate_name, standing
    from assay_runner.io.results import read_result

    key = parse_key(args.key)
    candidates = []
    for path in map(Path, args.results):
        result = _release(read_result(path), path)
        candidates.append(standing(candidate_name(result, path), result))
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise InputError(f"candidate names must differ (they come from runName or the folder): {names}")
    incumbent = None
    if args.incumbent is not None:
        path = Path(args.incumbent)
        result = _release(read_result(path), path)
        incumbent = standing(candidate_name(result, path), result)
    decision = decide(candidates, incumbent, key, args.on_tie)
    if args.json:
        print(json.dumps(decision_json(decision), indent=2))
    else:
        from assay_runner.views.compare_table import print_decision

        print_decision(decision)
    return EXIT_PASS if decision.promote else EXIT_BLOCKED


def _release(result: Result, path: Path) -> Result:
    """Only release results compete: an online result (assay judge) is never promoted."""
    if result.mode != "release":
        raise InputError([Problem(str(path), "mode", "an online result (assay judge) is never a release")])
    return result
