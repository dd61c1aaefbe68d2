"""Languages whose phrases match with their words in any order within a few extra words (Polish; Italian and
Portuguese for a possessive), and the languages matched clause by clause."""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.match.verb_first import VERB_FIRST
from assay_runner.text.tokens import Token

# Polish orders a phrase's words freely ("Zainstaluj aplikację ponownie", "Zainstaluj go ponownie");
# Italian and Portuguese put a possessive inside it ("elimina il tuo profilo", "apague o seu perfil"):
# their phrases also match with every word within this many extra words, in any order.
_SLACK = {"pl": 2, "it": 1, "pt": 1}


# Languages whose phrases are matched clause by clause (their matches are not one run of words).
CLAUSE_MATCHED = VERB_FIRST | frozenset(_SLACK)


def free_order(tokens: Sequence[Token], wanted: Sequence[Token], slack: int) -> list[tuple[int, int]]:
    """Each span that starts at a word of the phrase and holds all of them within `slack` extra words."""
    need = [t.stem for t in wanted]
    if len(need) < 2:
        return []
    spans = []
    for i, token in enumerate(tokens):
        if token.stem not in need:
            continue
        remaining = list(need)
        for j in range(i, min(len(tokens), i + len(need) + slack)):
            if tokens[j].stem in remaining:
                remaining.remove(tokens[j].stem)
                if not remaining:
                    spans.append((i, j + 1))
                    break
    return spans
