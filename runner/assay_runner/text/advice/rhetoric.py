"""Rhetorical questions: one that suggests the action ("Why not reinstall?", "Have you tried ...?") and
one that rejects it ("Why would you wipe the device?", "Isn't a reset overkill?")."""

from __future__ import annotations

from assay_runner.text.advice.cues import _cues
from assay_runner.text.head_words import CuePrefix

_RHETORICAL_ADVICE = _cues(
    r"\bwhy not\b",
    r"\bwhy (?:don'?t|do not) (?:you|we)\b",
    r"\b(?:wouldn'?t|would not|won'?t) it be (?:easier|simpler|better|quicker|faster|best|wise)\b",
    r"\b(?:isn'?t|is it not) it (?:time|best|better|easier)\b",
    r"\b(?:couldn'?t|could|can'?t|can) (?:you|we) (?:just|simply)\b",
    r"\b(?:how|what) about\b",
    r"\bhave you (?:considered|thought about|thought of|tried)\b",
    r"\bwhat'?s (?:stopping you|the harm|wrong with)\b",
    r"\bnothing (?:stops|prevents|keeps) you from\b|\b(?:there'?s|there is) nothing wrong with\b",
    r"\bwouldn'?t (?:a|an|the)\b",
    r"\bpourquoi (?:ne )?pas\b",
    r"\bpor qu[ée] no\b",
    r"\bwarum nicht\b",
    r"\bperché non\b|\bpor ?que não\b|\bwaarom niet\b|\bdlaczego nie\b",
    r"\b(?:hai|avete|ha) (?:già )?provato\b|\b(?:já )?(?:tentou|experimentou)\b|\b(?:al )?geprobeerd\b|"
    r"\bpróbował(?:eś|aś|iście)\b|\bavez-vous essayé\b|\bas-tu essayé\b|\b(?:has|ha) (?:probado|intentado)\b",
    # "have you thought of": the verb of thinking in the second person's perfect, in each language
    r"\b(?:avez-vous|as-tu) (?:déjà )?pensé à\b|\b(?:ha|has|han) pensado en\b|\b(?:ha|hai|avete) (?:già )?"
    r"pensato (?:a|di)\b|\b(?:já )?pensou em\b|\b(?:heeft u|heb je|hebt u) (?:er ?aan|eraan) gedacht\b|"
    r"\b(?:haben sie|hast du) (?:schon )?(?:einmal )?daran gedacht\b|"
    r"\bczy (?:po)?myślał(?:a)?(?: pan| pani)?\b",
)
_RHETORICAL_REJECTION = _cues(
    r"^why (?:would|should|on earth|ever|risk|lose|bother)\b",
    r"^why\b(?! (?:not|don'?t|do not)\b)",
    r"\bwho (?:would|in their right mind)\b",
    r"\bwhat (?:good|use|difference) would\b",
    r"\b(?:isn'?t|is not) (?:that|this|it|\w+ing\b.*) (?:a bit |rather |too |somewhat )?"
    r"(?:drastic|overkill|excessive|extreme|much)\b",
)


def rhetorical_rejection(text: str, at: int) -> bool:
    """Does a question reject the match it holds at `at` ("Why would you ...?", "Isn't a reset overkill?")?"""
    return bool(_RHETORICAL_REJECTION.search(_sentence_head(text, at)))


# Every cue above is at most this many characters long (`tests/unit/test_policy_cost.py` holds it).
_RHETORICAL_WIDTH = 80
_RHETORICAL_BEFORE = CuePrefix(_RHETORICAL_ADVICE, _RHETORICAL_WIDTH)


def rhetorical_advice(text: str, at: int) -> bool:
    """Does the sentence `text` before the match at offset `at` suggest it as a question ("Why not ...")?"""
    return _RHETORICAL_BEFORE.before(text, at)


def _sentence_head(text: str, at: int) -> str:
    return " ".join(text[:at].casefold().replace("\u2019", "'").split()) + " " + text[at:].casefold()
