"""Pure reconciliation: from what the cluster shows (the run's outcome, outcome.py) to the Evaluation's
status.

Every shape the status takes — waiting for a dependency, invalid, running, finished, refused — is built here,
once, as a typed `EvaluationStatus` cut to the schema's bounds (assay_operator.bounded); the handlers only
patch it: the shapes (shapes.py), the RunSummary's figures in them (figures.py), a person's override and a
decision undone (override.py), and the reads of the journal below (journal.py), every name re-exported
here. Fail closed everywhere: a failed run gives verdict Blocked with Stalled=True and the precise
reason — never Pass, never silence.

The status is two things. Some fields are a journal: the operator reads them back on a later event to decide
what to do, so a write there is a decision. The rest are observations: written for people, dashboards and
GitOps tools, never read back to decide anything.

- journal (read back): `observedGeneration` (whose run: run_started, verdict_written, superseded_run);
  `jobName` and `rerun` (which run: run_started, run_jobs, superseded_run, judging's check of the answer
  Job's judge); `answer` (run_jobs; judging writes it only when it changed); the conditions Completed,
  Stalled, Queued and StartBlocked (verdict_written, admission, pod_start, the wait for a ConfigMap,
  override); `startTime` (pod_start's grace, finish's run seconds); `verdict`, `message` and `override`
  (override keeps the gate's own verdict and words; judging looks whether `message` says "judging").
- observations (never read back): `score`, `judges`, `judgesPassing`, `shadowJudges`, `rules`, `tickets`,
  `repetitions`, `usage`, `inputs`, `mlflow`, `paired` (the RunSummary's figures), `completionTime`, and
  the conditions Ready and Reconciling.
"""

from __future__ import annotations

from assay_operator.evaluation.read.reconcile.figures import NO_FIGURES, blocked_reasons, verdict_status
from assay_operator.evaluation.read.reconcile.journal import (
    parse_status,
    run_jobs,
    run_started,
    seconds_between,
    superseded_run,
    verdict_written,
)
from assay_operator.evaluation.read.reconcile.override import (
    OVERRIDE,
    decision_reverted,
    overridden_status,
    override_written_by_operator,
)
from assay_operator.evaluation.read.reconcile.shapes import (
    finished_status,
    image_refused_status,
    invalid_status,
    refused_status,
    running_status,
    verification_refused_status,
    waiting_status,
    with_conditions,
)

__all__ = [
    "NO_FIGURES",
    "OVERRIDE",
    "blocked_reasons",
    "decision_reverted",
    "finished_status",
    "image_refused_status",
    "invalid_status",
    "overridden_status",
    "override_written_by_operator",
    "parse_status",
    "refused_status",
    "run_jobs",
    "run_started",
    "running_status",
    "seconds_between",
    "superseded_run",
    "verdict_status",
    "verdict_written",
    "verification_refused_status",
    "waiting_status",
    "with_conditions",
]
