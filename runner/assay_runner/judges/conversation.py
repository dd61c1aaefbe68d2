"""The conversation judges: they read a conversational ticket's exchange as the runner recorded it.

- `asked_first`: for each hidden fact, did the agent ask for it (an `askedWhen` phrase) in a turn before
  its first answer (its first turn asking for no fact)? Score: the share of facts so asked for.
- `unsaid_facts`: did an agent turn state a hidden fact (a `statedWhen` phrase) before the customer said it?
  An answer resting on a guess scores 0, naming the fact and the turn.
- `turns`: did the agent answer within `maxTurns` agent turns (the ticket's limit when not given)?

Each is not applicable to a ticket that is no conversation; a conversational ticket whose cell carries no
exchange (its agent never met its customer: an answer pod given only the public part) is a judge error.
"""

from __future__ import annotations

from assay_runner.contract import ConversationRecord, JudgeVerdict
from assay_runner.judges.base import Case, Judge, S, SpecJudge, failed, not_applicable, scored, share
from assay_runner.suite.conversation import ConversationSpec, mentioned
from assay_runner.suite.models import AskedFirstJudge, ConversationJudge, TurnsJudge, UnsaidFactsJudge

NOT_A_CONVERSATION = "the ticket is no conversation"
NO_RECORD = (
    "the ticket is a conversation and its cell has no exchange recorded: the agent answered without its "
    "customer (an answer phase run on the suite's public part, or a recorded answer)"
)


def conversation_judge(spec: ConversationJudge) -> Judge:
    if isinstance(spec, AskedFirstJudge):
        return AskedFirst(spec)
    if isinstance(spec, UnsaidFactsJudge):
        return UnsaidFacts(spec)
    if isinstance(spec, TurnsJudge):
        return Turns(spec)
    raise TypeError(f"no conversation judge implements {type(spec).__name__}")


def first_answer(record: ConversationRecord) -> int | None:
    """The turn of the agent's first answer: its first turn asking for no hidden fact (None: none)."""
    return next((t.index for t in record.turns if t.speaker == "agent" and not t.asked), None)


class _ExchangeJudge(SpecJudge[S]):
    """A judge of the recorded exchange: not applicable to a ticket that is no conversation, an error where
    the cell carries no exchange; else what `judge_exchange` makes of the ticket's spec and the exchange."""

    def judge(self, case: Case) -> JudgeVerdict:
        spec = case.ticket.key.conversation
        if spec is None:
            return not_applicable(NOT_A_CONVERSATION)
        if case.conversation is None:
            return failed(NO_RECORD)
        return self.judge_exchange(spec, case.conversation)

    def judge_exchange(self, spec: ConversationSpec, record: ConversationRecord) -> JudgeVerdict:
        raise NotImplementedError


class AskedFirst(_ExchangeJudge[AskedFirstJudge]):
    def judge_exchange(self, spec: ConversationSpec, record: ConversationRecord) -> JudgeVerdict:
        answered = first_answer(record)
        asked: dict[str, int] = {}
        for turn in record.turns:
            if turn.speaker == "agent":
                for name in turn.asked:
                    asked.setdefault(name, turn.index)
        before = [
            f.name for f in spec.hidden if f.name in asked and (answered is None or asked[f.name] < answered)
        ]
        missed = [f.name for f in spec.hidden if f.name not in before]
        score = share(len(before), len(spec.hidden))
        if not missed:
            return scored(score, f"asked for {', '.join(before)} before answering")
        when = "before its first answer (turn 0)" if answered == 0 else f"before answering (turn {answered})"
        return scored(score, f"did not ask for {', '.join(missed)} {when}")


class UnsaidFacts(_ExchangeJudge[UnsaidFactsJudge]):
    def judge_exchange(self, spec: ConversationSpec, record: ConversationRecord) -> JudgeVerdict:
        said: set[str] = set()
        guessed: list[str] = []
        for turn in record.turns:
            if turn.speaker == "customer":
                said.update(turn.revealed)
                continue
            for fact in spec.hidden:
                phrase = None if fact.name in said else mentioned(turn.text, fact.stated_when)
                if phrase is not None:
                    guessed.append(f"{fact.name} ({phrase!r} in turn {turn.index})")
        if guessed:
            return scored(0.0, f"stated what the customer had not said: {'; '.join(guessed)}")
        return scored(1.0, "stated no hidden fact before the customer said it")


class Turns(_ExchangeJudge[TurnsJudge]):
    def judge_exchange(self, spec: ConversationSpec, record: ConversationRecord) -> JudgeVerdict:
        limit = self.spec.max_turns or spec.turn_limit
        taken = record.agent_turns
        if record.ended != "answered":
            return scored(0.0, f"no answer after {taken} agent turn(s): {record.reason or record.ended}")
        if taken > limit:
            return scored(0.0, f"answered in {taken} agent turns, more than {limit}")
        return scored(1.0, f"answered in {taken} of at most {limit} agent turns")
