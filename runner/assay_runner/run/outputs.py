"""Where a finished evaluation goes: MLflow (optional), result.json, summary.json, the report, the
termination message — in an order that never loses the verdict.

MLflow is logged first because the gate may require it (`requireMlflow`) and because result.json should
carry the run's ids; then the files are written; then they are attached to the MLflow run as artifacts.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.contract import Result
from assay_runner.core.summary import encode, summarise
from assay_runner.errors import InputError, Problem

if TYPE_CHECKING:
    from assay_runner.core.evidence import EvidenceKey
    from assay_runner.io.tracking import RunInfo

RESULT_FILE, SUMMARY_FILE, REPORT_FILE = "result.json", "summary.json", "report.html"


def write_outputs(result: Result, out: Path | None, summary_path: str | None = None) -> None:
    """result.json, summary.json and report.html in `out`; the summary also at `summary_path`. The
    destinations were checked before any work (`io.destinations`); what still fails to write (a disk
    filled meanwhile) is bad input naming the path, not a traceback."""
    try:
        _write_outputs(result, out, summary_path)
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else str(out)
        raise InputError([Problem(where, "", f"cannot write: {exc.strerror or exc}")]) from None


def _write_outputs(result: Result, out: Path | None, summary_path: str | None) -> None:
    summary = encode(summarise(result))
    if summary_path is not None:
        Path(summary_path).write_bytes(summary)
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / RESULT_FILE).write_text(result.to_json(indent=2) + "\n", encoding="utf-8")
    (out / SUMMARY_FILE).write_bytes(summary + b"\n")
    write_report(result, out / REPORT_FILE)
    print(f"wrote {out / RESULT_FILE} and {out / REPORT_FILE}", file=sys.stderr)


def write_report(result: Result, path: Path) -> None:
    from assay_runner.views.report import render_report

    path.write_text(render_report(result), encoding="utf-8")


def finish(
    result: Result,
    *,
    out: Path | None,
    summary_path: str | None = None,
    mlflow: RunInfo | None = None,
    key: EvidenceKey | None = None,
) -> Result:
    """`key`: the run's evidence key, which authenticates result.json once nothing in it changes any more
    (after MLflow's ids); None leaves it unauthenticated (`core.evidence`)."""
    if mlflow is not None:
        from assay_runner.core.regate import with_mlflow
        from assay_runner.io.tracking import log_evaluation

        if out is not None:
            mlflow.artifacts = [out / RESULT_FILE, out / SUMMARY_FILE, out / REPORT_FILE]
        result = with_mlflow(result, log_evaluation(result, mlflow))
        if not result.mlflow.logged:
            print(f"assay: warning: MLflow logging failed: {result.mlflow.error}", file=sys.stderr)
    if key is not None:
        from assay_runner.core.evidence import sign_result

        result = sign_result(result, key)
    write_outputs(result, out, summary_path)
    if mlflow is not None and result.mlflow.logged:
        from assay_runner.io.tracking import complete_run

        try:
            complete_run(result, mlflow)
        except Exception as exc:  # the verdict and the files stand; only the attachments are missing
            print(f"assay: warning: could not attach the files to the MLflow run: {exc!r}", file=sys.stderr)
        else:
            print(f"MLflow run {result.mlflow.run_id} in {result.mlflow.tracking_uri}", file=sys.stderr)
    return result
