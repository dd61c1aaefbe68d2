"""The runner's RunConfigs, as the pods read them, and the immutable ConfigMaps that carry them: the answer
phase's (no keys, logging nowhere, its shard from the pod's completion index, resuming what an earlier
attempt answered), one per generation; and the judge phase's (with the keys, every shard, the ones that
failed for good), one per run, made when the answers are in."""

from __future__ import annotations

import json
import math

from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.layout import (
    ANSWER_CONFIG_KEY,
    ANSWERS_DIR,
    BRAIN_DIR,
    CUSTOMERS_PATH,
    EVIDENCE_KEY_FILE,
    KB_DIR,
    KEY_DIR,
    OUTPUT_DIR,
    RUN_CONFIG_KEY,
    SUITE_DIR,
    TERMINATION_LOG,
    WORK_DIR,
)
from assay_operator.evaluation.build.names import judge_config_name, labels, run_config_name
from assay_operator.evaluation.build.suite_split import KEYS_FILE
from assay_operator.objects import ConfigMap, ObjectMeta
from assay_operator.settings import Settings
from assay_runner.contract import (
    DEFAULT_EXPERIMENT,
    SHARD_DIR,
    AgentConfig,
    CassetteConfig,
    EvidenceConfig,
    GateOverrides,
    MlflowConfig,
    OutputConfig,
    PriceConfig,
    RunConfig,
    ShardConfig,
    read_as_whole_tree,
)
from assay_runner.vocabulary import Selection


def _tickets(spec: EvaluationSpec) -> Selection | list[str]:
    if spec.tickets is None:
        return "all"
    if spec.tickets.ids:
        return list(spec.tickets.ids)
    return spec.tickets.split or "all"


def build_run_config(spec: EvaluationSpec, evaluation: str, namespace: str, settings: Settings) -> RunConfig:
    """The runner's RunConfig, as the judge pod will read it when its answers come in one tree. Paths are
    where the Jobs mount things; the gateway and MLflow reach the runner as environment (ASSAY_GATEWAY_URL,
    MLFLOW_TRACKING_URI), not here."""
    bundled = settings.bundled_root.rstrip("/")
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    gate = spec.gate.model_dump(exclude_none=True) if spec.gate is not None else {}
    return RunConfig(
        run_name=f"{namespace}/{evaluation}",
        suite=SUITE_DIR,
        keys=f"{KEY_DIR}/{KEYS_FILE}",
        answers_dir=ANSWERS_DIR,
        answer_deadline_seconds=answer_deadline(spec.deadline_seconds),
        kb=KB_DIR if spec.suite.kb_config_map is not None else None,
        brain=BRAIN_DIR,
        tickets=_tickets(spec),
        agent=AgentConfig(
            kind=spec.agent.kind,
            model=spec.agent.model,
            command=list(spec.agent.command) if spec.agent.command else None,
            continue_command=list(spec.agent.continue_command) if spec.agent.continue_command else None,
            timeout_seconds=spec.agent.timeout_seconds,
            answers=f"{bundled}/{spec.agent.answers.bundled}" if spec.agent.answers else None,
        ),
        repetitions=spec.repetitions,
        concurrency=spec.concurrency,
        judge_model=spec.judge_model,
        cassettes=(
            CassetteConfig(dir=f"{bundled}/{spec.cassettes.bundled}", mode="replay")
            if spec.cassettes
            else None
        ),
        mlflow=MlflowConfig(
            enabled=mlflow_uri is not None,
            experiment=spec.mlflow.experiment if spec.mlflow else DEFAULT_EXPERIMENT,
        ),
        gate=GateOverrides.model_validate(gate),
        prices={
            model: PriceConfig(input_per_million=p.input_per_million, output_per_million=p.output_per_million)
            for model, p in (spec.prices or {}).items()
        },
        max_cost_usd=spec.max_cost_usd,
        output=OutputConfig(
            dir=OUTPUT_DIR,
            summary_path=TERMINATION_LOG,
            blocked_exit_code=0,
            workspace_root=f"{WORK_DIR}/workspaces",
        ),
        evidence=EvidenceConfig(key_file=EVIDENCE_KEY_FILE),
    )


