"""Assay runner: suites, judges, scores, the release gate."""
