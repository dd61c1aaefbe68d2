"""`assay report`: one self-contained HTML page people read to see why an evaluation passed or blocked."""

from assay_runner.views.report.page import render_report

__all__ = ["render_report"]
