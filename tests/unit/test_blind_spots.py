"""The text judges' blind spots from the adversarial pass, each read the way a careful reader would."""

from __future__ import annotations

import pytest

from assay_runner.judges.abstention import Abstention
from assay_runner.judges.format import Format
from assay_runner.judges.kb_citation import KbCitation
from assay_runner.judges.must_mention import MustMention
from assay_runner.suite.models import AbstentionJudge, FormatJudge, KbCitationJudge, MustMentionJudge
from tests.unit.builders import case

must = MustMention(MustMentionJudge(name="m", type="must_mention", weight=1, threshold=1))


@pytest.mark.parametrize(
    ("answer", "fact", "score"),
    [
        ("We support C# clients.", "C++", 0.0),
        ("We support C++ clients.", "C++", 1.0),
        ("The add-on costs 60 cents a day.", "$0.60", 0.0),
        ("The add-on costs $0.60 a day.", "$0.60", 1.0),
        ("Don't reinstall the app.", "do not reinstall", 1.0),
        ("Do not reinstall the app.", "don't reinstall", 1.0),
        ("Open Settings → Export.", "Settings > Export", 1.0),
    ],
)
def test_must_mention_keeps_symbols_and_contractions(answer: str, fact: str, score: float) -> None:
    assert must.judge(case(answer, must_mention=[fact])).score == score


kb = KbCitation(KbCitationJudge(name="kb", type="kb_citation", weight=1, threshold=1), ["KB-1003", "KB-1004"])


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("See <https://help.example.com/KB-1003.html>.", 1.0),
        ("See kb/KB-1003.md for the steps.", 1.0),
        ("See KB-1003.2 (section 2).", 1.0),
        ("See \uff2b\uff22-\uff11\uff10\uff10\uff13.", 1.0),
        ("See [the sync article](https://help.example.com/KB-1003.html).", 0.0),
        ("See the article. <!-- KB-1003 -->", 0.0),
        ("See ~~KB-1003~~ the article.", 0.0),
        ("See KB-1003 and KB-9999.", 0.0),
    ],
)
def test_kb_citation_reads_what_the_reader_sees(answer: str, score: float) -> None:
    assert kb.judge(case(answer, kb=["KB-1003"])).score == score


fmt = Format(
    FormatJudge(name="f", type="format", weight=1, threshold=1, sections=["Summary", "Steps"], max_words=20)
)


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("**Summary:** the sync stops.\n\n**Steps:** clear the cache.", 1.0),
        ("Summary\n=======\nThe sync stops.\n\nSteps\n-----\nClear it.", 1.0),
        ("<h2>Summary</h2>\n<h2>Steps</h2>\nClear it.", 1.0),
        ("```\n## Summary\n## Steps\n```\nno headings outside the code", 1 / 3),
        ("## Summary\n## Steps\n" + " ".join(["слово"] * 30), 2 / 3),
        ("## Summary\n## Steps\n" + "-".join(["word"] * 30), 2 / 3),
        ("## Summary\n## Steps\n" + "字" * 30, 2 / 3),
    ],
    ids=["bold-labels", "setext", "html", "fenced", "cyrillic-words", "hyphen-joined", "cjk"],
)
def test_format_reads_headings_and_words_like_a_renderer(answer: str, score: float) -> None:
    assert fmt.judge(case(answer)).score == pytest.approx(score)


abstain = Abstention(AbstentionJudge(name="a", type="abstention", weight=1, threshold=1))


@pytest.mark.parametrize(
    ("answer", "should_abstain", "score"),
    [
        ("I'm sorry, but I can't provide legal advice on that.", True, 1.0),
        ("I'm not able to give tax advice.", True, 1.0),
        ("We won't be able to help with hardware repairs.", True, 1.0),
        ("This is not out of scope: clear the cache and sign in.", False, 1.0),
        ("I'm not saying we can't help with this; clear the cache.", False, 1.0),
        ("This request is out of scope for support.", False, 0.0),
    ],
)
def test_abstention_reads_natural_and_negated_refusals(
    answer: str, should_abstain: bool, score: float
) -> None:
    assert abstain.judge(case(answer, should_abstain=should_abstain)).score == score
