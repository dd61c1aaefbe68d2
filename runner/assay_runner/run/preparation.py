"""What every phase reads before its first cell: the suite with the run's overrides, the tickets, the
effective gate, the prices, and the digests the verdict will be bound to.

Every phase starts here (`assay run`, the answer phase, the judge phase, `assay score`), so an override
that cannot be applied — a threshold off its judge's scale, a judge the suite does not have — is bad input
(exit 2) before any agent or judge runs, in every phase alike. Whatever a run writes, `assay gate` reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from assay_runner.contract import (
    GateSettings,
    Inputs,
    PriceConfig,
    RepetitionResult,
    Result,
    RunConfig,
    RunRequest,
    Usage,
    digest_files,
    not_utf8,
    threshold_override_problems,
)
from assay_runner.core.digests import judges_digest, read_tree, suite_digest, tickets_digest, tree_digest
from assay_runner.core.results import answers_digest, build_result, conversations_of, ticket_results
from assay_runner.errors import InputError, Problem, not_a_file
from assay_runner.run.cell import Cell
from assay_runner.suite.loader import Suite, load_suite, with_customers
from assay_runner.suite.models import ModelJudge, Ticket, customer_models
from assay_runner.suite.split import KEYS_FILE

Prices = Mapping[str, PriceConfig]
"""USD per million tokens, by model."""
AGENT = "the agent"
"""Who calls the agent's model, in `models_called` and the refusal's words."""


def models_called(suite: Suite, agent_model: str | None, judge_model: str | None) -> dict[str, str | None]:
    """Who calls which model in a run: the agent (None: it calls none), each model customer and each model
    judge."""
    called: dict[str, str | None] = {AGENT: agent_model}
    called.update(customer_models(suite.tickets, judge_model))
    for spec in suite.spec.judges:
        if isinstance(spec, ModelJudge):
            called[f"model judge {spec.name}"] = spec.model or judge_model
    return called


def unpriced_models(prices: Prices, models: Mapping[str, str | None]) -> list[str]:
    """Who calls a model without a price ("the agent's model 'm'"), of `models`: who calls it -> the model."""
    return [f"{who}'s model {model!r}" for who, model in models.items() if model and model not in prices]


@dataclass(frozen=True)
class Prepared:
    config: RunConfig
    suite: Suite
    """With the RunConfig's threshold overrides applied."""
    tickets: list[Ticket]
    gate: GateSettings
    """The suite's gate with the RunConfig's overrides."""
    prices: Prices
    """The suite's prices, then the RunConfig's: a model priced in both takes the RunConfig's."""
    suite_artifact: str | None = None
    """The OCI manifest digest the suite was pulled by (`oci://...@sha256:...`), else None."""

    @property
    def agent_price(self) -> PriceConfig | None:
        return self.prices.get(self.config.agent.model or "")

    def models(self, *, agent: bool = True, judges: bool = True) -> dict[str, str | None]:
        """The models the run calls: with `agent`, the agent's (a `replay` agent calls none); with `judges`,
        the model judges' unless cassettes replay them (`mode: replay` makes no call: nothing to bill)."""
        config = self.config
        agent_model = config.agent.model if config.agent.kind != "replay" else None
        called = models_called(self.suite, agent_model, config.judge_model)
        replayed = config.cassettes is not None and config.cassettes.mode == "replay"
        # A model customer plays in the answer phase, beside the agent; replayed like a judge.
        customers = set(customer_models(self.suite.tickets, config.judge_model))
        return {
            who: model
            for who, model in called.items()
            if (agent if who == AGENT else (agent if who in customers else judges) and not replayed)
        }

    @property
    def cells(self) -> int:
        return len(self.tickets) * self.config.repetitions

    def verdict(
        self,
        cells: Mapping[Cell, RepetitionResult],
        *,
        started: str,
        usage: Usage,
        run_name: str | None = None,
        answers: str | None = None,
    ) -> Result:
        """The cells reduced to the result and its verdict: every phase that judges ends here. `answers`:
        the digest of the sealed tree the cells were read from (else one is made over the answers)."""
        config = self.config
        tickets = ticket_results(self.tickets, cells)
        for record in conversations_of(tickets):  # the model customers' calls are the run's too
            usage = usage.plus(record.customer_usage)
        return build_result(
            self.suite,
            tickets,
            config.repetitions,
            self.inputs(answers or answers_digest(cells)),
            started_at=started,
            run_name=run_name or config.run_name,
            usage=usage,
            gate=self.gate,
            request=RunRequest(tickets=config.tickets, repetitions=config.repetitions),
            unpriced=unpriced_models(self.prices, self.models()),
        )

    def inputs(self, answers: str | None = None) -> Inputs:
        """The digests a verdict is bound to: brain, suite (and its parts as mounted when split), the judges
        with the effective gate, and the resolved ticket selection."""
        config = self.config
        return Inputs(
            brain_digest=digest_files(read_tree(Path(config.brain))) if config.brain else None,
            suite_digest=suite_digest(self.suite),
            judges_digest=judges_digest(self.suite, self.gate),
            tickets_digest=tickets_digest([t.id for t in self.tickets]),
            public_digest=tree_digest(Path(config.suite)) if config.keys is not None else None,
            key_digest=digest_files({KEYS_FILE: Path(config.keys).read_bytes()}) if config.keys else None,
            answers_digest=answers,
            suite_artifact_digest=self.suite_artifact,
        )


