"""Logging an evaluation to MLflow: one run, a trace per ticket, every judge's verdict as feedback.

What a person finds in the run:
- params: suite, ticket selection, agent, model, repetitions, concurrency, gate settings, judge thresholds;
- tags: the verdict, each rule's outcome, the digests of brain, suite and judge configuration;
- metrics: score, each judge's mean (and raw mean), pass rate, pass@k, pass^k, tokens, cost, duration;
- artifacts: result.json, summary.json and the HTML report;
- traces: one per ticket, linked to the run, with a span per repetition and under it the agent (and its
  trajectory's steps) and the judges; each judge's verdict on each repetition as feedback, the answer key
  as an expectation (`traces.py` draws the tree).

Online judging (`assay judge --mlflow`) logs one trace per judged answer the same way, with no run, tagged
`assay.mode: online`: the feedback of the judges that need no answer key, never a release verdict.

Everything is logged after the cells finished, from the result, in batches: the run's data in one call,
each trace with all its feedback in one, the spans of many traces in one (`writer.py`); a 1,500-cell judge
phase makes a few hundred calls where MLflow's tracer made tens of thousands (bench/mlflow_share.py).
A store that fails is retried, then the result records `mlflow.logged: false` with the error (`publish.py`).

Modules: `settings` (where and how), `run_data` (params, metrics, tags), `spans` (spans from data),
`steps` (the trajectory), `feedback` (verdicts and the key), `traces` (a ticket's trace), `writer` (the
batches), `logger` (one attempt), `publish` (retries, what the runner calls).
"""

from assay_runner.io.tracking.publish import complete_run, log_evaluation, log_online
from assay_runner.io.tracking.run_data import summary_params
from assay_runner.io.tracking.settings import RunInfo, default_tracking_uri

__all__ = [
    "RunInfo",
    "complete_run",
    "default_tracking_uri",
    "log_evaluation",
    "log_online",
    "summary_params",
]
