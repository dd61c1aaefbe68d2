"""Loading what the reader loads lazily on first use, ahead of a measurement or a test."""

from __future__ import annotations

from assay_runner.text.language.identification import _confidence
from assay_runner.text.language.lemmas import _LEMMA_ENDINGS, _lemma_key
from assay_runner.text.language.names import LANGUAGES, Language


def load_models(languages: frozenset[Language] = frozenset(LANGUAGES)) -> None:
    """Load what the reader loads lazily on first use (lingua's models, each language's dictionary):
    for a measurement of the load, or a test whose first answer must not pay it."""
    _confidence("reinstall the application now", languages)
    for language in languages & frozenset(_LEMMA_ENDINGS):
        _lemma_key("warmup", language)
