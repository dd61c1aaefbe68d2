"""textmatch: normalisation, tokens, the light stemmer, and phrase matching with the hyphen rule."""

from __future__ import annotations

import re
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay_runner.text.fold import fold
from assay_runner.text.markdown import normalize
from assay_runner.text.match import Words, find_phrase, mentions, phrase_tokens
from assay_runner.text.tokens import _TOKEN, Token, stem, tokenize

# ------------------------------------------------------------------------------------------------ stem

SAME_STEM = [
    pytest.param(["disable", "disables", "disabled", "disabling"], id="disable"),
    pytest.param(["reinstall", "reinstalls", "reinstalled", "reinstalling"], id="reinstall"),
    pytest.param(["restart", "restarts", "restarted", "restarting"], id="restart"),
    pytest.param(["delete", "deletes", "deleted", "deleting"], id="delete"),
    pytest.param(["reset", "resets", "resetting"], id="reset-doubled-consonant"),
    pytest.param(["stop", "stops", "stopped", "stopping"], id="stop-doubled-consonant"),
    pytest.param(["cache", "caches", "cached", "caching"], id="cache-silent-e"),
    pytest.param(["battery", "batteries"], id="ies-plural"),
    pytest.param(["try", "tries", "tried", "trying"], id="short-y-verb"),
    pytest.param(["setting", "settings", "set"], id="settings"),
    pytest.param(["use", "uses", "used", "using"], id="use-irregular-table"),
    pytest.param(["install", "installs", "installed", "installing"], id="install-keeps-ll"),
    pytest.param(["day", "days"], id="day"),
    pytest.param(["app", "apps", "app's"], id="possessive"),
    pytest.param(["match", "matches"], id="es-plural"),
]


@pytest.mark.parametrize("words", SAME_STEM)
def test_inflections_share_a_stem(words: list[str]) -> None:
    assert len({stem(w) for w in words}) == 1, {w: stem(w) for w in words}


DIFFERENT_STEM = [
    pytest.param("install", "reinstall", id="install-vs-reinstall"),
    pytest.param("reset", "restart", id="reset-vs-restart"),
    pytest.param("string", "sting", id="string-not-cut"),
    pytest.param("thing", "the", id="thing-not-cut"),
    pytest.param("evening", "even", id="evening-kept"),
    pytest.param("news", "new", id="news-kept"),
    pytest.param("need", "ne", id="need-not-cut"),
    pytest.param("status", "statu", id="status-keeps-us"),
    pytest.param("access", "acces", id="access-keeps-ss"),
    pytest.param("don't", "do", id="contraction-kept-whole"),
    pytest.param("installation", "install", id="no-derivation"),
    pytest.param("one", "on", id="short-word-kept"),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT_STEM)
def test_conservative_stemmer_keeps_unrelated_words_apart(a: str, b: str) -> None:
    assert stem(a) != stem(b)


def test_stem_is_case_and_apostrophe_insensitive() -> None:
    assert stem("DISABLING") == stem("disable")
    assert stem("Don\u2019t") == "don't"


# -------------------------------------------------------------------------------------------- tokenize


def test_tokens_keep_contractions_and_decimal_numbers() -> None:
    words = [t.text for t in tokenize("Don\u2019t wait: it's 1.5 GB at 10:30, or 1,000 notes; won't/can't.")]
    assert words == [
        "don't",
        "wait",
        "it's",
        "1.5",
        "gb",
        "at",
        "10:30",
        "or",
        "1,000",
        "notes",
        "won't",
        "can't",
    ]


def test_token_offsets_index_the_given_string() -> None:
    text = "Open **Settings** \u2192 Billing"
    for token in tokenize(text):
        assert text[token.start : token.end].casefold() == token.text


def _tokenize_word_by_word(text: str) -> list[Token]:
    """The tokeniser's definition, one match at a time (`tokenize` does the same in bulk)."""
    tokens: list[Token] = []
    previous_end, previous = -2, ""
    for m in _TOKEN.finditer(text):
        word = m.group().casefold().replace("\u2019", "'")
        if re.search(r"[^\W\d_]\d|\d[^\W\d_]", word):  # leetspeak: a letter next to a digit
            word = word.translate(str.maketrans("013457", "oieast"))
        gap = text[m.start() - 1] if m.start() else ""
        joined = m.start() - previous_end == 1 and (
            gap in "-_\u2010\u2011" or (previous == "re" and gap in " \n")
        )
        tokens.append(Token(word, stem(word), m.start(), m.end(), joined))
        previous_end, previous = m.end(), word
    return tokens


