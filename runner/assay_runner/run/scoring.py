"""The judge phase (`assay score --config`): an answers tree plus the answer key in, a verdict out.

It runs no agent: it reads what the answer phase wrote, joins the suite's public part with its key, runs
the judges (the model judge through the gateway, with the judge token when one is given) and binds the
verdict to the digests of what was mounted.
"""

from __future__ import annotations

from pathlib import Path

from assay_runner.contract import Result, RunConfig
from assay_runner.core.independence import judge_model_warnings
from assay_runner.errors import InputError
from assay_runner.gateway.access import model_access
from assay_runner.gateway.usage import Price
from assay_runner.run.evaluation import apply_thresholds, gate_settings, verdict_inputs
from assay_runner.run.recorded import score_answers
from assay_runner.suite.loader import load_suite


async def judge_phase(config: RunConfig) -> Result:
    if config.answers_dir is None:
        raise InputError("give the answers directory (--answers DIR, or answersDir in the config)")
    suite = apply_thresholds(load_suite(config.suite, config.kb, config.keys), config)
    tickets = suite.select(config.tickets)
    warnings = judge_model_warnings(suite, config.judge_model, config.agent.model)
    prices = {m: Price(p.input_per_million, p.output_per_million) for m, p in config.prices.items()}
    cassettes = config.cassettes
    access = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prices,
        role="judge",
    )
    result = await score_answers(
        suite,
        Path(config.answers_dir),
        tickets,
        config.repetitions,
        access=access,
        judge_model=config.judge_model,
        concurrency=config.concurrency,
        run_name=config.run_name,
        inputs=verdict_inputs(suite, config, tickets),
        gate=gate_settings(suite, config),
        agent_price=prices.get(config.agent.model or ""),
    )
    return result.model_copy(update={"warnings": [*result.warnings, *warnings]})