def prepare(config: RunConfig, *, with_keys: bool = True, suite_artifact: str | None = None) -> Prepared:
    """`with_keys=False`: the answer phase, which never reads an answer key (even when the suite's own
    files hold them, nothing here hands them on)."""
    suite = load_suite(config.suite, config.kb, config.keys if with_keys else None)
    if config.customers is not None:
        if with_keys:
            raise InputError(
                "`customers` is the answer phase's (`assay answer`): the judge phase and `assay run` read "
                "the customers in the answer keys; remove it from the run configuration"
            )
        suite = with_customers(suite, Path(config.customers))
    if config.brain is not None:
        _check_brain(Path(config.brain))
    cassettes = Path(config.cassettes.dir) if config.cassettes is not None else None
    if cassettes is not None and cassettes.exists() and not cassettes.is_dir():
        raise InputError([Problem(str(cassettes), "cassettes.dir", "is not a folder")])
    suite = with_thresholds(suite, config.gate.thresholds)
    # The overrides as they are (a nested limit stays a model, never a dict in the gate).
    overrides = {
        name: value
        for name in type(config.gate).model_fields
        if name != "thresholds" and (value := getattr(config.gate, name)) is not None
    }
    return Prepared(
        config=config,
        suite=suite,
        tickets=suite.select(config.tickets),
        gate=suite.spec.gate.model_copy(update=overrides),
        prices={**suite.spec.prices, **config.prices},
        suite_artifact=suite_artifact,
    )


def _check_brain(brain: Path) -> None:
    """The brain is a folder of files and folders (links followed: a mounted ConfigMap's are links) whose
    names are UTF-8: its digest, its ConfigMap and the result name each file, and a name that is not, or a
    FIFO, crashed or blocked every cell after the run had started. Every problem is listed at once."""
    if not brain.is_dir():
        found = "is not a folder" if brain.exists() else "brain folder not found"
        raise InputError([Problem(str(brain), "", found)])
    problems: list[Problem] = []
    for path in sorted(brain.rglob("*")):
        name = not_utf8(str(path.relative_to(brain)))
        if name is not None:
            message = "file name is not UTF-8 (shown with its bytes escaped); rename it"
            problems.append(Problem(str(brain / name), "", message))
        elif not path.is_dir() and (unreadable := not_a_file(path)) is not None:
            problems.append(Problem(str(path), "", f"{unreadable} (a brain holds files and folders)"))
    if problems:
        raise InputError(problems)


def with_thresholds(suite: Suite, thresholds: Mapping[str, float]) -> Suite:
    """The suite with per-judge threshold overrides, each checked against its judge's scale by the rule
    the suite's own thresholds and `assay gate --threshold` are checked by, in the operator's words too
    (`contract.seam.threshold_override_problems`). Every problem is reported at once."""
    if not thresholds:
        return suite
    scales = {judge.name: judge.scale_bounds() for judge in suite.spec.judges}
    problems = [
        Problem("RunConfig", where, what) for where, what in threshold_override_problems(thresholds, scales)
    ]
    if problems:
        raise InputError(problems)
    judges = [
        judge.model_copy(update={"threshold": thresholds[judge.name]}) if judge.name in thresholds else judge
        for judge in suite.spec.judges
    ]
    return replace(suite, spec=suite.spec.model_copy(update={"judges": judges}))
