"""What the policy reader looks for and what it reports: forbidden items (`ForbiddenRule`) and the
places it found them (`Violation`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay_runner.text.match import phrase_tokens
from assay_runner.text.patterns import compile_pattern

__all__ = ["ForbiddenRule", "Violation"]


@dataclass(frozen=True)
class ForbiddenRule:
    """One forbidden item: a plain phrase or a regular expression (exactly one)."""

    phrase: str | None = None
    """A plain phrase, matched with `text.match` semantics (whole words, inflection-tolerant)."""
    pattern: str | None = None
    """A regular expression, matched case-insensitively against each clause's (normalised) text."""
    allow_negated: bool = True
    """If True, a clause that negates the forbidden words does not count."""
    label: str | None = None
    """How to name the item in reasons (defaults to the phrase or the pattern)."""

    def __post_init__(self) -> None:
        if (self.phrase is None) == (self.pattern is None):
            raise ValueError("a forbidden rule needs exactly one of 'phrase' or 'pattern'")
        if self.phrase is not None:
            phrase_tokens(self.phrase)  # raises ValueError on a phrase with no words
        elif self.pattern is not None:
            compile_pattern(self.pattern)  # raises PatternError (a ValueError)

    @property
    def display(self) -> str:
        """The name used in reasons: the label, else the phrase, else the pattern."""
        return self.label or self.phrase or f"/{self.pattern}/"

    @classmethod
    def from_spec(cls, spec: str | Mapping[str, object]) -> ForbiddenRule:
        """A rule from its suite form: ``"reinstall"`` or ``{pattern: ..., allowNegated: false}``."""
        if isinstance(spec, str):
            return cls(phrase=spec)
        known = {"phrase", "pattern", "allowNegated", "allow_negated", "label"}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise ValueError(f"unknown key(s) in forbidden item: {', '.join(unknown)}")
        allow = spec.get("allowNegated", spec.get("allow_negated", True))
        if not isinstance(allow, bool):
            raise ValueError("allowNegated must be true or false")
        return cls(
            phrase=_optional_str(spec, "phrase"),
            pattern=_optional_str(spec, "pattern"),
            allow_negated=allow,
            label=_optional_str(spec, "label"),
        )


def _optional_str(spec: Mapping[str, object], key: str) -> str | None:
    value = spec.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


@dataclass(frozen=True)
class Violation:
    """A forbidden item found, not negated, in one clause."""

    rule: ForbiddenRule
    clause: str
    """The offending clause text, trimmed (the whole sentence when the match crosses clauses)."""
    sentence_index: int
    match: str = ""
    """The words that matched."""
    uncertain: str | None = None
    """Why a rule-based reading cannot tell whether this recommends the item (a quotation, a reported
    suggestion, a question left unanswered, ...); None when it plainly does."""

    @property
    def reason(self) -> str:
        return f'{self.rule.display} in "{self.clause}"'
