"""Suites: the tickets, answer keys, KB articles and judge configuration an evaluation runs against."""

from assay_runner.suite.loader import Suite, load_suite
from assay_runner.suite.models import JudgeSpec, SuiteSpec, Ticket

__all__ = ["JudgeSpec", "Suite", "SuiteSpec", "Ticket", "load_suite"]
