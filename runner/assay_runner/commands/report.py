"""`assay report RESULT.json`: one self-contained HTML page; exits 0 once written, whatever the verdict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError


def add_parser(commands: Subcommands) -> None:
    report = commands.add_parser("report", help="render a result.json as a self-contained HTML page")
    report.add_argument("result", help="a result.json from assay score, run, judge or gate")
    report.add_argument(
        "--output", "-o", type=Path, help="where the page goes (default: report.html next to the result)"
    )
    report.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.io.results import read_result
    from assay_runner.views.report import render_report

    source = Path(args.result)
    page = render_report(read_result(source))
    target = args.output or source.with_name("report.html")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"-o {target}: {exc.strerror or exc}") from None
    print(f"wrote {target}", file=sys.stderr)
    return ExitCode.PASS
