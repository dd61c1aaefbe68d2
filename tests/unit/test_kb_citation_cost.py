"""kb_citation stays linear on a citation with a million sections ("KB-1.1.1.1..."): counted, not timed."""

from __future__ import annotations

from assay_runner.judges import kb_citation
from assay_runner.judges.kb_citation import KbCitation
from assay_runner.suite.models import KbCitationJudge
from tests.unit.work_count import lines_run

JUDGE = KbCitation(KbCitationJudge(name="kb", type="kb_citation", weight=1, threshold=1), ["KB-1", "KB-2.1"])


def test_a_long_run_of_sections_is_read_once() -> None:
    def cited(sections: int) -> int:
        answer = "See KB-1" + ".1" * sections + " and KB-2.1.3."
        return lines_run(lambda: JUDGE.cited(answer), [kb_citation])

    small, large = cited(1000), cited(4000)
    assert large <= small * 1.5, (small, large)  # the sections are split off in C, not looped over


def test_a_section_still_cites_its_article() -> None:
    assert JUDGE.cited("See KB-1" + ".1" * 5000 + " and KB-2.1.3.") == {"KB-1", "KB-2.1"}