@settings(max_examples=500)
@given(st.text(alphabet="aRe -_\u2010\u2011'\u2019.,:19\n\u00dfI\u0130\ufb01\u03a3x", max_size=40))
def test_bulk_tokenising_reads_each_word_as_one_at_a_time_would(text: str) -> None:
    assert tokenize(text) == _tokenize_word_by_word(text)


def test_hyphen_and_underscore_join_compounds_but_dashes_do_not() -> None:
    tokens = tokenize("two-factor snake_case a - b c--d")
    assert [(t.text, t.joined) for t in tokens] == [
        ("two", False),
        ("factor", True),
        ("snake", False),
        ("case", True),
        ("a", False),
        ("b", False),
        ("c", False),
        ("d", False),
    ]


# ------------------------------------------------------------------------------------------- normalize

NORMALIZE = [
    pytest.param("**Do not** reinstall", "Do not reinstall", id="bold"),
    pytest.param("Do *not* _reinstall_", "Do not reinstall", id="italics"),
    pytest.param("Run `lumen --reset`", "Run lumen --reset", id="inline-code"),
    pytest.param(
        "See [the guide](https://x.example/reinstall-app)", "See the guide", id="link-target-dropped"
    ),
    pytest.param("![reset screen](img.png)", "reset screen", id="image-alt-kept"),
    pytest.param("Do ~~not~~ reinstall", "Do   reinstall", id="strike-through-dropped"),
    pytest.param("a <!-- hidden reinstall --> b", "a  b", id="html-comment-dropped"),
    pytest.param("re<!-- x -->install", "reinstall", id="html-comment-inside-a-word-joins-it"),
    pytest.param("re<em>install</em>", "reinstall", id="inline-tag-inside-a-word-joins-it"),
    pytest.param("line<br>break", "line break", id="html-tag"),
    pytest.param("Don\u2019t \u201cwait\u201d", 'Don\'t "wait"', id="curly-quotes"),
    pytest.param("* bullet *stays*", "- bullet stays", id="bullet-written-as-dash"),
    pytest.param("keep snake_case", "keep snake_case", id="inner-underscore-kept"),
    pytest.param("```bash\nlumen reinstall\n```", "lumen reinstall", id="code-kept-fence-dropped"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE)
def test_normalize_strips_markdown_decoration(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@given(st.text(max_size=80))
def test_fold_is_idempotent(text: str) -> None:
    once = fold(text)
    assert fold(once) == once


# Text with no markdown or HTML punctuation: what the renderer shows of it is stable when read again.
_PROSE = st.text(alphabet="abcXYZ019 .,?'\n\t", max_size=60)


@given(_PROSE)
def test_rendered_prose_reads_the_same_again(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


def test_nested_markup_reads_as_commonmark_renders_it() -> None:
    # A link cannot contain a link: the inner one is the link, the outer brackets stay text.
    assert normalize("[[a](b)](c)") == "[a](c)"
    assert normalize("**[~~KB-1003~~ KB-1004](https://x.example/KB-1005)**") == "KB-1004"
    assert (
        normalize("> quoted **[link](https://x.example/hidden)** text") == "> quoted link text"
    )  # a block quote keeps its marker


# -------------------------------------------------------------------------------------------- mentions

MENTIONS = [
    # (text, phrase, expected)
    pytest.param("Refunds are possible within 30 days.", "30 days", True, id="plain"),
    pytest.param("REFUNDS WITHIN 30 DAYS", "30 days", True, id="case"),
    pytest.param("within a 30-day window", "30 days", True, id="hyphenated-in-text-and-plural"),
    pytest.param("within 3 days", "30 days", False, id="other-number"),
    pytest.param("within 30 business days", "30 days", False, id="not-contiguous"),
    pytest.param("Turn on two-factor authentication.", "two-factor authentication", True, id="hyphen-both"),
    pytest.param(
        "Turn on two factor authentication.", "two-factor authentication", True, id="hyphen-in-phrase"
    ),
    pytest.param(
        "Turn on two-factor authentication.", "two factor authentication", True, id="hyphen-in-text"
    ),
    pytest.param("Turn on 2FA.", "two-factor authentication", False, id="no-abbreviations"),
    pytest.param(
        "Turn on two-factor authentication.", "factor authentication", False, id="starts-in-compound"
    ),
    pytest.param("Open **Settings > Billing**.", "Settings > Billing", True, id="markdown-nav"),
    pytest.param("Open Settings \u2192 Billing.", "Settings > Billing", True, id="other-arrow"),
    pytest.param("Open Settings and then Billing.", "Settings > Billing", False, id="nav-extra-words"),
    pytest.param("Choose `Help > Sync now`.", "Help > Sync now", True, id="inline-code-nav"),
    pytest.param("It was factory resetting itself.", "factory reset", True, id="inflected-last-word"),
    pytest.param("Factory-reset the phone.", "factory reset", True, id="hyphenated-compound-verb"),
    pytest.param("Disabling it helps.", "disable", True, id="gerund"),
    pytest.param("Re-install the app.", "reinstall", True, id="re-hyphen-prefix"),
    pytest.param("Use the pre-installed app.", "install", False, id="install-in-pre-install"),
    pytest.param("A reset-proof case.", "reset", False, id="reset-in-reset-proof"),
    pytest.param("Please reinstall it.", "install", False, id="install-in-reinstall"),
    pytest.param("Send an e-mail to us.", "email", True, id="e-mail-joined"),
    pytest.param("Send an email to us.", "e-mail", True, id="email-phrase-hyphen"),
    pytest.param("Write to no-reply@lumen-notes.example", "no-reply@lumen-notes.example", True, id="address"),
    pytest.param("Don\u2019t panic.", "don't panic", True, id="curly-apostrophe"),
    pytest.param("See [Billing help](https://x.example/30-days)", "30 days", False, id="link-target-ignored"),
    pytest.param("Resets take 5 minutes.", "reset", True, id="plural-noun"),
    pytest.param("It takes 1.5 hours.", "1.5 hours", True, id="decimal"),
    pytest.param("It takes 1 5 hours.", "1.5 hours", False, id="decimal-kept-whole"),
    pytest.param("", "30 days", False, id="empty-answer"),
]


@pytest.mark.parametrize(("text", "phrase", "expected"), MENTIONS)
def test_mentions(text: str, phrase: str, expected: bool) -> None:
    assert mentions(text, phrase) is expected


def test_phrase_without_words_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="no words"):
        phrase_tokens(" > ")


def test_find_phrase_reports_every_span_in_token_indices() -> None:
    tokens = tokenize("Reset it, then reset-proof, then re-set it")
    assert find_phrase(tokens, "reset") == [(0, 1), (6, 8)]


_WORDS = st.sampled_from(
    ["open", "settings", "billing", "reinstall", "the", "app", "30", "days", "can't", "sync"]
)


@given(st.lists(_WORDS, min_size=1, max_size=12), st.data())
def test_any_contiguous_run_of_words_is_mentioned(words: list[str], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i + 1, len(words)))
    separators = data.draw(st.lists(st.sampled_from([" ", ", ", " > ", "; ", "\n"]), min_size=len(words)))
    text = "".join(w + sep for w, sep in zip(words, separators, strict=False))
    phrase = " ".join(words[i:j])
    assert mentions(text.upper(), phrase)
    assert mentions(text, phrase.title())


_PHRASE_WORDS = ["re", "install", "reinstall", "re-install", "not", "the", "scope", "out", "of", "two-factor"]
_PHRASE_WORDS += ["factor", "two", "KB-1003", "e-mail", "email", "resetting", "reset"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*_PHRASE_WORDS, " ", "-", ", ", "\n"]), min_size=1, max_size=40),
    st.lists(st.lists(st.sampled_from(_PHRASE_WORDS), min_size=1, max_size=4), min_size=1, max_size=12),
)
def test_the_indexed_search_finds_what_the_plain_search_finds(
    pieces: list[str], phrases: list[list[str]]
) -> None:
    # `Words` looks a phrase up by its rarest word (scanning for it, and after eight phrases in an index
    # of every word); a plain token list is scanned from the first word.
    tokens = tokenize(" ".join(pieces))
    words = Words(tokens)
    for phrase in map(" ".join, phrases):
        assert find_phrase(words, phrase) == find_phrase(tokens, phrase)


def test_threads_sharing_one_answer_find_every_match() -> None:
    # Two cells with the same answer share its reading from two threads; the index of word positions
    # that phrase search builds after a few lookups must never be seen half built.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, mid-build included
    try:
        phrases = [f"word{k}" for k in range(40)]
        tokens = tokenize(" ".join(f"word{k % 40} filler" for k in range(40_000)))
        expected = {phrase: find_phrase(tokens, phrase) for phrase in phrases}
        for _ in range(5):
            words = Words(tokens)
            found: dict[str, list[tuple[int, int]]] = {}

            def search(part: list[str], words: Words = words, found: dict = found) -> None:
                for phrase in part:
                    found[phrase] = find_phrase(words, phrase)

            threads = [threading.Thread(target=search, args=(phrases[k::4],)) for k in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert found == expected
    finally:
        sys.setswitchinterval(old)
