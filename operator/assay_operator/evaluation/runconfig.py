"""The runner's RunConfig, as the pod reads it, and the immutable ConfigMap that carries it: two documents,
the judge phase's (with the keys) and the answer phase's (without keys, logging nowhere)."""

from __future__ import annotations

import json

from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.layout import (
    ANSWER_CONFIG_KEY,
    ANSWERS_DIR,
    BRAIN_DIR,
    KB_DIR,
    KEY_DIR,
    RUN_CONFIG_KEY,
    SUITE_DIR,
    TERMINATION_LOG,
    WORK_DIR,
)
from assay_operator.evaluation.names import labels, run_config_name
from assay_operator.evaluation.suite_split import KEYS_FILE
from assay_operator.objects import ConfigMap, ObjectMeta
from assay_operator.settings import Settings
from assay_runner.contract import (
    AgentConfig,
    CassetteConfig,
    GateOverrides,
    MlflowConfig,
    OutputConfig,
    PriceConfig,
    RunConfig,
)
from assay_runner.vocabulary import Selection


def _tickets(spec: EvaluationSpec) -> Selection | list[str]:
    if spec.tickets is None:
        return "all"
    if spec.tickets.ids:
        return list(spec.tickets.ids)
    return spec.tickets.split or "all"


def build_run_config(spec: EvaluationSpec, evaluation: str, namespace: str, settings: Settings) -> RunConfig:
    """The runner's RunConfig, as the pod will read it. Paths are where the Job mounts things; the gateway
    and MLflow reach the runner as environment (ASSAY_GATEWAY_URL, MLFLOW_TRACKING_URI), not here."""
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
            enabled=mlflow_uri is not None, experiment=spec.mlflow.experiment if spec.mlflow else "assay"
        ),
        gate=GateOverrides.model_validate(gate),
        prices={
            model: PriceConfig(input_per_million=p.input_per_million, output_per_million=p.output_per_million)
            for model, p in (spec.prices or {}).items()
        },
        max_cost_usd=spec.max_cost_usd,
        output=OutputConfig(
            dir=f"{WORK_DIR}/out",
            summary_path=TERMINATION_LOG,
            blocked_exit_code=0,
            workspace_root=f"{WORK_DIR}/workspaces",
        ),
    )


def answer_deadline(deadline_seconds: int) -> float:
    """The answer phase stops itself this long after it starts, leaving the rest of the Job's deadline to
    the judge phase (a fifth, at least 30 s, at most half), so a slow agent still ends in a verdict."""
    reserve = min(max(30.0, deadline_seconds * 0.2), deadline_seconds * 0.5)
    return float(deadline_seconds) - reserve


def _document(config: RunConfig) -> str:
    return json.dumps(
        config.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2, sort_keys=True
    )


def build_run_config_map(
    spec: EvaluationSpec, evaluation: str, namespace: str, generation: int, settings: Settings
) -> ConfigMap:
    """Two documents: the judge phase's RunConfig, and the answer phase's, which names no keys and logs
    nowhere (the answer phase refuses a config with keys)."""
    config = build_run_config(spec, evaluation, namespace, settings)
    answer = config.model_copy(
        update={"keys": None, "mlflow": config.mlflow.model_copy(update={"enabled": False})}
    )
    return ConfigMap(
        metadata=ObjectMeta(
            name=run_config_name(evaluation, generation),
            labels=labels(evaluation, generation, component="run-config"),
        ),
        immutable=True,
        data={RUN_CONFIG_KEY: _document(config) + "\n", ANSWER_CONFIG_KEY: _document(answer) + "\n"},
    )
