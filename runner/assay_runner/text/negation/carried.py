"""A directive negation carried across commas: a negated list ("Do not reinstall, reset or disable it")
or an interrupted one ("Do not, under any circumstances, reinstall it")."""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.clauses import Clause
from assay_runner.text.negation.clause_view import ClauseView, _head
from assay_runner.text.negation.cues import _INTERJECTIONS
from assay_runner.text.negation.reversing import _reversing
from assay_runner.text.negation.vocabulary import _transparent


def carried_negation(views: Sequence[ClauseView], clauses: Sequence[Clause]) -> list[bool]:
    """Which clauses continue a directive negation across commas: a negated list ("Do not reinstall,
    reset(,) or disable it") or an interrupted one ("Do not, under any circumstances, reinstall it")."""
    carried = [False] * len(views)
    for k, view in enumerate(views):
        directive = [c for c in view.cues if c.directive]
        if view.subordinate or not directive:
            continue
        head = _head(view, directive[-1])
        # "Do not, under any circumstances, ...": not "No, reinstall it", nor a negation after its verb
        # ("Werkt het niet, schakel dan ..." negates "werkt")
        cue = directive[-1]
        dangling = (
            head is None
            and view.words[cue.start] not in _INTERJECTIONS
            and (
                all(_transparent(w) for w in view.words[: cue.start])
                or view.words[cue.start] in {"ab", "af"}  # "Wir raten davon ab, die Firewall zu ..."
            )
        )
        if not dangling and (head is None or _reversing(view, head)):
            continue
        run: list[int] = []
        for j in range(k + 1, len(views)):
            item = views[j]
            own = [c for c in item.cues if not (c.start == 0 and item.words[0] == "nor")]
            if clauses[j].opener != "," or item.subordinate or own:
                break
            run.append(j)
            if dangling:
                carried[j] = True
            elif any(w in {"or", "nor"} for w in item.words[:4]):
                for r in run:
                    carried[r] = True
                break
            elif len(item.words) > 4:
                break
    return carried
