"""Rules the runner and the operator both apply on their seam, each written once and called by both sides
(tests/operator/test_shared_rules.py holds them to agreeing). Like the rest of `contract`, it depends on the
wire models and the standard library only: the operator may import it.

- which of a RunConfig's or an Evaluation's `gate.thresholds` overrides a suite refuses, and in which words;
- when an answer tree is read as a whole run's tree (one shard, none failed) rather than as shards;
- the MLflow experiment a run logs to when nobody names one (the RunConfig's default, said once there);
- the words of `isolation: required` refused on a kernel short of it, and how the operator finds them in an
  answer pod's termination message (the cluster reports it as InvalidSpec, not as a failed Job).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from assay_runner.contract.rules import threshold_problem
from assay_runner.contract.run_config import MlflowConfig

DEFAULT_EXPERIMENT: str = MlflowConfig.model_fields["experiment"].default
"""The experiment of a RunConfig that names none, and so of an Evaluation's `spec.mlflow` that names none."""


def threshold_override_problems(
    thresholds: Mapping[str, float], scales: Mapping[str, tuple[float, float]]
) -> list[tuple[str, str]]:
    """(where, what) for each `gate.thresholds` override a suite refuses: a judge the suite does not have, or
    a value off that judge's scale (`contract.threshold_problem`). `scales`: the suite's judges by name, each
    with its scale (`contract.judge_scale`). The runner checks the typed suite with it, the operator the
    suite ConfigMap's YAML, before any Job starts; both report every problem at once, in these words."""
    problems = []
    for name, value in thresholds.items():
        where = f"gate.thresholds.{name}"
        if name not in scales:
            known = ", ".join(scales) or "none"
            problems.append((where, f"the suite has no judge {name!r} (judges: {known})"))
        elif (problem := threshold_problem("threshold", value, scales[name])) is not None:
            problems.append((where, problem))
    return problems


def read_as_whole_tree(shards: int, failed: Collection[int] = ()) -> bool:
    """Whether a run's answers are read as one whole tree rather than as `shards` shard trees: a run of one
    shard that did not fail is a whole run (its RunConfig names no shard, its one pod's ledger is the whole
    run's). A shard that failed for good is only said in a shard config, so then it is read as shards."""
    return shards == 1 and not failed


ISOLATION_SHORTFALL = "isolation: required, but this kernel offers "
"""How the runner's refusal of `isolation: required` begins (`sandbox.policy.shortfall`, exit 2)."""


def isolation_shortfall(message: str) -> str | None:
    """The runner's `isolation: required` refusal in an exited container's message (its log's tail on exit
    2), from its first words to the end of that line; None when the message holds none."""
    start = message.find(ISOLATION_SHORTFALL)
    if start < 0:
        return None
    return message[start:].split("\n", 1)[0].strip()
