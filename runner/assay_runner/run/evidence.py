"""A stored result.json checked against the run's evidence key before anything is taken from it (`assay run
--resume`, `assay gate --verify`, `assay compare --verify`): the key the RunConfig or `--evidence-key`
names, else the key store's key of the id the result records (`io.evidence_keys`, `core.evidence`)."""

from __future__ import annotations

from pathlib import Path

from assay_runner.contract import Result
from assay_runner.core.evidence import EvidenceKey, result_problems
from assay_runner.errors import InputError, Problem
from assay_runner.io.evidence_keys import key_for
from assay_runner.io.results import read_result

SHOWN = 5


def authentication_problems(result: Result, named: EvidenceKey | None) -> list[str]:
    """Why the result is not authenticated (each cell that does not verify named); empty when it is."""
    key_id = result.evidence.key_id if result.evidence is not None else None
    return result_problems(result, key_for(key_id, named))


def authenticated_result(path: Path, named: EvidenceKey | None) -> Result:
    """The result at `path` for `assay run --resume`: one whose authentication fails is refused (exit 2),
    naming the cells, and nothing of it is kept."""
    result = read_result(path)
    problems = authentication_problems(result, named)
    if problems:
        shown = "; ".join(problems[:SHOWN]) + (
            f" (+{len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
        )
        raise InputError([Problem(str(path), "evidence", f"--resume keeps nothing of it: {shown}")])
    return result
