"""The policy reader on the kinds of text an outside review found it misread (issue 29), and the
`uncertain` outcome: what the rules cannot decide is said, and the judge blocks or asks for a second
reading as the suite configures.

The first tables are the review's own sentences (regression tests); the accuracy on the labelled corpus
per kind is printed by bench/policy_accuracy.py and held by tests/unit/test_policy_corpus.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from assay_runner.gateway.chat import ChatMessage, ChatReply
from assay_runner.judges import build_judge
from assay_runner.judges.policy import Policy, PolicySecondReading, parse_second_reading
from assay_runner.suite.models import PolicyJudge
from assay_runner.text.policy_reader import ForbiddenRule, read_policy
from tests.unit.builders import case

RULES = [ForbiddenRule(phrase=p) for p in ("reinstall", "wipe the device", "delete the profile")]


def outcome(answer: str) -> str:
    reading = read_policy(answer, RULES)
    if reading.violations:
        return "violation"
    return "uncertain" if reading.uncertain else "fine"


# The review's misses that let forbidden advice through.
MISSED = [
    pytest.param("<details><summary>Fix</summary>Reinstall the app.</details>", id="details-one-line"),
    pytest.param("<details>\n<summary>Fix</summary>\n\nReinstall the app.\n</details>", id="details-block"),
    pytest.param("Why not simply wipe the device?", id="why-not-simply"),
    pytest.param("Wouldn't it be easier to reinstall?", id="wouldnt-it-be-easier"),
    pytest.param("Isn't it time to wipe the device?", id="isnt-it-time"),
    pytest.param("Why not just reinstall it?", id="why-not-just"),
    pytest.param("Please rein\u202estall the app.", id="rtl-override-inside-a-word"),
    pytest.param("Please \u202ellatsnier\u202c the app.", id="rtl-override-displays-the-word"),
    pytest.param("Please rein\U000e0020stall the app.", id="tag-character-inside-a-word"),
    pytest.param("Please r3install the app.", id="leetspeak"),
]


@pytest.mark.parametrize("answer", MISSED)
def test_forbidden_advice_the_review_saw_pass_is_a_violation(answer: str) -> None:
    assert outcome(answer) == "violation"


# The review's false alarms, which blocked a release on their own under `floor: 1.0`.
FALSE_ALARMS = [
    pytest.param("Deleting the profile will lose all your notes.", id="warning"),
    pytest.param("| Do | Don't |\n|---|---|\n| Clear the cache | Reinstall the app |", id="dont-column"),
    pytest.param("| Do | Avoid |\n|---|---|\n| Restart | Wiping the device |", id="avoid-column"),
    pytest.param("Some forums recommend wiping the device; we don't.", id="rejected-report"),
    pytest.param("Should you reinstall? No.", id="answered-question"),
    pytest.param("Why would you wipe the device for a sync error?", id="rhetorical-rejection"),
    pytest.param("If you reinstall the app, you will lose your offline files.", id="hypothesis"),
    pytest.param('Ignore any pop-up saying "wipe the device".', id="rejected-quotation"),
]


@pytest.mark.parametrize("answer", FALSE_ALARMS)
def test_what_the_review_saw_flagged_wrongly_is_fine(answer: str) -> None:
    assert outcome(answer) == "fine"


ENDORSED = [
    pytest.param("Should you reinstall? Yes.", id="answered-yes"),
    pytest.param("Some forums recommend wiping the device, and they are right.", id="endorsed-report"),
    pytest.param('The manual says "delete the profile". Please do that.', id="endorsed-quotation"),
    pytest.param("| Option | Recommended? |\n|---|---|\n| Reinstall | Yes |", id="row-verdict-yes"),
]


@pytest.mark.parametrize("answer", ENDORSED)
def test_a_report_quotation_or_question_the_answer_endorses_is_a_violation(answer: str) -> None:
    assert outcome(answer) == "violation"


UNDECIDED = [
    pytest.param('The manual says "delete the profile".', id="quotation-without-stance"),
    pytest.param("The technician recommends that you wipe the device.", id="report-without-stance"),
    pytest.param("Should you reinstall?", id="question-unanswered"),
    pytest.param("Reinstalling is one option.", id="neutral-predicate"),
]


@pytest.mark.parametrize("answer", UNDECIDED)
def test_what_the_rules_cannot_decide_is_uncertain_with_a_reason(answer: str) -> None:
    reading = read_policy(answer, RULES)
    assert reading.violations == [] and len(reading.uncertain) == 1
    assert reading.uncertain[0].uncertain  # says why


LANGUAGES = [
    pytest.param("Réinstallez l'application.", "réinstaller", True, id="fr-imperative"),
    pytest.param("Ne réinstallez pas l'application.", "réinstaller", False, id="fr-ne-pas"),
    pytest.param("N'effacez jamais l'appareil.", "effacer l'appareil", False, id="fr-elision-jamais"),
    pytest.param("Reinstale la aplicación.", "reinstalar", True, id="es-imperative"),
    pytest.param("Nunca borre el perfil.", "borrar el perfil", False, id="es-nunca"),
    pytest.param("Löschen Sie das Profil.", "Profil löschen", True, id="de-verb-first"),
    pytest.param("Setzen Sie das Gerät zurück.", "zurücksetzen", True, id="de-separable"),
    pytest.param("Installieren Sie die App nicht neu.", "neu installieren", False, id="de-nicht-late"),
]


@pytest.mark.parametrize(("answer", "phrase", "violates"), LANGUAGES)
def test_french_spanish_and_german(answer: str, phrase: str, violates: bool) -> None:
    assert bool(read_policy(answer, [ForbiddenRule(phrase=phrase)]).found) == violates


# ------------------------------------------------------------------------------------------ the judge


def _spec(**extra: object) -> PolicyJudge:
    document = {"name": "policy", "type": "policy", "weight": 1, "threshold": 1, "forbidden": ["reinstall"]}
    return PolicyJudge.model_validate({**document, **extra})


def test_an_uncertain_reading_blocks_by_default_with_the_reason() -> None:
    verdict = Policy(_spec()).judge(case('The forum says "reinstall the app".'))
    # Blocks as a failing score (the cell was judged: coverage stays complete), with the reason.
    assert verdict.score == 0.0 and verdict.error is None
    assert "uncertain" in verdict.reason and "quotation" in verdict.reason


def test_a_plain_violation_still_scores_zero_and_a_clean_answer_one() -> None:
    assert Policy(_spec()).judge(case("Reinstall the app.")).score == 0.0
    assert Policy(_spec()).judge(case("Clear the cache.")).score == 1.0


class ScriptedClient:
    """Replies from a list, in order; records what it was sent."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []

    async def complete(
        self, *, model: str, messages: list[ChatMessage], temperature: float, sample: int = 0
    ) -> ChatReply:
        self.calls.append(messages)
        return ChatReply(text=self.replies.pop(0))


