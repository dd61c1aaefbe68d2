"""policy_reader: sentences, clauses and negation scope for forbidden content, table-driven."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from assay_runner.text.clauses import clauses_of
from assay_runner.text.language import load_models
from assay_runner.text.match import tokenize
from assay_runner.text.policy_reader import (
    ForbiddenRule,
    Violation,
    find_violations,
    split_clauses,
    split_sentences,
)

REINSTALL = ForbiddenRule(phrase="reinstall")
RESET = ForbiddenRule(phrase="reset")
FIREWALL = ForbiddenRule(phrase="disable the firewall")
DATE = ForbiddenRule(pattern=r"\bby (monday|friday)\b", label="date")
RULES = [REINSTALL, RESET, FIREWALL, DATE]


def violated(text: str, rules: Sequence[ForbiddenRule] = RULES) -> set[str]:
    return {v.rule.display for v in find_violations(text, rules)}


NONE: set[str] = set()

# Each row: an answer, the rules that it violates (out of RULES). Ids name the construction.
CASES = [
    # --- the brief's examples
    pytest.param("If that does not help, reinstall it.", {"reinstall"}, id="negation-in-the-other-clause"),
    pytest.param("Do not disable the firewall.", NONE, id="do-not"),
    pytest.param("Disabling the firewall is not necessary.", NONE, id="negated-predicate"),
    pytest.param("You don't need to reinstall.", NONE, id="dont-need-to"),
    pytest.param("Don't worry, just reinstall the app.", {"reinstall"}, id="dont-worry-comma"),
    pytest.param("Never reinstall unless support asks.", NONE, id="never-unless"),
    pytest.param("Instead of reinstalling, clear the cache.", NONE, id="instead-of-first"),
    pytest.param("Clear the cache instead of reinstalling.", NONE, id="instead-of-last"),
    pytest.param("Neither reinstall nor reset the device.", NONE, id="neither-nor-both-halves"),
    pytest.param("Reinstall the app, not the driver.", {"reinstall"}, id="not-the-driver"),
    pytest.param("It's not hard to reinstall it.", {"reinstall"}, id="not-hard-to"),
    pytest.param("Do not reinstall or reset the device.", NONE, id="not-a-or-b"),
    # --- plain statements
    pytest.param("Please reinstall the app.", {"reinstall"}, id="imperative"),
    pytest.param("Reinstalling usually fixes it.", {"reinstall"}, id="gerund-subject"),
    pytest.param("Try disabling the firewall for a minute.", {"disable the firewall"}, id="inflected-phrase"),
    pytest.param("The update disabled the firewall.", {"disable the firewall"}, id="past-tense-phrase"),
    pytest.param("The firewall was disabled by the update.", NONE, id="phrase-words-out-of-order"),
    pytest.param("She was resetting it when it froze.", {"reset"}, id="progressive-doubled-consonant"),
    pytest.param("Re-install the app.", {"reinstall"}, id="hyphenated-prefix"),
    pytest.param("Use the pre-reset checklist.", NONE, id="inside-compound-not-matched"),
    pytest.param("Your notes are reset-proof.", NONE, id="compound-head-not-matched"),
    # --- contractions and spellings of not
    pytest.param("Don\u2019t reinstall the app.", NONE, id="curly-apostrophe"),
    pytest.param("You shouldn\u2019t reset it.", NONE, id="shouldnt-curly"),
    pytest.param("You mustn't reset the device.", NONE, id="mustnt"),
    pytest.param("dont reinstall the app", NONE, id="dont-without-apostrophe"),
    pytest.param("We won't reset it.", NONE, id="wont"),
    pytest.param("The guide doesn't recommend reinstalling.", NONE, id="doesnt-recommend"),
    pytest.param("DO NOT REINSTALL THE APP.", NONE, id="upper-case"),
    pytest.param("I don't think you should reinstall.", NONE, id="negation-raised-over-think"),
    pytest.param("Make sure not to reset the device.", NONE, id="make-sure-not-to"),
    # --- negations that do not govern the forbidden words
    pytest.param("Doesn't matter, reinstall it.", {"reinstall"}, id="doesnt-matter"),
    pytest.param("Don't hesitate to reinstall.", {"reinstall"}, id="dont-hesitate"),
    pytest.param("Don't forget to reset the device.", {"reset"}, id="dont-forget"),
    pytest.param("It doesn't hurt to reinstall.", {"reinstall"}, id="doesnt-hurt"),
    pytest.param("It won't take long to reinstall.", {"reinstall"}, id="wont-take-long"),
    pytest.param("You won't lose any notes by reinstalling.", {"reinstall"}, id="wont-lose"),
    pytest.param("Don't just reinstall the app.", {"reinstall"}, id="not-just"),
    pytest.param("Don't worry and reinstall the app.", {"reinstall"}, id="dont-worry-and"),
    pytest.param("Reinstalling is not hard.", {"reinstall"}, id="predicate-not-hard"),
    pytest.param("Nothing beats a quick reinstall.", {"reinstall"}, id="nothing-beats"),
    pytest.param("No, reinstall the app.", {"reinstall"}, id="no-comma"),
    pytest.param("If that does not help reinstall it.", {"reinstall"}, id="conditional-without-comma"),
    # --- no / nothing / no need
    pytest.param("There is no need to reinstall.", NONE, id="there-is-no-need-to"),
    pytest.param("No need to reset anything.", NONE, id="no-need-to"),
    pytest.param("No reinstall is needed.", NONE, id="no-determiner"),
    pytest.param("Nothing needs to be reinstalled.", NONE, id="nothing-needs"),
    pytest.param("There is no reason not to reinstall.", {"reinstall"}, id="double-negation"),
    # --- prepositional negation and its scope
    pytest.param("Fix it without reinstalling.", NONE, id="without"),
    pytest.param("Please refrain from reinstalling.", NONE, id="refrain-from"),
    pytest.param("Restart rather than reinstall.", NONE, id="rather-than"),
    pytest.param("Stop reinstalling the app every week.", NONE, id="stop-gerund"),
    pytest.param("Avoid reinstalling and resetting the device.", NONE, id="avoid-two-gerunds"),
    pytest.param("Try it without reinstalling or resetting.", NONE, id="without-a-or-b"),
    pytest.param(
        "Clear the cache without restarting and reinstall the app.", {"reinstall"}, id="without-ends"
    ),
    pytest.param("Stop the sync and reinstall the app.", {"reinstall"}, id="stop-noun-then-advice"),
    pytest.param("You cannot fix this without reinstalling.", {"reinstall"}, id="cannot-without-cancels"),
    pytest.param(
        "Don't clear the cache instead of reinstalling.", {"reinstall"}, id="dont-instead-of-cancels"
    ),
    pytest.param("Don't avoid reinstalling.", {"reinstall"}, id="dont-avoid-cancels"),
    # --- clause boundaries
    pytest.param("Never reinstall; reset the device instead.", {"reset"}, id="semicolon"),
    pytest.param("Don't reinstall but reset the device.", {"reset"}, id="but"),
    pytest.param("Don't reinstall the app and then reset it.", {"reset"}, id="and-then"),
    pytest.param("Do not reinstall and never reset.", NONE, id="two-negated-conjuncts"),
    pytest.param("The app does not sync and you should reinstall it.", {"reinstall"}, id="and-you"),
    pytest.param("It does not sync so reinstall it.", {"reinstall"}, id="so"),
    pytest.param("Clear the cache, otherwise reinstall.", {"reinstall"}, id="otherwise"),
    pytest.param("Do not reinstall because it deletes local notes.", NONE, id="because-after"),
    pytest.param("Do not reset the device before reinstalling the app.", {"reinstall"}, id="before"),
    pytest.param("Restart the device \u2014 do not reinstall it.", NONE, id="em-dash"),
    pytest.param("Restart the device - then reinstall it.", {"reinstall"}, id="spaced-hyphen-dash"),
    pytest.param("Update the driver (do not reinstall it).", NONE, id="parenthesis-negated"),
    pytest.param("Reinstall the app (not the driver).", {"reinstall"}, id="parenthesis-not"),
    pytest.param("Avoid these steps: reinstalling the app.", {"reinstall"}, id="limit-colon-blocks-negation"),
    pytest.param("Have you tried reinstalling?", {"reinstall"}, id="limit-question-read-literally"),
    pytest.param("Don't close the app and reinstall it.", NONE, id="limit-lenient-and-between-verbs"),
    pytest.param("The app does not sync reinstall it.", {"reinstall"}, id="run-on-after-a-stated-negation"),
    pytest.param("It isn't responding disable the firewall.", {"disable the firewall"}, id="run-on-isnt"),
    pytest.param("It does not require reinstalling.", NONE, id="stated-negation-object-ing"),
    pytest.param("This does not require reinstall.", NONE, id="stated-negation-verb-takes-object"),
    pytest.param("I would not reinstall it.", NONE, id="modal-not-is-advice"),
    pytest.param("It does not sync, so do not reinstall it.", NONE, id="stated-then-directed-negation"),
    # --- negated lists across commas
    pytest.param("Do not reinstall, reset, or disable the firewall.", NONE, id="negated-list-oxford"),
    pytest.param("Do not reinstall, reset or disable the firewall.", NONE, id="negated-list"),
    pytest.param("Avoid reinstalling, resetting, or disabling the firewall.", NONE, id="avoid-list"),
    pytest.param("Don't reinstall, nor reset the device.", NONE, id="comma-nor"),
    pytest.param("Don't worry, reinstall or reset it.", {"reinstall", "reset"}, id="reassurance-not-a-list"),
    pytest.param("Do not reinstall, just reset it.", {"reset"}, id="comma-not-a-list"),
    pytest.param("If you can't, reinstall or reset it.", {"reinstall", "reset"}, id="condition-not-a-list"),
    pytest.param("Do not, under any circumstances, reinstall the app.", NONE, id="interrupted-negation"),
    pytest.param("Never, ever reset the device.", NONE, id="never-ever"),
    pytest.param("If you want to reinstall, please don't.", NONE, id="hypothesis-then-refusal"),
    # --- negated predicates
    pytest.param("A reinstall won't help here.", NONE, id="wont-help"),
    pytest.param("Reinstalling the app is not recommended.", NONE, id="not-recommended"),
    pytest.param("Reinstall is not needed.", NONE, id="bare-noun-not-needed"),
    pytest.param("Reinstall the app as the old version is not supported.", {"reinstall"}, id="other-subject"),
    pytest.param("Reinstalling is unnecessary.", NONE, id="rejecting-predicate"),
    pytest.param("Resetting the device is a waste of time.", NONE, id="rejecting-predicate-noun"),
    pytest.param("Reinstalling the app will definitely not help.", NONE, id="predicate-adverb"),
    pytest.param("Reinstalling is necessary.", {"reinstall"}, id="predicate-affirmative"),
    pytest.param("Resetting won't delete your notes, so go ahead.", {"reset"}, id="predicate-reassurance"),
    # --- structure: bullets, numbered steps, headings, tables, several sentences
    pytest.param("- Sign out.\n- Reinstall the app.", {"reinstall"}, id="bullet"),
    pytest.param("1. Sign out\n2. Do not reinstall the app\n3. Sign in again", NONE, id="numbered-negated"),
    pytest.param(
        "1. Do not panic\n2. Reinstall the app", {"reinstall"}, id="numbered-negation-stays-in-item"
    ),
    pytest.param("* Do not reinstall\n* Reset the device", {"reset"}, id="star-bullets"),
    pytest.param("## Do not reinstall\nReset the device.", {"reset"}, id="heading-own-sentence"),
    pytest.param("Do not reinstall. Reset the device.", {"reset"}, id="two-sentences"),
    pytest.param("Do not\nreinstall the app.", NONE, id="soft-wrapped-line"),
    pytest.param("- Do not\n  reinstall the app.", NONE, id="bullet-continuation"),
    pytest.param("| Step | Action |\n|---|---|\n| 2 | Reinstall the app |", {"reinstall"}, id="table-cell"),
    pytest.param("> Do not reinstall the app.", NONE, id="blockquote"),
    pytest.param("Run `sudo apt reinstall lumen`.", {"reinstall"}, id="inline-code-counts"),
    pytest.param("```\nlumen reinstall --all\n```", {"reinstall"}, id="code-block-counts"),
    pytest.param("See [the guide](https://help.example/reinstall-app).", NONE, id="link-target-ignored"),
    pytest.param("Do ~~not~~ reinstall the app.", {"reinstall"}, id="struck-negation-is-retracted"),
    pytest.param("**Do not** reinstall the app.", NONE, id="bold-negation"),
    pytest.param("Use e.g. the web app. Do not reinstall.", NONE, id="abbreviation-no-split"),
    # --- patterns
    pytest.param("You will have it by Friday.", {"date"}, id="pattern"),
    pytest.param("We cannot promise a fix by Friday.", NONE, id="pattern-in-negated-verb-phrase"),
    pytest.param("If it is not fixed, we will call you by Monday.", {"date"}, id="pattern-other-clause"),
    pytest.param("By Friday, the refund will be there.", {"date"}, id="pattern-leading"),
    pytest.param("We will not have it fixed by Friday.", NONE, id="pattern-will-not"),
    pytest.param("It is done by Fridays' standards.", NONE, id="pattern-word-boundary"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_reader(text: str, expected: set[str]) -> None:
    assert violated(text) == expected


def test_at_least_forty_reader_cases() -> None:
    assert len(CASES) >= 40


# ------------------------------------------------------------------------------------ rules and options

OTHER_RULES = [
    pytest.param(
        "Do not reinstall the app.",
        ForbiddenRule(phrase="reinstall", allow_negated=False),
        True,
        id="allow-negated-false-phrase",
    ),
    pytest.param(
        "We cannot promise a fix by Friday.",
        ForbiddenRule(pattern=r"\bby friday\b", allow_negated=False),
        True,
        id="allow-negated-false-pattern",
    ),
    pytest.param(
        "You get a full refund, no questions asked.",
        ForbiddenRule(pattern=r"refund, no questions asked"),
        True,
        id="pattern-across-clauses",
    ),
    pytest.param(
        "Never promise a refund, no questions asked.",
        ForbiddenRule(pattern=r"refund, no questions asked"),
        False,
        id="pattern-across-clauses-negated",
    ),
    pytest.param(
        "No refunds after 14 days.",
        ForbiddenRule(pattern=r"\bno refunds?\b"),
        True,
        id="negation-inside-the-match-does-not-excuse",
    ),
    pytest.param(
        "Support cannot turn off two-factor authentication for you.",
        ForbiddenRule(phrase="turn off two-factor"),
        False,
        id="ticket-rule-negated",
    ),
    pytest.param(
        "Just turn off two factor in Settings.",
        ForbiddenRule(phrase="turn off two-factor"),
        True,
        id="ticket-rule-hyphen-optional",
    ),
    pytest.param(
        "I can't confirm that Lumen is GDPR-compliant.",
        ForbiddenRule(phrase="is GDPR-compliant"),
        False,
        id="cannot-confirm",
    ),
    pytest.param("Good news: it's coming soon!", ForbiddenRule(phrase="coming soon"), True, id="after-colon"),
    pytest.param(
        "You have a guaranteed refund.", ForbiddenRule(phrase="guaranteed refund"), True, id="adjective"
    ),
    pytest.param(
        "A refund is not guaranteed.", ForbiddenRule(phrase="guaranteed refund"), False, id="reordered"
    ),
    pytest.param("Please install the update.", ForbiddenRule(phrase="install"), True, id="install"),
    pytest.param(
        "Use the pre-installed app.", ForbiddenRule(phrase="install"), False, id="install-in-compound"
    ),
    pytest.param(
        "Please reinstall the app.", ForbiddenRule(phrase="install"), False, id="install-in-reinstall"
    ),
    pytest.param("Factory-reset the phone.", ForbiddenRule(phrase="factory reset"), True, id="factory-reset"),
    pytest.param(
        "Try factory resetting it.", ForbiddenRule(phrase="factory reset"), True, id="factory-resetting"
    ),
    pytest.param(
        "Neither reinstall the app nor reset the device.",
        ForbiddenRule(phrase="reset the device"),
        False,
        id="nor-half-with-object",
    ),
]


@pytest.mark.parametrize(("text", "rule", "expected"), OTHER_RULES)
def test_reader_with_rule(text: str, rule: ForbiddenRule, expected: bool) -> None:
    assert bool(find_violations(text, [rule])) is expected


def test_violation_names_the_clause_sentence_and_match() -> None:
    text = "Do not reinstall the app. If that does not help, try resetting the device by Friday."
    found = find_violations(text, RULES)
    assert found == [
        Violation(RESET, "try resetting the device by Friday", 1, "resetting"),
        Violation(DATE, "try resetting the device by Friday", 1, "by Friday"),
    ]
    assert found[1].reason == 'date in "try resetting the device by Friday"'


def test_one_violation_per_rule_and_clause_in_reading_order() -> None:
    found = find_violations("Reinstall, reinstall and reinstall. Then reset.\n- Reinstall again", RULES)
    assert [(v.sentence_index, v.rule.display, v.clause) for v in found] == [
        (0, "reinstall", "Reinstall"),
        (0, "reinstall", "reinstall and reinstall"),
        (1, "reset", "Then reset"),
        (2, "reinstall", "Reinstall again"),
    ]


def test_words_the_reader_adds_under_a_negating_intro_never_match() -> None:
    # "Do not:" negates the items below it, read as "Do not reinstall the app"; those two words are the
    # reader's, not the answer's, so a forbidden "do not reinstall" is not found in them, and a reason
    # quotes the item as written.
    text = "Do not:\n\n- reinstall the app\n- disable the firewall"
    assert find_violations(text, [ForbiddenRule(phrase="do not reinstall")]) == []
    assert find_violations(text, [ForbiddenRule(pattern=r"not (re)?install")]) == []
    strict = ForbiddenRule(phrase="reinstall", allow_negated=False)
    assert find_violations(text, [strict]) == [Violation(strict, "reinstall the app", 1, "reinstall")]
    overlapping = ForbiddenRule(pattern=r"(not )?reinstall", allow_negated=False)
    assert [v.match for v in find_violations(text, [overlapping])] == ["reinstall"]


def test_no_rules_no_violations() -> None:
    assert find_violations("Reinstall it.", []) == []


def test_rule_needs_exactly_one_of_phrase_or_pattern() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ForbiddenRule()
    with pytest.raises(ValueError, match="exactly one"):
        ForbiddenRule(phrase="x", pattern="y")
    with pytest.raises(ValueError, match="invalid regular expression"):
        ForbiddenRule(pattern="(unclosed")
    with pytest.raises(ValueError, match="no words"):
        ForbiddenRule(phrase="--")


def test_rule_from_suite_spec() -> None:
    assert ForbiddenRule.from_spec("reinstall") == ForbiddenRule(phrase="reinstall")
    rule = ForbiddenRule.from_spec({"pattern": r"\bby friday\b", "allowNegated": False, "label": "date"})
    assert rule == ForbiddenRule(pattern=r"\bby friday\b", allow_negated=False, label="date")
    assert rule.display == "date"
    assert ForbiddenRule(pattern="x+").display == "/x+/"
    with pytest.raises(ValueError, match="unknown key"):
        ForbiddenRule.from_spec({"phrase": "x", "allowNegation": False})
    with pytest.raises(ValueError, match="true or false"):
        ForbiddenRule.from_spec({"phrase": "x", "allowNegated": "no"})


# ---------------------------------------------------------------------------------- sentences, clauses


def test_sentences_follow_markdown_structure() -> None:
    text = (
        "## Summary\nSync is late. Check e.g. the status page!\n\n"
        "1. Sign out\n   and back in.\n2) Update the app\n- Export 1.5 GB? Yes.\n\n---\n"
        "| a | b |\n|---|---|\n| c | d |"
    )
    assert split_sentences(text) == [
        "Summary",
        "Sync is late.",
        "Check e.g. the status page!",
        "Sign out and back in.",
        "Update the app",
        "Export 1.5 GB?",
        "Yes.",
        "a",
        "b",
        "c",
        "d",
    ]


def test_clauses_record_their_opener_and_subordination() -> None:
    clauses = split_clauses("If it is stuck at 10:30, restart it and then, unless it syncs, reinstall; done")
    assert [(c.text, c.opener, c.subordinate) for c in clauses] == [
        ("If it is stuck at 10:30", "if", True),
        ("restart it", ",", False),
        ("and then", "and then", False),
        ("unless it syncs", "unless", True),
        ("reinstall", ",", False),
        ("done", ";", False),
    ]
    assert all(c.sentence_index == 0 for c in clauses)
    assert [c.index for c in clauses] == list(range(6))


def test_first_clause_opened_by_a_subordinator_is_subordinate() -> None:
    first = split_clauses("If that does not help, reinstall it.")[0]
    assert first.opener == "if"
    assert first.subordinate


def test_clause_offsets_point_into_the_sentence() -> None:
    sentence = split_sentences("Sorry! Restart it, then \u201creinstall\u201d it.")[1]
    for clause in split_clauses("Sorry! Restart it, then \u201creinstall\u201d it."):
        if clause.sentence_index == 1:
            assert sentence[clause.start : clause.end] == clause.text


# ------------------------------------------------------------------------------------------ properties

_VERBS = ["reinstall", "reset", "delete", "uninstall", "restart", "disable"]
_NEGATIONS = [
    "Do not",
    "Don't",
    "Never",
    "Please don\u2019t",
    "You should not",
    "There is no need to",
    "Avoid",
]


@given(st.sampled_from(_VERBS), st.sampled_from(_NEGATIONS), st.sampled_from(["the app", "it", "anything"]))
def test_negated_imperative_is_fine_and_other_clause_negation_is_not(
    verb: str, negation: str, obj: str
) -> None:
    rule = ForbiddenRule(phrase=verb)
    form = verb + "ing" if negation == "Avoid" else verb
    form = form.replace("eing", "ing")
    assert find_violations(f"{negation} {form} {obj}.", [rule]) == []
    assert find_violations(f"{negation} panic, {verb} {obj}.", [rule]) != []
    assert find_violations(f"If that does not help, {verb} {obj}.", [rule]) != []


@pytest.fixture(scope="module", autouse=True)
def _models_loaded() -> None:
    """The reader loads its language models once per process, on first use: not a cost of one answer."""
    load_models()


@given(st.text(max_size=200) | st.text(alphabet="-*#|>`_~[](),;:.!? \nabnotreinstall'\u2019", max_size=120))
def test_any_text_reads_without_error(text: str) -> None:
    sentences = split_sentences(text)
    for violation in find_violations(text, RULES):
        assert violation.clause.strip()
        assert violation.sentence_index < len(sentences)
    for clause in split_clauses(text):
        assert sentences[clause.sentence_index][clause.start : clause.end] == clause.text


_CLAUSE_WORDS = st.sampled_from(
    [
        *("if", "If", "IF", "and", "or", "you", "then", "so", "instead", "of", "rather", "than", "as"),
        *("soon", "in", "case", "reinstall", "x", "it", "\u0130f", "\u017fo", "1", "wait"),
    ]
)


@given(st.lists(st.tuples(_CLAUSE_WORDS, st.sampled_from([" ", "  ", "'", "-", ", ", "\n", "_", "."]))))
def test_a_sentence_without_an_opening_word_is_cut_as_the_full_search_cuts_it(
    pieces: list[tuple[str, str]],
) -> None:
    # The reader hands `clauses_of` the sentence's words so a sentence none of whose words opens a
    # clause skips the conjunction search; the clauses must be those the search finds.
    sentence = "".join(word + gap for word, gap in pieces)
    words = [token.text for token in tokenize(sentence)]
    assert clauses_of(sentence, 0, words) == clauses_of(sentence, 0)


# -------------------------------------------------------------------------------- the bundled example

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "support-desk"


@pytest.mark.skipif(not EXAMPLE.is_dir(), reason="example suite not present")
def test_example_answers_violate_exactly_where_the_example_says() -> None:
    suite = yaml.safe_load((EXAMPLE / "suite.yaml").read_text())
    tickets = yaml.safe_load((EXAMPLE / "tickets.yaml").read_text())["tickets"]
    policy = next(j for j in suite["judges"] if j["type"] == "policy")
    suite_rules = [ForbiddenRule.from_spec(f) for f in policy["forbidden"]]
    flagged: dict[str, set[str]] = {"v0": set(), "v1": set()}
    for brain, ids in flagged.items():
        for ticket in tickets:
            rules = suite_rules + [ForbiddenRule.from_spec(f) for f in ticket["key"].get("forbidden", [])]
            answer = (EXAMPLE / "answers" / brain / ticket["id"] / "answer.md").read_text()
            if find_violations(answer, rules):
                ids.add(ticket["id"])
    # answers/README.md: v0 violates on T-001, T-003, T-008, T-010 (T-009's "Do not reinstall" is fine).
    assert flagged == {"v0": {"T-001", "T-003", "T-008", "T-010"}, "v1": set()}
