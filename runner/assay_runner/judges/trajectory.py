"""`trajectory`: judges what the agent did, from its trajectory, not only its answer.

Checks, each optional (the suite names the ones it wants), score = share that hold:
- `citedArticlesRead`: every KB article the answer cites (read as `kb_citation` reads it) was read: its
  content reached the model in a tool result the metering proxy relayed (`Trajectory.articles_read`, by the
  rule of `text.excerpt`: a contiguous excerpt of 400 characters, or all of a shorter article), whatever the
  command's wording. A search hit, a size, an empty range is not a read. Only a trajectory without the
  proxy's record (a result from before it, an agent run without a proxy) is read from the CLI's own steps:
  a successful read of `kb/<id>.md`.
- `allowedTools`: no tool call outside these kinds.
- `maxToolCalls`, `maxFailedToolCalls`: bounds on the calls, and on the calls that failed (one definition
  for the three CLIs: the tool reported an error; a search that found nothing did what it was asked).

A conversational cell is judged over the whole conversation (the cell's trajectory: every turn's joined),
which decides as for any cell, and turn by turn from each agent turn's own trajectory
(`ConversationTurn.trajectory`): the reason adds a breakdown per turn (the model turns, the tool calls and
failed ones, the articles read), and `citedArticlesRead` is also a rule per turn: an article an agent turn
cites (its question as well as its answer) must have been read in that turn or an earlier one; one the CLI's
steps read only in a later turn was not read when it was cited, and fails the check. An article the steps
never read (the proxy alone saw it) has no turn to place it in and is left to the whole's check. The
bounds (`allowedTools`, `maxToolCalls`, `maxFailedToolCalls`) are over the whole conversation.

Not applicable to a cell without a trajectory: its kind of agent keeps none (replayed answers, the chat
agent), so there is nothing to check rather than a free pass — the other judges still apply.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from assay_runner.contract import ConversationRecord, JudgeVerdict, ModelTurn, Trajectory
from assay_runner.judges.base import Case, SpecJudge, not_applicable, scored, share
from assay_runner.judges.kb_citation import KbCitation
from assay_runner.suite.models import KbCitationJudge, TrajectoryJudge

KB_FOLDER = "kb"


def articles_read(trajectory: Trajectory) -> set[str]:
    """Ids of the KB articles a successful read opened (`kb/KB-1001.md` -> `KB-1001`)."""
    found: set[str] = set()
    for call in trajectory.tool_calls():
        if call.action != "read" or not call.ok:
            continue
        for path in call.paths:
            folder, name = posixpath.split(posixpath.normpath(path))
            if folder == KB_FOLDER and name.endswith(".md"):
                found.add(name.removesuffix(".md").upper())
    return found


def turn_trajectories(conversation: ConversationRecord | None) -> list[tuple[int, Trajectory]]:
    """Each agent turn's own trajectory, by turn index (none: no conversation, or an agent keeping none)."""
    if conversation is None:
        return []
    return [
        (turn.index, turn.trajectory)
        for turn in conversation.turns
        if turn.speaker == "agent" and turn.trajectory is not None
    ]


def turn_summary(index: int, trajectory: Trajectory) -> str:
    """One turn's line of the breakdown: its model turns, tool calls (failed ones), articles read."""
    calls = trajectory.tool_calls()
    failed = [call.tool for call in calls if not call.ok]
    model = sum(isinstance(step, ModelTurn) for step in trajectory.steps)
    read = sorted(articles_read(trajectory))
    parts = [
        f"{model} model turn(s)",
        f"{len(calls)} tool call(s), {len(failed)} failed" + (f" ({', '.join(failed)})" if failed else ""),
        f"read {', '.join(read) or 'no article'}",
    ]
    if trajectory.dropped_steps:
        parts.append(f"{trajectory.dropped_steps} step(s) not kept")
    return f"turn {index}: {'; '.join(parts)}"


class TrajectoryChecks(SpecJudge[TrajectoryJudge]):
    def __init__(self, spec: TrajectoryJudge, kb_ids: Iterable[str]) -> None:
        super().__init__(spec)
        # Citations are read exactly as the kb_citation judge reads them.
        self._citations = KbCitation(
            KbCitationJudge(name="citations", type="kb_citation", weight=0, threshold=0), kb_ids
        )

    def judge(self, case: Case) -> JudgeVerdict:
        trajectory = case.trajectory
        if trajectory is None:
            return not_applicable("this agent kept no trajectory (its transcript tells no steps)")
        spec = self.spec
        calls = trajectory.tool_calls()
        unseen = trajectory.dropped_steps  # past the kept steps: fail closed on what they may hold
        checks: list[tuple[bool, str]] = []
        if spec.cited_articles_read:
            cited = sorted(self._citations.cited(case.answer))
            witnessed = trajectory.articles_read is not None
            read = (
                {article.upper() for article in trajectory.articles_read or []}
                if witnessed
                else articles_read(trajectory)
            )
            unread = [article for article in cited if article.upper() not in read]
            late = self.read_late(case.conversation)
            wrong = ([f"cites {', '.join(unread)} without having read it"] if unread else []) + late
            checks.append(
                (False, "; ".join(wrong))
                if wrong
                else (True, f"read every article it cites ({', '.join(cited) or 'none'})")
            )
        if spec.allowed_tools is not None:
            allowed = set(spec.allowed_tools)
            outside = list(dict.fromkeys(f"{c.tool} ({c.action})" for c in calls if c.action not in allowed))
            if unseen:
                outside.append(f"{unseen} step(s) not kept")
            checks.append(
                (False, f"called {', '.join(outside)}, outside {sorted(allowed)}")
                if outside
                else (True, "only allowed tools")
            )
        if spec.max_tool_calls is not None:
            count = len(calls) + unseen
            more = f" (and {unseen} step(s) not kept)" if unseen else ""
            checks.append(
                (
                    count <= spec.max_tool_calls,
                    f"{len(calls)} tool call(s){more}, at most {spec.max_tool_calls}",
                )
            )
        if spec.max_failed_tool_calls is not None:
            failed = [c.tool for c in calls if not c.ok]
            named = f" ({', '.join(failed)})" if failed else ""
            allowed_failures = spec.max_failed_tool_calls
            checks.append(
                (
                    len(failed) <= allowed_failures,
                    f"{len(failed)} failed tool call(s){named}, at most {allowed_failures}",
                )
            )
        failing = [text for ok, text in checks if not ok]
        reason = "; ".join(failing or [text for _, text in checks])
        if per_turn := turn_trajectories(case.conversation):
            reason += " | per turn: " + " | ".join(turn_summary(i, t) for i, t in per_turn)
        return scored(share(len(checks) - len(failing), len(checks)), reason)

    def read_late(self, conversation: ConversationRecord | None) -> list[str]:
        """Each agent turn's citations of an article its turn's steps, and the earlier turns', did not read
        but a later turn's did: it was cited before it was read (the per-turn rule)."""
        per_turn = dict(turn_trajectories(conversation))
        if conversation is None or not per_turn:
            return []
        first_read: dict[str, int] = {}
        for index, trajectory in sorted(per_turn.items()):
            for article in articles_read(trajectory):
                first_read.setdefault(article.upper(), index)
        late = []
        for turn in conversation.turns:
            if turn.speaker != "agent":
                continue
            after = sorted(
                (article, first_read[article.upper()])
                for article in self._citations.cited(turn.text)
                if first_read.get(article.upper(), -1) > turn.index
            )
            late += [
                f"turn {turn.index} cites {article}, read only in turn {read}" for article, read in after
            ]
        return late