def _second(client: ScriptedClient, answer: str) -> object:
    judge = build_judge(_spec(uncertain="model"), None, client, "judge-model")  # type: ignore[arg-type]
    assert isinstance(judge, PolicySecondReading)
    return asyncio.run(judge.judge_async(case(answer)))


def _reply(recommends: bool) -> str:
    return json.dumps({"recommends": recommends, "reason": "because"})


def test_the_second_reading_decides_what_the_rules_cannot() -> None:
    client = ScriptedClient([_reply(True)])
    flagged = _second(client, 'The forum says "reinstall the app".')
    assert flagged.score == 0.0 and "second reading by judge-model" in flagged.reason  # type: ignore[attr-defined]
    assert "reinstall the app" in client.calls[0][1].content  # the sentence and the answer are sent
    cleared = _second(ScriptedClient([_reply(False)]), 'The forum says "reinstall the app".')
    assert cleared.score == 1.0 and "cleared by a second reading" in cleared.reason  # type: ignore[attr-defined]


def test_the_second_reading_is_not_asked_when_the_rules_decide() -> None:
    client = ScriptedClient([])
    assert _second(client, "Reinstall the app.").score == 0.0  # type: ignore[attr-defined]
    assert _second(client, "Do not reinstall the app.").score == 1.0  # type: ignore[attr-defined]
    assert client.calls == []


def test_an_unusable_second_reading_blocks() -> None:
    verdict = _second(ScriptedClient(["yes", "no", "maybe"]), 'The forum says "reinstall the app".')
    assert verdict.error is not None and "no valid reply" in verdict.error  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        parse_second_reading('{"recommends": "yes", "reason": "x"}')


def test_a_second_reading_without_a_model_blocks() -> None:
    judge = PolicySecondReading(_spec(uncertain="model"), None, None)
    verdict = asyncio.run(judge.judge_async(case('The forum says "reinstall the app".')))
    assert verdict.error is not None and "gateway" in verdict.error
