"""A short sentence after a report that disowns it, read by its structure (`reply_polarity`):

- **we do not take it up**: a first person plural, as a pronoun or a verb's ending, with a negation ("We
  don't back that", "Für dieses Modell tragen wir das nicht mit", "Ce n'est pas une pratique que nous
  validons", "No es algo que demos por bueno", "W przypadku tego modelu tego nie popieramy");
- **far more often than needed**: "That is far more often than it needs", "C'est beaucoup trop souvent",
  "Das ist viel zu häufig", "Dat is veel vaker dan nodig", "To o wiele częściej, niż potrzeba".

Not a negated doubt ("We don't doubt she's right"), a negation that intensifies ("We can't recommend it
highly enough", "Nous ne saurions trop vous le recommander", "nunca é demais"), nor one about what we know
("We're not sure"): those endorse it or say nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.stance.words import _SUBORDINATORS, _negator, _set, _words

# The first person plural as a pronoun, and as a verb's ending where the pronoun is dropped.
_WE = _set("we we're we've we'd we'll nous wir nosotros nosotras noi nós wij my")
_WE_ENDINGS = {
    "es": ("amos", "emos", "imos"),
    "pt": ("amos", "emos", "imos"),
    "it": ("iamo", "remmo"),
    "pl": ("amy", "emy", "imy", "ymy"),
}
# Words with those endings that do not refuse: not verbs ("los mismos", "los últimos", "ambos"), or "we
# have" ("Não temos essa peça" says what is in stock).
_NOT_VERBS = _set("mismos últimos próximos ambos primos ramos temos tenemos")
# A negation that intensifies: "can't recommend it enough", "ne saurions trop", "nunca é demais", "nicht
# genug", "no ... lo suficiente", "non ... di più", "niet genoeg", "nie ... wystarczająco".
_INTENSIFIERS = _set(
    """enough highly stress emphasise emphasize overstate assez trop genug genügend suficiente bastante
    abbastanza più demais genoeg wystarczająco dość"""
)
# Doubting, and knowing: a negated doubt agrees, a negated knowing says nothing of the advice.
_DOUBTING = ("doubt", "dout", "zweifel", "dud", "dubit", "duvid", "twijfel", "wątpi")
_DOUBT_OR_KNOWING = (
    *_DOUBTING,
    *("sure", "know", "certain", "sicher", "wiss", "segur", "sab", "sicur", "sapp", "certez", "zeker"),
    *("weet", "pewn", "wiem"),
)
# Far more often than needed, in the eight languages.
_TOO_OFTEN = re.compile(
    r"\b(?:too\s+(?:often|frequent\w*)|more\s+often\s+than|trop\s+(?:souvent|fréquent\w*)|plus\s+souvent\s+que|"
    r"zu\s+(?:oft|häufig)|öfter\s+als|häufiger\s+als|demasiad[oa]s?\s+(?:a\s+menudo|frecuente\w*|veces)|"
    r"más\s+a\s+menudo\s+de|troppo\s+(?:spesso|frequente\w*)|più\s+spesso\s+d\w*|"
    r"demasiad[oa]s?\s+(?:vezes|frequente\w*)|mais\s+vezes\s+do|te\s+vaak|vaker\s+dan|zbyt\s+często|"
    r"częściej,?\s+niż)\b",
    re.IGNORECASE,
)
_CLAUSE_WORDS = 14  # a sentence that disowns the one before it is short
# Where a clause that may disown ends: a colon, a semicolon, or a comma before a conjunction ("We've seen
# no evidence for it, and it isn't something we'd pass on").
_CLAUSES = re.compile(r"[:;]|,\s+(?=(?:and|but|et|mais|und|aber|y|pero|e|ma|mas|en|maar|i|ale|a)\b)")
# Disagreeing, in the eight languages: "I'd gently disagree", "Je ne partage pas cet avis", "Das sehen
# wir anders", "Permítame discrepar", "Non siamo d'accordo", "Discordamos", "Daar zijn we het niet mee
# eens", "Nie zgadzamy się z tym".
_DISAGREE = re.compile(
    r"\b(?:disagree|(?:do not|don't|cannot|can't) agree|see (?:it|that|this) differently|beg to differ|"
    r"ne partage\w* pas|pas d'accord|désapprouv\w*|sehen (?:wir|das|es) anders|nicht einverstanden|"
    r"widersprech\w*|discrep\w+|no (?:estoy|estamos) de acuerdo|no compart\w+|non (?:sono|siamo) d'accordo|"
    r"dissent\w+|non condivid\w+|discord\w+|não concord\w+|não partilh\w+|oneens|niet mee eens|"
    r"zien (?:dat|we dat|wij dat) anders|nie zgadz\w+|nie zgodzić|inne zdanie)\b"
)
# Refusing what was reported, or saying it does not apply: "don't do it", "no lo haga", "non lo faccia",
# "não o faça", "doe dat niet", "nie rób tego", "tun Sie das nicht", "ne le faites pas" (a verb of
# doing: "Ne le laissez pas plein" refuses something else), "das gilt nicht", "ne s'applique pas", "no
# se aplica", "non vale", "não se aplica", "geldt niet", "nie dotyczy", and German and Dutch advising
# against with the particle apart ("raten wir davon ausdrücklich ab", "raden we dat sterk af").
_REFUSED = re.compile(
    r"\b(?:don't do (?:it|that|this)|do not do (?:it|that|this)|ne le (?:faites|fais) pas|"
    r"ne faites pas (?:ça|cela)|(?:tun|machen) sie (?:das|es) (?:bitte )?nicht|no lo hag\w+|"
    r"non (?:lo )?facc\w+|non farlo|não o faç\w+|não faça isso|doe (?:dat|het) (?:\w+ )?niet|"
    r"nie rób(?:cie)? tego|"
    r"proszę tego nie robić|(?:gilt|gelten) (?:das|dies|es|dieser rat) (?:\w+ )?nicht|"
    r"ne s'applique pas|no se aplica|non (?:vale|si applica)|não se aplica|geldt (?:dat|het) (?:\w+ )?niet|"
    r"nie dotyczy|(?:raten|rate) (?:wir|ich) (?:\w+ ){0,3}ab|(?:raden|raad) (?:we|wij|ik) (?:\w+ ){0,3}af)\b"
)
# A disagreement denied: "We don't disagree", "Wir widersprechen nicht", "Non dissentiamo affatto".
_DISAGREEMENT_DENIED = re.compile(
    r"(?:\b(?:not|never|nicht|nie|no|non|não|niet|pas)|n't)\s+(?:\w+\s+)?(?:disagree|widersprech|discrep|"
    r"dissent|discord|oneens)|(?:widersprech\w*|dissent\w*|discrep\w*)\s+(?:\w+\s+)?(?:nicht|non|no)\b"
)
# Not ours: "..., not our advice", "no la nuestra", "niet ons advies", "a nie nasze zalecenie", "não uma
# recomendação nossa", "nicht unsere Empfehlung", "pas notre conseil", "non la nostra".
_NOT_OURS = re.compile(
    r"\b(?:not (?:ours|our \w+)|pas (?:le |la )?nôtre|pas notre \w+|nicht unser\w*|"
    r"no (?:la |el |es )?nuestr\w*|non (?:è )?(?:la |il )?nostr\w*|não (?:é )?(?:a |o )?noss\w*|"
    r"não (?:é )?uma? \w+ noss\w*|niet (?:de |het )?(?:onze|ons)\b|nie (?:jest |są )?nasz\w*)"
)


def disowns(text: str, language: str) -> bool:
    """Does this sentence, after a report, say we do not take it up or that it is far too often?"""
    if text.rstrip().endswith("?"):
        return False
    return any(_disowning_clause(clause, language) for clause in _CLAUSES.split(text.strip()))


def _disowning_clause(clause: str, language: str) -> bool:
    words = _words(clause)
    if not words or len(words) > _CLAUSE_WORDS:
        return False
    if _TOO_OFTEN.search(clause) and not any(_negator(w, language) for w in words):
        return True
    folded = clause.casefold().replace("\u2019", "'")
    if _DISAGREEMENT_DENIED.search(folded):
        return False  # "We don't disagree", "Dem widersprechen wir nicht": it agrees
    if _DISAGREE.search(folded) or _NOT_OURS.search(folded) or _REFUSED.search(folded):
        return True  # "I'd gently disagree", "Permítame discrepar", "..., niet ons advies", "no lo haga"
    if intensified(words) or any(w.startswith(_DOUBT_OR_KNOWING) for w in words):
        return False
    # The negation and the "we" in one clause, not a condition's: "Wenn das nicht hilft, schicken wir
    # einen Techniker" and "Helpt dat niet, dan sturen we een monteur" offer more help.
    return any(_we_refuse(_words(part), language) for part in clause.split(","))


def _we_refuse(words: Sequence[str], language: str) -> bool:
    """A clause, not a condition, with a "we" and a negation."""
    if not words or words[0] in _SUBORDINATORS:
        return False
    return _we(words, language) and any(_negator(w, language) for w in words)


def doubts(words: Sequence[str]) -> bool:
    """A verb of doubting: negated ("We don't doubt she's right", "No dudamos de que tenga razón"), it
    agrees."""
    return any(w.startswith(_DOUBTING) for w in words)


def negated_doubt(text: str, language: str) -> bool:
    """Does the sentence open with a negated doubt ("We don't doubt she's right", "No dudamos de que tenga
    razón", "Nie wątpimy, że ma rację", "Wir zweifeln nicht daran")?"""
    words = _words(text)[:_DOUBT_WORDS]
    return doubts(words) and any(_negator(w, language) for w in words)


_DOUBT_WORDS = 4  # the negated doubt opens its sentence


def intensified(words: Sequence[str]) -> bool:
    """A negation that intensifies rather than refuses: "can't recommend it highly enough", "no podemos
    recomendarlo lo suficiente", "non potremmo consigliarlo di più", "nunca é demais recomendá-lo"."""
    return not _INTENSIFIERS.isdisjoint(words)


def _we(words: Sequence[str], language: str) -> bool:
    if not _WE.isdisjoint(words):
        return True
    endings = _WE_ENDINGS.get(language, ())
    return any(len(w) > _SHORTEST and w.endswith(endings) and w not in _NOT_VERBS for w in words)


_SHORTEST = 5  # letters: "vamos" and "samy" are not read as verbs of ours
