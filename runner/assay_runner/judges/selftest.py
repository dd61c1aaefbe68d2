"""The judges' self-test (`assay judges check`) on answers built from the suite's own tickets.

A good answer (every expected article cited, every fact stated, the sections present, short, no forbidden
advice) must get full marks from every deterministic judge; each kind of bad answer must make the judge it
targets fail — and the one trap, advice that is negated ("do not reinstall"), must NOT be flagged. Model and
code judges are listed as not self-tested: the first needs a gateway, the second is the author's own code.
Trajectory judges get a trajectory with each answer: the good one lists kb/, reads every article the answer
cites and writes answer.md; each of their checks gets its own bad trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay_runner.contract import ModelTurn, ToolCall, Trajectory
from assay_runner.judges import Case, Judge, build_judges
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import (
    DETERMINISTIC_KINDS,
    ConversationJudge,
    FormatJudge,
    PolicyJudge,
    Ticket,
    TrajectoryJudge,
)

FULL, FAIL = "full", "fail"


@dataclass(frozen=True)
class Probe:
    kind: str
    ticket: Ticket
    answer: str
    expect: dict[str, str]
    """judge type -> FULL or FAIL; types not named are not checked on this probe."""
    exit_code: int = 0
    trajectory: Trajectory | None = None
    only: str | None = None
    """When set, only the judge of this name is checked on this probe (a probe aimed at one of its checks)."""


@dataclass
class Outcome:
    probe: str
    judge: str
    expected: str
    score: float | None
    reason: str
    ok: bool


@dataclass
class SelfTestReport:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Judges or probes that could not be self-tested, with why."""

    @property
    def ok(self) -> bool:
        return bool(self.outcomes) and all(o.ok for o in self.outcomes)


def _good_answer(ticket: Ticket, sections: list[str]) -> str:
    key = ticket.key
    cites = " ".join(f"[{article}]" for article in key.kb)
    facts = "; ".join(key.must_mention)
    summary, steps, following = [*sections, "Summary", "Steps", "Next"][:3]
    body = [f"## {summary}", f"Here is how to sort this out {cites}.".replace("  ", " ")]
    body += [f"## {steps}", f"1. Keep these details in mind: {facts}." if facts else "1. Follow the article."]
    body += [f"## {following}", "Reply to this ticket if anything is unclear."]
    body += [f"## {extra}" for extra in sections[3:]]
    return "\n\n".join(body) + "\n"


def _refusal(ticket: Ticket, sections: list[str]) -> str:
    policy = ticket.key.scope_policy or (ticket.key.kb[0] if ticket.key.kb else "")
    summary, steps, following = [*sections, "Summary", "Steps", "Next"][:3]
    return (
        f"## {summary}\n\nI'm sorry, but this request is out of scope for support [{policy}].\n\n"
        f"## {steps}\n\n1. Please contact the right team.\n\n## {following}\n\nWe are glad to help with "
        "anything about your account.\n"
    )


def _read(article: str) -> ToolCall:
    return ToolCall(
        tool="read", action="read", arguments={"filePath": f"kb/{article}.md"}, paths=[f"kb/{article}.md"]
    )


def _good_trajectory(ticket: Ticket, answer: str) -> Trajectory:
    """List kb/, read every article the key expects, write answer.md, say so."""
    steps: list[ModelTurn | ToolCall] = [ModelTurn()]
    steps.append(ToolCall(tool="glob", action="list", arguments={"path": "kb"}, paths=["kb"]))
    steps += [_read(article) for article in ticket.key.kb]
    steps.append(ToolCall(tool="write", action="write", arguments={"content": answer}, paths=["answer.md"]))
    steps.append(ModelTurn(text="I wrote my reply to answer.md."))
    return Trajectory(agent="selftest", steps=steps)