def judge_reserve(deadline_seconds: int) -> float:
    """The part of the deadline kept for the judge phase: a fifth, at least 30 s, at most half."""
    return min(max(30.0, deadline_seconds * 0.2), deadline_seconds * 0.5)


def answer_deadline(deadline_seconds: int) -> float:
    """Each answer pod stops itself this long after it starts, leaving the judge phase its reserve, so a
    slow agent still ends in a verdict."""
    return float(deadline_seconds) - judge_reserve(deadline_seconds)


def judge_deadline(deadline_seconds: int, elapsed_seconds: float) -> int:
    """The judge Job's activeDeadlineSeconds: what is left of the Evaluation's deadline once the answers
    are in, never less than the judge's reserve (a shard retried late may have used some of it)."""
    return math.ceil(max(deadline_seconds - elapsed_seconds, judge_reserve(deadline_seconds)))


def answer_config(spec: EvaluationSpec, evaluation: str, namespace: str, settings: Settings) -> RunConfig:
    """The answer phase's RunConfig, the same for every answer pod: no keys (the answer phase refuses a
    config that names them), no MLflow, its shard from JOB_COMPLETION_INDEX, and `resume`: a pod retried,
    or a rerun of the generation, keeps the cells an earlier attempt on the same inputs answered."""
    config = build_run_config(spec, evaluation, namespace, settings)
    return config.model_copy(
        update={
            "keys": None,
            "customers": CUSTOMERS_PATH,  # absent (no conversation in the suite): nothing to play
            "mlflow": config.mlflow.model_copy(update={"enabled": False}),
            "shard": None if read_as_whole_tree(spec.parallelism) else ShardConfig(count=spec.parallelism),
            "resume": True,
        }
    )


def judge_config(
    spec: EvaluationSpec, evaluation: str, namespace: str, settings: Settings, failed: dict[int, str]
) -> RunConfig:
    """The judge phase's RunConfig: every shard's tree (`shard-<i>/` on the claim), the shards that failed
    for good with the reason (their cells block with it). One shard's tree is read as the whole tree
    (`contract.seam.read_as_whole_tree`)."""
    config = build_run_config(spec, evaluation, namespace, settings)
    if read_as_whole_tree(spec.parallelism, failed):
        return config.model_copy(update={"answers_dir": f"{ANSWERS_DIR}/{SHARD_DIR.format(index=0)}"})
    shard = ShardConfig(count=spec.parallelism, failed={str(i): why for i, why in sorted(failed.items())})
    return config.model_copy(update={"shard": shard})


def _document(config: RunConfig) -> str:
    return json.dumps(
        config.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2, sort_keys=True
    )


def build_run_config_map(
    spec: EvaluationSpec, evaluation: str, namespace: str, generation: int, settings: Settings
) -> ConfigMap:
    """The answer phase's RunConfig, one per generation (every answer pod of every run of it mounts it)."""
    answer = answer_config(spec, evaluation, namespace, settings)
    return ConfigMap(
        metadata=ObjectMeta(
            name=run_config_name(evaluation, generation),
            labels=labels(evaluation, generation, component="run-config"),
        ),
        immutable=True,
        data={ANSWER_CONFIG_KEY: _document(answer) + "\n"},
    )


def build_judge_config_map(
    spec: EvaluationSpec,
    evaluation: str,
    namespace: str,
    generation: int,
    settings: Settings,
    failed: dict[int, str],
    rerun: str | None = None,
) -> ConfigMap:
    """The judge phase's RunConfig, one per run: which shards failed is known only once they finished."""
    config = judge_config(spec, evaluation, namespace, settings, failed)
    return ConfigMap(
        metadata=ObjectMeta(
            name=judge_config_name(evaluation, generation, rerun),
            labels=labels(evaluation, generation, component="judge-config"),
        ),
        immutable=True,
        data={RUN_CONFIG_KEY: _document(config) + "\n"},
    )
