"""The judge phase (`assay score --config`, and `assay score SUITE --answers DIR`): an answers tree plus the
answer key in, a verdict out.

It runs no agent: it reads the recorded cells (`run.recorded`), joins the suite's public part with its key,
runs the judge step on every cell (the model judge through the gateway, with the judge token when one is
given) and binds the verdict to the digests of what was mounted.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from assay_runner.contract import SHARD_DIR, Result, RunConfig
from assay_runner.core.evidence import EvidenceKey
from assay_runner.core.independence import judge_model_warnings
from assay_runner.core.results import now_iso
from assay_runner.errors import InputError
from assay_runner.gateway.access import run_model_access
from assay_runner.io.answers import AnswersManifest, Limits
from assay_runner.io.evidence_keys import key_for, named_key
from assay_runner.judges import AnyJudge, build_judges, close_judges
from assay_runner.run.cell import Answered, Cell, unanswered
from assay_runner.run.judge_step import JudgeStep
from assay_runner.run.preparation import Prepared, prepare
from assay_runner.run.recorded import read_cells
from assay_runner.run.seal import digest
from assay_runner.run.shards import cells_of, shard_of
from assay_runner.run.sidecar_spend import Retried, check_sidecar_spend, ledgers_dir
from assay_runner.run.spending import check_run_prices, total_usage

UNSEALED_TREE = (
    "unauthenticated: the answers tree carries no seals (made by hand, not by `assay answer`), so this "
    "result is the user's own answers judged, not evidence of an agent run; `assay gate --verify` does not "
    "accept it as a release verdict"
)


async def judge_phase(config: RunConfig, *, sealed: bool = True) -> tuple[Result, EvidenceKey | None]:
    """`sealed`: the answers tree must be the sealed tree of this run's answer phase (`run.seal`); False for
    a hand-made tree (`assay score SUITE --answers DIR`), which is checked against seals only if it has
    them. With the result, the run's evidence key its outputs are authenticated with (None: a hand-made
    tree's result, unauthenticated)."""
    if config.answers_dir is None:
        raise InputError("give the answers directory (--answers DIR, or answersDir in the config)")
    answers_dir = Path(config.answers_dir)
    started = now_iso()
    prepared = prepare(config)
    # Before the first judge's call: the answer phase priced only its agent's model.
    check_run_prices(prepared, agent=False)
    named = named_key(config.evidence.key_file)
    recorded, manifests, retried = read_recorded(prepared, answers_dir, sealed=sealed, named=named)
    manifest = manifests[0] if len(manifests) == 1 else None
    # The agent's model: the config's, else what the answer phase recorded it answered with.
    agent_model = config.agent.model or next((m.model for m in manifests if m is not None), None)
    access = run_model_access(config, prepared.prices, role="judge")
    by_id = {t.id: t for t in prepared.tickets}
    judges: list[AnyJudge] = []
    try:
        judges = build_judges(prepared.suite, access.client, config.judge_model)
        step = JudgeStep(judges, limit=config.concurrency)
        judged = await asyncio.gather(
            *(step.judge(by_id[ticket_id], rep, answered) for (ticket_id, rep), answered in recorded.items())
        )
    finally:
        close_judges(judges)
        await access.aclose()
    cells = dict(zip(recorded, judged, strict=True))
    usage = total_usage(
        access.meter.usage(),
        [*(c.usage for c in judged), *(r.extra for r in retried.values())],
        agent_metered=False,
    )
    run_name = config.run_name or answers_dir.name
    sealed_tree = manifest.tree_digest if manifest is not None else shards_digest(manifests)
    result = prepared.verdict(cells, started=started, usage=usage, run_name=run_name, answers=sealed_tree)
    warnings = judge_model_warnings(prepared.suite, config.judge_model, agent_model)
    retries = [r.note(shard) for shard, r in retried.items()]
    stored = (key_for(m.evidence_key_id, None) for m in manifests if m is not None)
    key = named or next((k for k in stored if k is not None), None)
    if key is None:
        warnings.append(UNSEALED_TREE)
    return result.model_copy(update={"warnings": [*result.warnings, *warnings, *retries]}), key


def read_recorded(
    prepared: Prepared, answers_dir: Path, *, sealed: bool, named: EvidenceKey | None = None
) -> tuple[dict[Cell, Answered], list[AnswersManifest | None], dict[tuple[int, int] | None, Retried]]:
    """Every cell of the run, from one tree or, with the answers in shards, from each shard's tree
    (`answersDir/shard-<i>`), each checked against its own seal and, where the answer pods had a gateway
    sidecar, against its ledgers; the cells of a shard that failed for good (or wrote no tree) block with
    the reason. In the run's order. And by shard (None: a whole run's pod), what the earlier attempts of a
    retried answer pod spent on cells answered again."""
    retried: dict[tuple[int, int] | None, Retried] = {}
    config = prepared.config
    ledgers = ledgers_dir() if sealed else None
    ids = [t.id for t in prepared.tickets]
    suite_ids = [t.id for t in prepared.suite.tickets]
    limits = Limits.of(config.limits)
    shard = config.shard
    if shard is None or (shard.count == 1 and not shard.failed):
        recorded, manifest = read_cells(
            answers_dir,
            prepared.suite.name,
            ids,
            config.repetitions,
            suite_ids,
            sealed=sealed,
            limits=limits,
            named_key=named,
        )
        if ledgers is not None:
            recorded, earlier = check_sidecar_spend(recorded, ledgers, None, manifest)
            if earlier is not None:
                retried[None] = earlier
        return recorded, [manifest], retried
    order = cells_of(prepared.tickets, config.repetitions)
    found: dict[Cell, Answered] = {}
    manifests: list[AnswersManifest | None] = []
    for index in range(shard.count):
        cells = [(t.id, r) for t, r in shard_of(order, index, shard.count)]
        tree = answers_dir / SHARD_DIR.format(index=index)
        why = shard.failed.get(str(index))
        if why is None and not tree.is_dir():
            why = f"it wrote no answers tree ({tree} is missing)"
        if why is not None:
            found.update({cell: unanswered(f"answer shard {index} failed: {why}") for cell in cells})
            manifests.append(None)
            continue
        recorded, manifest = read_cells(
            tree,
            prepared.suite.name,
            ids,
            config.repetitions,
            suite_ids,
            sealed=sealed,
            limits=limits,
            shard=(index, shard.count),
            cells=cells,
            named_key=named,
        )
        if ledgers is not None:
            recorded, earlier = check_sidecar_spend(recorded, ledgers, (index, shard.count), manifest)
            if earlier is not None:
                retried[(index, shard.count)] = earlier
        found.update(recorded)
        manifests.append(manifest)
    return {(t.id, r): found[(t.id, r)] for t, r in order}, manifests, retried


def shards_digest(manifests: list[AnswersManifest | None]) -> str | None:
    """The answers judged, over every shard's sealed tree (None when a shard has none)."""
    digests = [m.tree_digest if m is not None else None for m in manifests]
    if len(digests) < 2 or any(d is None for d in digests):
        return None
    return digest(json.dumps(digests).encode())
