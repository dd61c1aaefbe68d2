"""`assay gate --verify --suite DIR [--config RUNCONFIG] [--answers DIR]`: judge the stored answers again
and check the result against everything it claims to be bound to.

- Evidence: result.json's MACs verify under the run's evidence key (`run.evidence`): each cell that does
  not is named; a result without them (a hand-made tree's, a re-gated one, evidence removed) or whose key
  is not available here is unauthenticated, and never verifies.

- Provenance: the suite and judges digests are the suite's (with the RunConfig's overrides when given),
  and the result's judges are the suite's.
- Selection: the tickets and repetitions are what the request gives on this suite — the RunConfig's when
  given, else the request the result records — so tickets dropped from `tickets` and `selection` (with
  `ticketsDigest` recomputed to match) show.
- Answers: each stored answer matches its digest; with `--answers DIR`, the tree is the sealed tree the
  result names (`answersDigest`), its manifest and every seal verify under the result's evidence key, and
  every stored answer and exit code is the tree's.
- Verdicts: every deterministic judge, code judges included (on the tree's files when it is given), is
  run again on the stored answers; a verdict edited by hand disagrees with the fresh one. Only the model
  judge (sampled) is not re-run: its stored verdicts are checked for range and shape
  (`assay_runner.core.integrity`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay_runner.contract import GateSettings, JudgeVerdict, Result, RuleResult, RunRequest
from assay_runner.core.digests import judges_digest, suite_digest, tickets_digest
from assay_runner.core.evidence import EvidenceKey
from assay_runner.core.results import answer_digest, result_config
from assay_runner.errors import InputError
from assay_runner.io.evidence_keys import key_for, named_key
from assay_runner.judges import Case, build_judge
from assay_runner.judges.judging import judge_cell
from assay_runner.run.cell import Answered, Cell
from assay_runner.run.evidence import authentication_problems
from assay_runner.run.recorded import read_cells
from assay_runner.suite.loader import Suite, load_suite
from assay_runner.vocabulary import GateRule

TOLERANCE = 1e-9
SHOWN = 5


def _same(stored: JudgeVerdict, fresh: JudgeVerdict) -> bool:
    if stored.applicable != fresh.applicable or (stored.error is None) != (fresh.error is None):
        return False
    if stored.score is None or fresh.score is None:
        return stored.score is fresh.score
    return abs(stored.score - fresh.score) <= TOLERANCE


def _provenance(result: Result, suite: Suite, gate: GateSettings | None) -> list[str]:
    problems = []
    if result.inputs.judges_digest != judges_digest(suite, gate):
        problems.append("the judges digest differs from the suite's (other judges, or the config was edited)")
    if result.inputs.suite_digest != suite_digest(suite):
        problems.append("the suite digest differs from the suite's (other tickets or KB)")
    # Which judges are shadow is part of the judges: a result that claims a gating judge was shadow does not
    # match its suite.
    expected = [(j.name, j.type, j.weight, j.floor, j.scale, j.shadow) for j in result_config(suite).judges]
    stored = [(j.name, j.type, j.weight, j.floor, j.scale, j.shadow) for j in result.config.judges]
    if expected != stored:
        problems.append(
            "the result's judges are not the suite's (a judge removed, added, re-weighted or made shadow)"
        )
    known = {t.id for t in suite.tickets}
    unknown = [t.id for t in result.tickets if t.id not in known]
    if unknown:
        problems.append(f"ticket(s) not in the suite: {', '.join(unknown[:SHOWN])}")
    return problems


def _selection(result: Result, suite: Suite, request: RunRequest | None) -> list[str]:
    if request is None:
        return ["the result records no request (tickets, repetitions): give --config RUNCONFIG"]
    problems = []
    try:
        expected = [t.id for t in suite.select(request.tickets)]
    except InputError as exc:
        return [f"the request's selection does not resolve on this suite: {exc}"]
    if result.selection != expected:
        problems.append(
            f"the selection is not what the request ({request.tickets}) gives on this suite: "
            f"{len(result.selection)} ticket(s) instead of {len(expected)} (tickets dropped or added)"
        )
    if [t.id for t in result.tickets] != result.selection:
        problems.append("the result's tickets are not its selection")
    if result.inputs.tickets_digest != tickets_digest(expected):
        problems.append("the tickets digest is not the requested selection's")
    if result.repetitions.k != request.repetitions:
        problems.append(f"k={result.repetitions.k}, but {request.repetitions} repetitions were asked for")
    return problems


def _answers(
    result: Result, suite: Suite, answers: Path | None, named: EvidenceKey | None = None
) -> tuple[list[str], dict[Cell, Answered]]:
    """The stored answers against their digests and, given the tree, against the tree (its evidence checked
    under the result's key)."""
    problems = [
        f"{t.id} #{rep.index}: the stored answer does not match its digest"
        for t in result.tickets
        for rep in t.repetitions
        if rep.answer_digest is not None and rep.answer_digest != answer_digest(rep.answer)
    ]
    if answers is None:
        return problems, {}
    ids = [t.id for t in result.tickets]
    key = key_for(result.evidence.key_id if result.evidence is not None else None, named)
    tree, manifest = read_cells(
        answers,
        suite.name,
        ids,
        result.repetitions.k,
        [t.id for t in suite.tickets],
        sealed=False,
        named_key=key,
    )
    sealed = manifest.tree_digest if manifest is not None else None
    bound = result.inputs.answers_digest
    if bound is not None and sealed is not None and sealed != bound:
        problems.append("the answers tree is not the one the result was made from (answersDigest differs)")
    for ticket in result.tickets:
        for rep in ticket.repetitions:
            cell = tree.get((ticket.id, rep.index))
            if cell is None:
                problems.append(f"{ticket.id} #{rep.index}: not in the answers tree")
            elif cell.error is not None and (cell.error.startswith("refused") or _evidence_error(cell.error)):
                problems.append(f"{ticket.id} #{rep.index}: {cell.error}")
            elif (cell.answer, cell.exit_code) != (rep.answer, rep.exit_code):
                problems.append(f"{ticket.id} #{rep.index}: the stored answer or exit code is not the tree's")
    return problems, tree


def _evidence_error(error: str) -> bool:
    """A cell error the tree's evidence gave (a seal, the manifest, the key), not the agent."""
    return any(word in error for word in ("seal", "evidence key", "answers manifest", "made for another run"))


async def disagreements(
    result: Result,
    suite: Suite,
    *,
    gate: GateSettings | None = None,
    request: RunRequest | None = None,
    answers: Path | None = None,
    named: EvidenceKey | None = None,
) -> list[str]:
    """Everything that does not match (see the module's docstring). `gate` and `request`: the RunConfig's
    effective gate and request, when one is given (else the suite's gate and the result's own request);
    `named`: the run's evidence key when one is named (else the key store's)."""
    evidence = authentication_problems(result, named)
    problems = _provenance(result, suite, gate)
    if problems:
        return evidence + problems
    problems = evidence + _selection(result, suite, request or result.request)
    found, tree = _answers(result, suite, answers, named)
    problems += found
    judges = [build_judge(s, suite) for s in suite.spec.judges if s.deterministic or s.type_name() == "code"]
    for ticket_result in result.tickets:
        ticket = suite.ticket(ticket_result.id)
        for rep in ticket_result.repetitions:
            if rep.answer is None or rep.error is not None:
                continue
            recorded = tree.get((ticket.id, rep.index))
            case = Case(
                ticket=ticket,
                repetition=rep.index,
                answer=rep.answer,
                exit_code=rep.exit_code,
                transcript=recorded.transcript if recorded is not None else (rep.transcript or ""),
                files=recorded.files if recorded is not None else {},
                trajectory=recorded.trajectory if recorded is not None else rep.trajectory,
                conversation=recorded.conversation if recorded is not None else rep.conversation,
            )
            fresh = await judge_cell(judges, case)
            for name, verdict in fresh.items():
                stored = rep.judges.get(name)
                if stored is None or not _same(stored, verdict):
                    was = "missing" if stored is None else f"{stored.score} ({stored.reason})"
                    problems.append(
                        f"{ticket.id} #{rep.index} {name}: stored {was}, re-judged "
                        f"{verdict.score} ({verdict.reason})"
                    )
    return problems


@dataclass(frozen=True)
class Against:
    """What a stored result is verified against: the suite as the run saw it (with the RunConfig's
    threshold overrides), the effective gate and the request, when a RunConfig is given; the tree."""

    suite: Suite
    gate: GateSettings | None = None
    request: RunRequest | None = None
    answers: Path | None = None
    key: EvidenceKey | None = None
    """The run's evidence key when one is named (`--evidence-key`, the RunConfig's `evidence.keyFile`)."""


def against(
    suite: str | None,
    keys: str | None,
    config: Path | None,
    answers: Path | None,
    evidence_key: str | None = None,
) -> Against:
    """From `--suite DIR [--keys FILE]` or `--config RUNCONFIG` (which names its suite and keys, and may
    name the evidence key); `--evidence-key FILE` over the RunConfig's."""
    named = named_key(evidence_key)
    if config is not None:
        from assay_runner.io.runconfig import read_run_config
        from assay_runner.run.preparation import prepare

        prepared = prepare(read_run_config(config))
        request = RunRequest(tickets=prepared.config.tickets, repetitions=prepared.config.repetitions)
        named = named or named_key(prepared.config.evidence.key_file)
        return Against(prepared.suite, prepared.gate, request, answers, named)
    if suite is None:
        raise InputError("--verify needs --suite DIR (the suite the result was made with) or --config FILE")
    return Against(load_suite(suite, keys=keys), answers=answers, key=named)


async def verify(result: Result, against: Against) -> list[str]:
    return await disagreements(
        result,
        against.suite,
        gate=against.gate,
        request=against.request,
        answers=against.answers,
        named=against.key,
    )


def verified(result: Result, problems: list[str]) -> Result:
    """The result with a `verified` rule: failing (Blocked) on any disagreement."""
    if problems:
        shown = "; ".join(problems[:SHOWN]) + (
            f" (+{len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
        )
        rule = RuleResult(
            name=GateRule.VERIFIED,
            passed=False,
            value=None,
            threshold=None,
            detail=f"does not verify: {shown}",
        )
        return result.model_copy(
            update={
                "rules": [*result.rules, rule],
                "verdict": "Blocked",
                "reasons": [*result.reasons, f"verified: {rule.detail}"],
            }
        )
    rule = RuleResult(
        name=GateRule.VERIFIED,
        passed=True,
        value=None,
        threshold=None,
        detail="authenticated under the run's evidence key; the deterministic judges give the stored "
        "verdicts on the stored answers",
    )
    return result.model_copy(update={"rules": [*result.rules, rule]})