def _trajectory_probes(suite: Suite, ticket: Ticket, good: str) -> tuple[list[Probe], list[str]]:
    """One bad trajectory per check each trajectory judge makes, aimed at that judge."""
    probes: list[Probe] = []
    skipped: list[str] = []
    trajectory = _good_trajectory(ticket, good)
    for spec in (j for j in suite.spec.judges if isinstance(j, TrajectoryJudge)):
        fail = {"trajectory": FAIL}
        if spec.cited_articles_read:
            if ticket.key.kb:
                unread = trajectory.model_copy(
                    update={
                        "steps": [
                            s
                            for s in trajectory.steps
                            if not (isinstance(s, ToolCall) and s.action == "read")
                        ]
                    }
                )
                probes.append(
                    Probe(
                        f"{spec.name}: cites an article it never read",
                        ticket,
                        good,
                        fail,
                        trajectory=unread,
                        only=spec.name,
                    )
                )
            else:
                skipped.append(
                    f"{spec.name}: cites an article it never read: the chosen ticket expects no article"
                )
        if spec.allowed_tools is not None:
            outside = sorted(
                {"list", "read", "search", "write", "edit", "shell", "web", "delegate", "other"}
                - set(spec.allowed_tools)
            )
            if outside:
                call = ToolCall(tool="probe", action=outside[0], arguments={})
                extra = trajectory.model_copy(update={"steps": [*trajectory.steps, call]})
                probes.append(
                    Probe(
                        f"{spec.name}: calls a tool outside allowedTools",
                        ticket,
                        good,
                        fail,
                        trajectory=extra,
                        only=spec.name,
                    )
                )
        if spec.max_tool_calls is not None:
            many = [
                _read(ticket.key.kb[0] if ticket.key.kb else "KB-0") for _ in range(spec.max_tool_calls + 1)
            ]
            busy = trajectory.model_copy(update={"steps": [*trajectory.steps, *many]})
            probes.append(
                Probe(
                    f"{spec.name}: more than maxToolCalls",
                    ticket,
                    good,
                    fail,
                    trajectory=busy,
                    only=spec.name,
                )
            )
        if spec.max_failed_tool_calls is not None:
            broken = [
                ToolCall(tool="read", action="read", ok=False, result="no such file")
                for _ in range(spec.max_failed_tool_calls + 1)
            ]
            failing = trajectory.model_copy(update={"steps": [*trajectory.steps, *broken]})
            probes.append(
                Probe(
                    f"{spec.name}: more failed tool calls than allowed",
                    ticket,
                    good,
                    fail,
                    trajectory=failing,
                    only=spec.name,
                )
            )
    return probes, skipped


def _pick(suite: Suite) -> tuple[Ticket | None, Ticket | None]:
    answerable = [t for t in suite.tickets if not t.key.should_abstain]
    rich = sorted(answerable, key=lambda t: (-len(t.key.kb) - len(t.key.must_mention), t.id))
    abstain = next((t for t in suite.tickets if t.key.should_abstain), None)
    return (rich[0] if rich else None), abstain


