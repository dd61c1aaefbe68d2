"""A CLI's trajectory reconciled with what the metering proxy saw of its cell.

The steps stay as the CLI told them (for display). Beside them the trajectory gets the proxy's record —
the model calls it relayed and the KB articles whose content reached the model in a tool result
(`text.excerpt`) — which the trajectory judge gates on, and the differences between the two, each named: a
read in the transcript whose content never reached the model (`head -c 0 kb/X.md`, a Read past the end), an
article the model was shown with no read in the transcript (`cat kb/*.md`, `cd kb && cat X.md`), a count of
model turns that is not the count of model calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assay_runner.contract import ModelTurn, Trajectory
from assay_runner.judges.trajectory import articles_read
from assay_runner.text.excerpt import holds_excerpt, normalised

SEPARATOR = "\x00"
"""Between two tool results in the text searched: no normalised article holds it, so no excerpt spans two."""


def normalised_kb(kb: Mapping[str, str]) -> dict[str, str]:
    """The KB's articles (id -> text) as `articles_shown` compares them: normalised once, for every cell."""
    return {article: normalised(text) for article, text in kb.items()}


def articles_shown(results: Iterable[str], kb: Mapping[str, str]) -> list[str]:
    """Ids of the articles of `kb` (id -> normalised text: `normalised_kb`) an excerpt of which is in one of
    the (normalised) results."""
    shown = SEPARATOR.join(results)
    return sorted(article for article, text in kb.items() if holds_excerpt(shown, text))


def witnessed(
    trajectory: Trajectory,
    *,
    model_calls: int,
    results: Iterable[str],
    kb: Mapping[str, str],
    not_kept: int = 0,
) -> Trajectory:
    """`trajectory` with the proxy's record of its cell and the differences named (`kb`: `normalised_kb`)."""
    shown = articles_shown(results, kb)
    by_upper = {article.upper(): article for article in kb}
    told = {by_upper.get(article, article) for article in articles_read(trajectory)}
    differences = [
        f"kb/{article}.md: read in the CLI's transcript, but its content never reached the model"
        for article in sorted(told - set(shown))
    ]
    differences += [
        f"kb/{article}.md: its content reached the model, with no read of it in the CLI's transcript"
        for article in shown
        if article not in told
    ]
    turns = sum(isinstance(step, ModelTurn) for step in trajectory.steps)
    if turns != model_calls:
        differences.append(
            f"the CLI's transcript shows {turns} model turn(s); the proxy relayed {model_calls} model call(s)"
        )
    if not_kept:
        differences.append(
            f"{not_kept} tool result(s) past the proxy's bound were not kept: reads in them do not count"
        )
    return trajectory.model_copy(
        update={"model_calls": model_calls, "articles_read": shown, "differences": differences}
    )
