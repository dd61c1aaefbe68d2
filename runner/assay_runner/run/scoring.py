"""The judge phase (`assay score --config`, and `assay score SUITE --answers DIR`): an answers tree plus the
answer key in, a verdict out.

It runs no agent: it reads the recorded cells (`run.recorded`), joins the suite's public part with its key,
runs the judge step on every cell (the model judge through the gateway, with the judge token when one is
given) and binds the verdict to the digests of what was mounted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from assay_runner.contract import Result, RunConfig
from assay_runner.core.independence import judge_model_warnings
from assay_runner.core.results import now_iso
from assay_runner.errors import InputError
from assay_runner.gateway.access import model_access
from assay_runner.io.answers import Limits
from assay_runner.judges import build_judges
from assay_runner.run.judge_step import JudgeStep
from assay_runner.run.preparation import prepare
from assay_runner.run.recorded import read_cells
from assay_runner.run.spending import total_usage


async def judge_phase(config: RunConfig, *, sealed: bool = True) -> Result:
    """`sealed`: the answers tree must be the sealed tree of this run's answer phase (`run.seal`); False for
    a hand-made tree (`assay score SUITE --answers DIR`), which is checked against seals only if it has
    them."""
    if config.answers_dir is None:
        raise InputError("give the answers directory (--answers DIR, or answersDir in the config)")
    answers_dir = Path(config.answers_dir)
    started = now_iso()
    prepared = prepare(config)
    recorded, manifest = read_cells(
        answers_dir,
        prepared.suite.name,
        [t.id for t in prepared.tickets],
        config.repetitions,
        [t.id for t in prepared.suite.tickets],
        sealed=sealed,
        limits=Limits(config.limits.max_answer_bytes, config.limits.max_side_file_bytes),
    )
    # The agent's model: the config's, else what the answer phase recorded it answered with.
    agent_model = config.agent.model or (manifest.model if manifest else None)
    cassettes = config.cassettes
    access = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prepared.prices,
        role="judge",
    )
    by_id = {t.id: t for t in prepared.tickets}
    try:
        step = JudgeStep(
            build_judges(prepared.suite, access.client, config.judge_model), limit=config.concurrency
        )
        judged = await asyncio.gather(
            *(step.judge(by_id[ticket_id], rep, answered) for (ticket_id, rep), answered in recorded.items())
        )
    finally:
        await access.aclose()
    cells = dict(zip(recorded, judged, strict=True))
    usage = total_usage(
        access.meter.usage(),
        (c.usage for c in judged),
        agent_metered=False,
    )
    run_name = config.run_name or answers_dir.name
    sealed_tree = manifest.tree_digest if manifest is not None else None
    result = prepared.verdict(cells, started=started, usage=usage, run_name=run_name, answers=sealed_tree)
    warnings = judge_model_warnings(prepared.suite, config.judge_model, agent_model)
    return result.model_copy(update={"warnings": [*result.warnings, *warnings]})
