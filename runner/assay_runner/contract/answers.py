"""The AnswerSummary: what an answer phase reports of the cells it answered."""

from __future__ import annotations

from pydantic import Field

from assay_runner.contract.wire import WireModel

ANSWER_SUMMARY_SCHEMA_VERSION = 1
MAX_STOPPED = 300


class AnswerSummary(WireModel):
    """What the answer phase (`assay answer`) writes to `output.summaryPath` when the RunConfig names one:
    on the cluster, each answer pod's termination message, which the operator reads for the Evaluation's
    progress (cells done of the total). Small by construction: far under the 4096-byte bound."""

    schema_version: int = ANSWER_SUMMARY_SCHEMA_VERSION
    shard: tuple[int, int] | None = None
    """(index, count) of the shard this phase answered; None for a whole run's cells."""
    cells: int = Field(ge=0)
    """The cells this phase had to answer (its shard's)."""
    answered: int = Field(ge=0)
    """Of those, the cells answered without an error (kept ones included)."""
    kept: int = Field(default=0, ge=0)
    """Of those, the cells kept from an earlier attempt (resume)."""
    total: int = Field(ge=0)
    """Every cell of the run (tickets x repetitions, all shards)."""
    stopped: str | None = Field(default=None, max_length=MAX_STOPPED)
    """Why the phase ended before every cell was answered (deadline, signal, error)."""
