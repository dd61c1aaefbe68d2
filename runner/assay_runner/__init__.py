"""Assay runner: suites, judges, scores, the release gate."""

__version__ = "0.1.0"
