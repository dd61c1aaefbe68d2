"""`assay judges check SUITE`: the judges' self-test on answers built from the suite's own tickets."""

from __future__ import annotations

import argparse

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    judges = commands.add_parser("judges", help="judge utilities")
    judges_commands = judges.add_subparsers(dest="judges_command", required=True, metavar="COMMAND")
    check = judges_commands.add_parser(
        "check", help="self-test every judge on known-good and known-bad answers"
    )
    check.add_argument("suite")
    check.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.judges.selftest import run_selftest
    from assay_runner.suite import load_suite
    from assay_runner.views.selftest import print_report

    report = run_selftest(load_suite(args.suite))
    print_report(report)
    return ExitCode.PASS if report.ok else ExitCode.BLOCKED