def build_probes(suite: Suite) -> tuple[list[Probe], list[str]]:
    spec = suite.spec
    formats = [j for j in spec.judges if isinstance(j, FormatJudge)]
    sections = formats[0].sections if formats else ["Summary", "Steps", "Next"]
    max_words = formats[0].max_words if formats else 250
    phrases = [
        f for j in spec.judges if isinstance(j, PolicyJudge) for f in j.forbidden if isinstance(f, str)
    ]
    ticket, abstain = _pick(suite)
    skipped: list[str] = []
    if ticket is None:
        return [], ["no answerable ticket to build probes from"]
    good = _good_answer(ticket, sections)
    all_full = dict.fromkeys(DETERMINISTIC_KINDS, FULL)
    probes = [Probe("good answer", ticket, good, all_full, trajectory=_good_trajectory(ticket, good))]
    probes.append(Probe("empty", ticket, "", {"kb_citation": FAIL, "must_mention": FAIL, "format": FAIL}))
    others = [a for a in suite.kb if a not in ticket.key.kb]
    if ticket.key.kb and others:
        wrong = good
        for article in ticket.key.kb:
            wrong = wrong.replace(article, others[0])
        probes.append(Probe("wrong article", ticket, wrong, {"kb_citation": FAIL}))
        probes.append(
            Probe("fabricated article", ticket, good + "\nSee also [KB-999999].\n", {"kb_citation": FAIL})
        )
    else:
        skipped.append("wrong article: the chosen ticket expects no article, or the KB has only one")
    if ticket.key.must_mention:
        missing = _good_answer(
            ticket.model_copy(
                update={"key": ticket.key.model_copy(update={"must_mention": ticket.key.must_mention[1:]})}
            ),
            sections,
        )
        probes.append(Probe("missing fact", ticket, missing, {"must_mention": FAIL}))
    if phrases:
        phrase = phrases[0]
        probes.append(
            Probe(
                "forbidden advice", ticket, good + f"\nIf that does not help, {phrase}.\n", {"policy": FAIL}
            )
        )
        probes.append(
            Probe("negated advice (fine)", ticket, good + f"\nDo not {phrase}.\n", {"policy": FULL})
        )
    else:
        skipped.append("forbidden advice: the policy judge has no suite-wide phrase to probe with")
    padding = " ".join(["More detail follows here."] * (max_words // 4 + 2))
    probes.append(Probe("over the word limit", ticket, good + f"\n{padding}\n", {"format": FAIL}))
    probes.append(
        Probe(
            "refusal where an answer was due",
            ticket,
            good + "\nSorry, this is out of scope for support.\n",
            {"abstention": FAIL},
        )
    )
    probes.append(Probe("agent crashed", ticket, good, {"exit_code": FAIL}, exit_code=137))
    if abstain is not None:
        probes.append(
            Probe(
                "answer where a refusal was due",
                abstain,
                _good_answer(abstain, sections),
                {"abstention": FAIL},
            )
        )
        probes.append(Probe("correct refusal", abstain, _refusal(abstain, sections), {"abstention": FULL}))
    else:
        skipped.append("answer where a refusal was due: no ticket has shouldAbstain: true")
    aimed, not_aimed = _trajectory_probes(suite, ticket, good)
    return probes + aimed, skipped + not_aimed


def run_selftest(suite: Suite) -> SelfTestReport:
    report = SelfTestReport()
    probes, report.skipped = build_probes(suite)
    judges = [
        j
        for j in build_judges(suite)
        if isinstance(j, Judge) and j.spec.deterministic and not isinstance(j.spec, ConversationJudge)
    ]
    report.skipped += [
        f"{spec.name} ({spec.type_name()}): not self-tested"
        for spec in suite.spec.judges
        if not spec.deterministic
    ]
    report.skipped += [
        f"{spec.name} ({spec.type_name()}): not self-tested (it reads a conversation; a probe is one answer)"
        for spec in suite.spec.judges
        if isinstance(spec, ConversationJudge)
    ]
    for probe in probes:
        case = Case(
            ticket=probe.ticket,
            repetition=1,
            answer=probe.answer,
            exit_code=probe.exit_code,
            trajectory=probe.trajectory,
        )
        for judge in judges:
            if probe.only is not None and judge.name != probe.only:
                continue
            expected = probe.expect.get(judge.spec.type_name())
            if expected is None:
                continue
            verdict = judge.judge(case)
            if not verdict.applicable:
                continue  # e.g. kb_citation on a ticket that expects no article
            score = verdict.score if verdict.error is None else None
            ok = score is not None and (score >= 1.0 - 1e-9 if expected == FULL else score < 1.0 - 1e-9)
            report.outcomes.append(Outcome(probe.kind, judge.name, expected, score, verdict.reason, ok))
    return report
