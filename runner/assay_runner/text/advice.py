"""What a sentence does with forbidden words it does not negate: advise them, clear them, or leave it open.

Negation (`text.negation`) answers "is the action negated?". Many sentences that mention a forbidden
action without negating it still do not recommend it, and some that negate words still do:

- **advises**: an instruction (the match heads its clause: "Reinstall the app", "Then reinstall"), an
  advice frame before it ("you should", "we recommend", "the fix is to", "try", "il faut", "debe"), a
  clause opened by an imperative verb ("Run `x` to delete the profile"), a rhetorical suggestion ("Why
  not reinstall?", "Wouldn't it be easier to reinstall?", "How about reinstalling?" — read before
  negation, so "why not" does not clear it), a question answered yes, a subject with a positive
  predicate ("Reinstalling fixes it", "The fix is a reinstall"), a cell in a table's Do/Fix column or
  in a row whose verdict is yes, a quotation or report the answer endorses ("..., and I agree").
- **clears**: a warning (a subject with a consequence: "Deleting the profile will lose your notes"), a
  hypothesis ("If you reinstall, you lose your files"), a rhetorical rejection ("Why would you wipe the
  device?", "Why reinstall when ...?"), a question answered no, a cell in a Don't/Avoid column or in a
  row whose verdict is no, a quotation or report the answer rejects ("Some forums recommend wiping the
  device; we don't", "Ignore any pop-up saying ...").
- **uncertain**: a quotation or a report with no stance, a question left unanswered, a subject with a
  neutral predicate ("Reinstalling is one option"), a mention in no shape above. The reader says so
  (`Violation.uncertain`) instead of guessing; the policy judge treats it as the suite configures.

A pattern (a date promise, a claim) is a statement, not an action: a mention in no shape above is a
violation, not uncertain.

The stance of a quotation, report or question comes from the rest of its sentence and from the next
sentence (`reply`): "yes", "no", "endorse" or "reject", read by cue words (`reply_of`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal, NamedTuple

from assay_runner.text.head_words import Before, ClauseWords, CuePrefix, CueWords
from assay_runner.text.match import DETERMINERS
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance import (
    BECAUSE,
    BETTER,
    addressee_report,
    conditional_consequence,
    consequence,
    contrast_cost,
    helps,
    judged_worse,
    reassures,
    refuses_to_advise,
    reply_polarity,
    reports_before,
    stated_after_that,
    warned,
    why_question,
)
from assay_runner.text.stance.words import _WINDOW

__all__ = [
    "ADVISES",
    "CLEARS",
    "Facts",
    "Outcome",
    "facts_of",
    "reply_of",
    "rhetorical_advice",
    "rhetorical_rejection",
    "weigh",
]

Stance = Literal["yes", "no", "endorse", "reject"] | None


class Outcome(NamedTuple):
    kind: Literal["advises", "clears", "uncertain"]
    reason: str = ""


ADVISES = Outcome("advises")
CLEARS = Outcome("clears")


class Facts(NamedTuple):
    """What a sentence's neighbours and structure say, besides its own words (part of its reading key)."""

    question: bool
    quotes: tuple[tuple[int, int], ...]
    """Spans of the sentence inside quotation marks."""
    quoted: bool
    """The sentence is in a block quote."""
    column: Stance
    """A table cell: what its column's header says ("Don't" -> no, "Fix" -> yes)."""
    row: Stance
    """A table cell: what a verdict cell in its row says ("Yes", "Not recommended")."""
    reply: Stance
    """What the next sentence says about this one."""
    language: str = "en"
    """The answer's language (`text.language`)."""
    shaped: Stance = None
    """What the next sentence's structure says of this one when no cue word decides (`text.stance`)."""
    explained: bool = False
    """The next sentence gives a reason ("Because ..."): a why-question it follows is not rhetorical."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _cues(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# ------------------------------------------------------------------------------------ stance of a text

_NO = _cues(
    r"^(?:no|nope|non|nein|never|jamais|nunca|nie|not|nothing|none|rien|nada|nichts)\b",
    r"^(?:não|nao|nee|neen|nooit|mai|niente|nulla|nic|nigdy|nicht|niet|keineswegs|geenszins)\b",
    r"^(?:inutile|unnötig|onnodig|innecesario|desnecessário|zbędne|niepotrzebne)\b",
    r"^(?:absolutely|certainly|definitely|of course|unfortunately|sadly|probably|really|surely),? not\b",
    r"^not (?:at all|really|needed|necessary|required)\b",
    r"^(?:it|that|this) (?:can'?t|cannot|won'?t|doesn'?t|does not|will not|isn'?t)\b",
    r"^(?:we|i) (?:don'?t|do not|would not|wouldn'?t) (?:recommend|advise|suggest)\b",
    r"^(?:we|i) (?:advise|recommend|would advise|'d advise) against\b",
    r"^no need\b",
)
_YES = _cues(
    r"^(?:yes|yeah|yep|yup|oui|s[ií]|ja|sure|absolutely|definitely|of course|indeed|correct|certainly)\b",
    r"^(?:sim|certo|certamente|zeker|tak|owszem|esatto)\b",
    r"^(?:sadly|unfortunately|in most cases|usually|generally),? (?:yes|it does|it will|you do|you should)\b",
    r"^(?:it|that|this) (?:does|will|can|should|helps|works)\b",
    r"[,;:]\s*yes\s*[.!]*$",
    r"^(?:for|in|on|with) [\w\s'-]{1,40}, yes\b",
)
# A short reply that only refuses ("Don't.", "Please don't.", "Never do it.").
_BARE_REFUSAL = _cues(r"^(?:please )?(?:don'?t|do not|never|no)\b(?! need)")
_REJECT = _cues(
    r"\b(?:we|i) (?:don'?t|do not|wouldn'?t|would not)\b(?! (?:know|have))",
    r"\bignore (?:it|them|that|this|those|any|the)\b",
    r"\bskip (?:it|that|this)\b",
    r"\b(?:bad|wrong|poor|outdated|old|dangerous) advice\b",
    r"\b(?:a|was a|is a|would be a) mistake\b",
    r"\b(?:is|was|that'?s|it'?s) wrong\b",
    r"\b(?:outdated|obsolete|misleading|fake|phishing|scam|scammers|fraud|retired|overkill)\b",
    r"\b(?:arnaque|escroquerie|hameçonnage|betrug|betrugsversuch|estafa|fraude|timo|truffa|golpe|"
    r"oplichting|nep|oszustwo|oszustwem|wyłudzenie)\b",
    r"\bno longer\b",
    r"\brarely (?:helps|works|fixes)\b",
    r"\b(?:won'?t|will not|doesn'?t|does not|didn'?t|did not|can'?t|cannot|wouldn'?t|would not) "
    r"(?:help|fix|work|solve|resolve)\b",
    r"\bnot (?:true|needed|necessary|required|recommended|advised|advisable|one we recommend|the answer)\b",
    r"\b(?:decided|advise|advises|recommend|recommends|argue|caution|warn) against\b",
    r"\bwe say no\b",
    r"\bnot (?:for )?yours\b",
    r"\bhold off\b",
    r"\b(?:there'?s|there is) no (?:reason|need)\b",
    r"\b(?:has been|was|have been) (?:removed|retired|withdrawn|dropped)\b",
    r"\bnever (?:do|the answer|a good idea)\b",
    r"\b(?:that|this|it) (?:loses|erases|deletes|wipes|destroys)\b",
    r"\bonly for\b",
    r"\b(?:ne )?sert à rien\b|\best inutile\b|\bno sirve de nada\b|\bes inútil\b",
    r"\bbringt nichts\b|\bist unnötig\b",
    r"\b(?:non è|não é|n'est pas|no es|ist keine?|is geen|nie jest) (?:una |uma |une |een )?"
    r"(?:buona idea|boa ideia|bonne idée|buena idea|gute idee|goed idee|dobrym pomysłem)\b",
    r"\b(?:cattiva|pessima|brutta) idea\b|\b(?:má|péssima) ideia\b|\bmauvaise idée\b|"
    r"\b(?:mala|pésima) idea\b|\bschlechte idee\b|\bslecht idee\b|\b(?:zły|kiepski|fatalny) pomysł\b",
    # "..., which is a bad idea", not "it's not a bad idea"
    r"(?<!not )(?<!not a )(?<!n't a )(?<!never a )\b(?:a )?(?:bad|terrible|poor|awful|horrible) idea\b",
    # "..., but that is dangerous", in every language: a contrast that calls the report a risk
    r"\b(?:but|mais|aber|pero|ma|mas|maar|ale)\b.{0,30}\b(?:dangerous|risky|unsafe|harmful|a risk|dangereux|"
    r"dangereuse|risqué|risquée|gefährlich|riskant|unsicher|peligroso|peligrosa|arriesgado|arriesgada|"
    r"pericoloso|pericolosa|rischioso|rischiosa|perigoso|perigosa|arriscado|arriscada|gevaarlijk|"
    r"onveilig|niebezpieczne|niebezpieczny|niebezpieczna|ryzykowne|ryzykowny)\b",
    # "..., but that voids the warranty": a contrast that costs the warranty
    r"\b(?:but|mais|aber|pero|ma|mas|maar|ale)\b.{0,40}\b(?:warranty|garantie|garantía|garanzia|garantia|"
    r"gwarancj\w*)\b",
    # German and Dutch advising against, the particle after the verb: "davon raten wir ab", "dat raden we af"
    r"\b(?:raten|rate) (?:wir|ich) (?:ihnen |dir |euch )?(?:davon |dringend |eher )*ab\b|"
    r"\bdavon raten (?:wir|ich)\b.{0,20}\bab\b|"
    r"\b(?:raden|raad) (?:wij|we|ik) (?:dat |het |u |je |ten zeerste )*af\b|"
    r"\b(?:dat|dit) raden (?:wij|we|ik)\b.{0,20}\baf\b",
    r"\b(?:sconsigliat[oa]|desaconselh\w*|odradza\w*|afgeraden|niet aan te raden|déconseillé|"
    r"desaconsej\w*|nicht empfohlen|non consigliato|não recomendado|no recomendado|niet aanbevolen|"
    r"nie zalecane)\b",
    r"\bnon serve a (?:nulla|niente)\b|\bè inutile\b|\bnão (?:resolve|adianta|serve)\b|\bé inútil\b",
    # the answer's own advice against it: "mais nous le déconseillons", "ma lo sconsigliamo", "mas não
    # recomendamos isso", "but please don't", "aber das empfehlen wir nicht", "nie polecamy"
    r"\b(?:déconseill\w*|sconsigli\w*|desaconsejamos|desaconsejo|odradzamy|odradzam|ontraden|ontraad)\b",
    r"\b(?:no|não|non|ne|nie)\s+(?:\w+\s+){0,2}(?:recomendamos|recomiendo|recomendo|consigliamo|consiglio|"
    r"raccomandiamo|recommandons|recommande|conseillons|conseille|polecamy|zalecamy|radzimy)\b",
    r"\b(?:empfehlen|raten|adviseren|raden) (?:wir|ich|we|wij|ik) (?:\w+ )?(?:nicht|niet)\b",
    r"\bplease don'?t\s*(?:[.!;]|$)",
    r"\bnot something (?:we|i) (?:can |could |would |'d |)(?:recommend|advise|suggest)\b",
    # pointless: "non serve", "no tiene sentido", "hat keinen Sinn", "heeft geen zin", "nie ma sensu"
    r"\b(?:non serve|no sirve|não serve|ne sert (?:à )?rien|n'a aucun sens|no tiene sentido|non ha senso|"
    r"não faz sentido|hat keinen sinn|heeft geen zin|nie ma sensu|nic nie da|bringt (?:\w+ )?nichts|"
    r"aucun intérêt|no point|ist sinnlos)\b",
    # no effect: "won't change anything", "ne changera rien", "ändert hier nichts", "nic nie zmieni"
    r"\b(?:won'?t|will not|doesn'?t|does not|wouldn'?t) change (?:anything|a thing|much)\b|"
    r"\bne changera(?:it)? rien\b|\bändert (?:\w+ )?nichts\b|\bno cambiará nada\b|\bnon cambierà nulla\b|"
    r"\bnão vai mudar nada\b|\bverandert (?:\w+ )?niets\b|\bnic (?:\w+ )?nie zmieni\b",
    r"\bhelpt niet\b|\bis (?:onnodig|zinloos)\b|\bnic nie (?:da|daje|pomoże|pomaga)\b|\bjest zbędne\b",
    r"\bnot what we\b",
)
_ENDORSE = _cues(
    r"\bplease (?:do|follow)\b",
    r"\b(?:so |and )?do (?:that|so|it|this)\b",
    r"\bfollow (?:it|that|them|this|those|these|the steps)\b",
    r"\b(?:i|we) (?:agree|concur)\b",
    r"\b(?:siamo d'accordo|sono d'accordo|concordamos|concordo|het (?:daarmee |ermee )?eens|"
    r"zgadzamy się|zgadzam się|nous sommes d'accord|je suis d'accord|estamos de acuerdo|"
    r"stimmen (?:dem )?zu|stimme (?:dem )?zu)\b",
    r"\b(?:they are|they're|it is|that is|that's|it's|he is|he's|she is|she's|you are|you're) "
    r"(?:right|correct)\b",
    r"\b(?:that|this|it) (?:is|'s|was) the right (?:call|move|decision|choice|thing to do)\b",
    # "he is right" in the other languages: "il a raison", "hat recht", "tiene razón", "ma rację"
    r"\b(?:a|ont|avez|hat|haben|tiene|tienen|ha|hanno|tem|têm|heeft|hebben|ma|mają|avait|avaient|hatte|"
    r"hatten|tenía|tenían|tuvo|aveva|avevano|tinha|tinham|had|miał|miała|mieli) "
    r"(?:bien |völlig |toda la |pienamente |toda a |helemaal |całkowicie )?"
    r"(?:raison|recht|razón|ragione|razão|gelijk|rację)\b",
    r"\bapplies to you\b",
    r"\b(?:that|this|it) (?:is|'s) (?:the fix|the solution|the answer|what you should do|exactly what)\b",
    r"\bexactly what\b",
    r"\b(?:recommend|suggest) (?:it|that|this)? ?too\b",
    r"\bwhat we recommend\b",
    r"\bdo the same\b",
    r"\bit works\b",
    r"\bgo ahead\b",
    r"\b(?:go for it|allez-y|vas-y|nur zu|adelante|vada pure|vai pure|vá em frente|ga je gang|śmiało)\b",
    r"\bofficial (?:instruction|advice|fix)\b",
    r"\bfixed it for everyone\b",
)


# The rejections and endorsements of the other languages, searched only in a sentence with one of their
# words (`_MORE_WORDS`): most sentences of a long English answer hold none, and skip them.
_REJECT_MORE = _cues(
    r"\b(?:is not|isn'?t|n'est pas|no es|non è|não é|ist keine?|is geen|nie jest) "
    r"(?:an? |une |una |uma |un'|een )?"
    r"(?:option|opción|opzione|opção|optie|opcją|opcja|solution|solución|soluzione|solução|lösung|"
    r"oplossing|rozwiązaniem|rozwiązanie)\b",
    # "it rarely helps", "you would lose your purchases", in the other languages too
    r"\b(?:seldom (?:helps|works)|(?:aide|marche|fonctionne|sert) rarement|rara vez (?:ayuda|funciona|sirve)|"
    r"raramente (?:aiuta|funziona|serve|ajuda|funciona|resolve)|(?:helpt|werkt) (?:zelden|meestal niet)|"
    r"(?:hilft|funktioniert) (?:\w+ )?selten|rzadko (?:to )?(?:pomaga|działa))\b",
    r"\b(?:you'?d lose|you would lose|you'?ll lose|you will lose|vous perdriez|vous perdrez|tu perdrais|"
    r"perdería|perderías|perderá|perderesti|perderebbe|perderete|perderia|perderá|verliert? (?:u|je)|"
    r"(?:bent|ben) (?:u|je) .{0,40}kwijt|verlieren sie|sind (?:ihre|deine) .{0,40}weg|straci(?:sz)?|"
    r"stracą|stracił\w*)\b",
    # "that won't fix it" in the other languages
    r"\b(?:ne (?:résoudra|résout|règle|réglera|corrige|corrigera|réparera|aidera)|no (?:soluciona|"
    r"solucionará|resuelve|resolverá|arregla|arreglará|ayuda|ayudará)|non (?:risolve|risolverà|sistema|"
    r"aiuta|aiuterà)|não (?:resolverá|ajuda|ajudará|corrige)|nie (?:naprawi|naprawia|rozwiąże|rozwiązuje|"
    r"pomoże|pomaga)|(?:löst|behebt|hilft) (?:\w+ )?(?:keinen|keine|kein|nicht))\b",
    r"\blost\b.{0,40}\bniet op\b",
    r"\b(?:bezcelowe|bezcelowy|bezużyteczne|niepotrzebne|sinnlos|zwecklos|nutteloos|inutile|inutili)\b",
)
_ENDORSE_MORE = _cues(
    # "... and we recommend it too" in the other languages: a first-party recommendation with "also"
    r"\b(?:conseillons|recommandons|recomendamos|aconsejamos|consigliamo|raccomandiamo|aconselhamos|"
    r"adviseren wij|raden wij|zalecamy|polecamy|radzimy|empfehlen wir|raten wir)\b.{0,30}"
    r"\b(?:aussi|también|anche|também|ook|też|auch)\b",
    r"\b(?:aussi|también|anche|também|ook|też|auch)\b.{0,30}\b(?:conseillons|recommandons|recomendamos|"
    r"aconsejamos|consigliamo|raccomandiamo|aconselhamos|adviseren|raden|zalecamy|polecamy|radzimy|"
    r"empfehlen|raten)\b",
)
_MORE_WORDS = _words(
    """option opción opzione opção optie opcją opcja solution solución soluzione solução lösung oplossing
    rozwiązaniem rozwiązanie seldom rarement rara raramente zelden meestal selten rzadko lose perdriez
    perdrez perdrais perdería perderías perderá perderesti perderebbe perderete perderia verliest verliet
    verliert kwijt verlieren weg straci stracisz stracą stracił stracili ne no non não nie löst behebt hilft
    niet bezcelowe bezcelowy bezużyteczne niepotrzebne sinnlos zwecklos nutteloos inutile inutili aussi
    también anche também ook też auch you'd you'll"""
)


# Every branch of `_REJECT` and `_ENDORSE` needs one of these words: a sentence with none of them is not
# searched (most sentences of a long answer), and the stance is read in one pass over its words.
_STANCE_WORDS = _words(
    """don't dont do never no we i ignore skip advice mistake wrong outdated obsolete misleading fake
    phishing scam scammers fraud retired overkill longer rarely won't wont will doesn't doesnt does didn't
    didnt did can't cant cannot wouldn't wouldnt would not against say yours hold there's there removed
    withdrawn dropped loses erases deletes wipes destroys only sert inutile sirve inútil bringt unnötig
    please follow agree concur right correct applies fix solution answer exactly too recommend same works
    ahead official everyone serve resolve è é n'est es ist is jest idea ideia idée idee pomysłem pomysł
    cattiva má mauvaise mala schlechte slecht zły sconsigliato sconsigliata desaconselhado desaconselhável
    desaconselhamos desaconselho odradzamy odradzam odradza odradzane afgeraden aan déconseillé
    desaconsejado desaconsejable desaconsejamos empfohlen consigliato recomendado aanbevolen zalecane
    d'accordo d'accord concordamos concordo eens zgadzamy zgadzam accord acuerdo zu adianta helpt
    onnodig zinloos
    nic zbędne perché porque que raten rate raden raad ab af but mais aber pero ma mas maar ale
    sens sentido senso sinn zin sensu nichts da something change changera ändert cambiará cambierà mudar
    verandert zmieni warranty garantie garantía garanzia garantia
    gwarancję gwarancji gwarancja intérêt go allez-y vas-y nur adelante vada vai vá ga śmiało
    arnaque escroquerie hameçonnage betrug betrugsversuch estafa fraude timo truffa golpe oplichting nep
    oszustwo oszustwem wyłudzenie
    déconseillons déconseille sconsigliamo sconsiglio desaconsejo ontraden ontraad recomendamos recomiendo
    recomendo consigliamo consiglio raccomandiamo recommandons recommande conseillons conseille polecamy
    zalecamy radzimy empfehlen adviseren odradzam
    waarom dlaczego raison recht razón ragione razão gelijk rację"""
)
_WORD = re.compile(r"[\w']+")


def _may_take_a_stance(folded: str) -> bool:
    words = _WORD.findall(folded)
    return not _STANCE_WORDS.isdisjoint(words) or not _MORE_WORDS.isdisjoint(words)


@lru_cache(maxsize=4096)
def _may_take_more(folded: str) -> bool:
    return not _MORE_WORDS.isdisjoint(_WORD.findall(folded))


def _rejected(folded: str) -> bool:
    return _REJECT.search(folded) is not None or (
        _may_take_more(folded) and _REJECT_MORE.search(folded) is not None
    )


def _endorsed(folded: str) -> bool:
    return _ENDORSE.search(folded) is not None or (
        _may_take_more(folded) and _ENDORSE_MORE.search(folded) is not None
    )


@lru_cache(maxsize=4096)
def reply_of(text: str, language: str = "en") -> Stance:
    """What a sentence says about the one before it: an answer (yes/no) or a stance (endorse/reject)."""
    folded = " ".join(text.casefold().replace("\u2019", "'").split()).strip(" \"'")
    if (_NO.search(folded) and not _PREPOSITION_NO.get(language, _NEVER).search(folded)) or _short_no(folded):
        # "It won't hurt.", "It does not take long.": a negated cost reassures, it does not say no
        return None if reassures(_WORD.findall(folded)) and not _BARE_NO.search(folded) else "no"
    if _YES.search(folded):
        return "yes"
    if not _may_take_a_stance(folded):
        return None
    if _rejected(folded) or (len(folded.split()) <= 4 and _BARE_REFUSAL.search(folded)):
        return "reject"
    if _endorsed(folded):
        return "endorse"
    return "reject" if contrast_cost(folded) else None


# Portuguese "no" is "in the" ("No seu caso, ..."), not an answer.
_NEVER = re.compile(r"(?!)")
_BARE_NO = _cues(r"^(?:no|nope|non|nein|nee|não|nie)\b[,.!]")
_PREPOSITION_NO = {"pt": re.compile(r"^no\s+\w")}


def _short_no(folded: str) -> bool:
    """A reply of a few words with a negation: "Pas vraiment.", "Eher nicht.", "Raczej nie.", "Niet echt."."""
    words = _WORD.findall(folded)
    if not 0 < len(words) <= 3 or folded.endswith("?"):
        return False
    return words[0] in _SHORT_NEGATIONS or words[-1] in _SHORT_NEGATIONS  # not "Do not wait."


_SHORT_NEGATIONS = _words("not pas nicht nie niet no non não nao nein nee neen nope")


def _stance_of(text: str) -> Stance:
    """The stance of the rest of a sentence (outside the match's clause or quotation)."""
    folded = " ".join(text.casefold().replace("\u2019", "'").split())
    if not _may_take_a_stance(folded):
        return None
    if _rejected(folded):
        return "reject"
    if _endorsed(folded):
        return "endorse"
    return "reject" if contrast_cost(folded) else None


_NEGATIVE_HEADER = _cues(
    r"\b(?:don'?t|do not|avoid|never|not|no|bad|wrong|risky)\b", "\u274c", "\u2716", "\U0001f6ab"
)
_POSITIVE_HEADER = _cues(
    r"\b(?:do|fix|fixes|solution|solutions|action|actions|steps?|task|workaround|remedy|recommended|try|use|"
    r"safe|yes)\b",
    "\u2705",
    "\u2714",
)
_VERDICT_NO = _cues(
    r"^(?:no|never|not recommended|not advised|avoid|don'?t|do not|not needed|not required|optional)\b"
)
_VERDICT_YES = _cues(r"^(?:yes|required|recommended|always|needed|necessary|must)\b")


def column_stance(header: str) -> Stance:
    if not header:
        return None
    if _NEGATIVE_HEADER.search(header):
        return "no"
    return "yes" if _POSITIVE_HEADER.search(header) else None


def row_stance(cells: Sequence[str]) -> Stance:
    """A verdict cell in the row ("Yes", "No", "Not recommended", "Required")."""
    for cell in cells:
        text = cell.strip().casefold().rstrip(".!")
        if len(text.split()) <= 3:
            if _VERDICT_NO.search(text):
                return "no"
            if _VERDICT_YES.search(text):
                return "yes"
    return None


_QUOTE = re.compile(r"\"[^\"]+\"|(?<![\w])'[^']+'(?![\w])")


def facts_of(
    text: str,
    quoted: bool,
    column: str,
    row: Sequence[str],
    following: str | None,
    language: str = "en",
) -> Facts:
    reply = reply_of(following, language) if following else None
    return Facts(
        question=text.rstrip().endswith("?"),
        quotes=tuple(m.span() for m in _QUOTE.finditer(text)) if ('"' in text or "'" in text) else (),
        quoted=quoted,
        column=column_stance(column),
        row=row_stance(row),
        reply=reply,
        language=language,
        shaped=reply_polarity(following, language) if following and reply is None else None,
        explained=bool(following and BECAUSE.search(following)),
    )


# ------------------------------------------------------------------------------- the shape of a clause

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


# Words that may come before an instruction's verb without changing it: "Please just reinstall".
_LEAD_IN = _words(
    """please just simply then now first next also so and or finally instead quickly kindly go ahead here
    try to do afterwards immediately later again still maybe perhaps ideally definitely really
    veuillez merci de bitte einfach dann danach anschließend zuerst por favor luego después ensuite puis
    alors d'abord simplement poi quindi prima ora adesso semplicemente depois então primeiro agora
    simplesmente daarna dan eerst nu alstublieft gewoon vervolgens następnie potem najpierw teraz proszę
    po prostu"""
)
# An imperative verb at the head of a clause: the clause instructs, and a forbidden phrase later in it
# ("Run `x` to delete the profile", "Go to Settings > Delete the profile") is part of the instruction.
_IMPERATIVE = _words(
    """run use type paste enter click tap press open go follow see try check restart reboot install
    update upgrade delete remove wipe reset disable enable turn roll share clear sign log contact call back
    save export import download select choose set visit read make keep ask tell send let get put add move
    copy close quit restore reinstall uninstall start launch execute apply switch change edit create
    connect disconnect unplug plug hold wait give take find look navigate head scroll accept allow grant
    confirm submit fill complete repair rebuild refresh flush purge format erase drop kill force pick
    mark toggle unlink unpair pair downgrade upgrade consider remember"""
)
# Advice frames: one of these before the match in its clause makes the clause advice.
_FRAME = _cues(
    r"\b(?:you|u|y'all|one) (?:should|must|need to|needs to|have to|has to|can|could|may want to|"
    r"might want to|will want to|'ll want to|will need to|'ll need to|'d better|had better|ought to|want to|"
    r"are advised to)\b",
    r"\b(?:we|i) (?:recommend|suggest|advise|would|'d|urge|propose)\b",
    r"\b(?:our|my|support'?s|the) (?:advice|recommendation|suggestion) (?:is|was)\b",
    r"\b(?:it is|it's|it'?d be|it would be) (?:best|better|safest|advisable|wise|time|worth) (?:to|trying)\b",
    r"\b(?:the|your|our) (?:only |best |quickest |easiest |simplest |real |right |next )?"
    r"(?:fix|solution|workaround|answer|remedy|option|step|bet|way forward|trick|cure) (?:is|was|would be)\b",
    r"\b(?:make sure|be sure|remember|don'?t forget|feel free|go ahead|you'?ll want) (?:to|and|you)\b",
    r"\b(?:need|needs|have|has) to\b",
    r"\b(?:try|consider|recommend|suggest)\b",
    r"\bil (?:faut|suffit de)\b",
    r"\bvous (?:pouvez|devez|devriez)\b",
    r"\b(?:la (?:seule )?solution est de|essayez de|pensez à|merci de)\b",
    r"\b(?:debe|debería|deberías|hay que|tiene que|tienes que|puede|puedes|la solución es|intente|pruebe)\b",
    r"\b(?:(?:ti |vi )?basta|wystarczy|il suffit|basta con|es genügt|het volstaat|vale a pena|warto|"
    r"mieux vaut|conviene|es lohnt sich|het is verstandig|sollten sie|à notre avis|naszym zdaniem)\b",
    r"\b(?:sie (?:sollten|müssen|können)|am besten|die lösung|versuchen sie|man sollte|du solltest|bitte|"
    r"(?:wir|ich) (?:empfehlen|empfehle|raten|rate) (?:ihnen|dir|euch)|es ist (?:besser|ratsam|sinnvoll))\b",
    r"\b(?:devi|dovete|deve|dovresti|dovreste|puoi|potete|può|bisogna|occorre|conviene|è meglio|"
    r"(?:la (?:sola |unica |migliore )?)?soluzione è|ti consiglio|vi consiglio|consigliamo|suggeriamo|"
    r"ti suggerisco|prova a|provate a|prova|provi|ti conviene|per favore)\b",
    r"\b(?:você deve|deve|devem|deveria|deveriam|pode|podem|é preciso|é necessário|recomendo|"
    r"recomendamos|sugerimos|sugiro|aconselho|aconselhamos|tente|experimente|(?:a (?:única |melhor )?)?"
    r"solução é|o melhor é|por favor)\b",
    r"\b(?:u moet|je moet|moet|moeten|u kunt|je kunt|kunt|zou|zoudt|raden (?:wij |we |u )?aan|"
    r"adviseren|adviseer|raad (?:ik |je |u )?aan|probeer|de oplossing is|het beste is|het best|"
    r"het is beter|het lijkt (?:me |ons )?(?:beter|verstandig))\b",
    r"\b(?:musisz|musicie|należy|trzeba|powinieneś|powinnaś|powinien|powinna|powinniście|możesz|"
    r"możecie|zalecamy|zalecam|sugerujemy|sugeruję|radzę|radzimy|spróbuj|spróbujcie|rozwiązaniem jest|"
    r"rozwiązanie to|najlepiej|proszę)\b",
)
# A third party reporting a suggestion: "Some forums recommend ...", "Older guides tell you to ...".
_REPORTING = _cues(
    r"\b(?:recommends?|recommended|suggests?|suggested|says?|said|tells? (?:you|people|users)|"
    r"told (?:you|me|us)|advises?|advised|claims?|claimed|proposes?|proposed|insists?|insisted|mentions?|"
    r"mentioned|asks? you|asked you|be asked|read (?:online )?that|hear that|heard that|posts?|posted|"
    r"writes?|wrote)\b",
    r"\b(?:suggerisce|suggeriscono|consiglia|consigliano|raccomanda|dice|dicono|sugere|sugerem|recomenda|"
    r"recomendam|aconselha|diz|dizem|raadt aan|raden aan|adviseert|zegt|zeggen|suggereert|radzą|radzi|"
    r"zaleca|zalecają|sugeruje|mówi|mówią|suggère|recommande|conseille|dit|disent|sugiere|recomienda|"
    r"aconseja|dice|dicen|empfiehlt|empfehlen|rät|sagt|sagen|schlägt vor|schlagen vor|raten|geraten|"
    r"empfohlen|vorgeschlagen|recommandent|conseillent|suggèrent|conseillé|recommandé|suggéré|"
    r"recomiendan|sugieren|aconsejan|aconsejó|recomendó|sugirió|consigliato|suggerito|aconselhou|"
    r"recomendou|sugeriu|adviseren|aanraadde|aanraden|aangeraden|polecają|poleca|doradził\w*|radził\w*|"
    r"zalecił\w*)\b",
    # someone's opinion reported: "Ein Kollege meint, ...", "Un collègue pense que ..."
    r"\b(?:thinks|believes|meint|meinen|glaubt|schreibt|behauptet|behaupten|pense|pensent|écrit|affirme|"
    r"piensa|cree|escribe|afirma|pensa|crede|scrive|sostiene|acha|escreve|denkt|vindt|schrijft|beweert|"
    r"uważa|uważają|pisze|twierdzi|twierdzą)\b",
    r"\b(?:according to|selon|laut|según|secondo|segundo|volgens|według|zufolge)\b",
)
# Both are searched in the words before a match (`Before.holds`): a match spans at most this many words
# (`tests/unit/test_policy_cost.py` holds it).
_FRAME_WORDS = CueWords(_FRAME, 6)
_REPORTING_WORDS = CueWords(_REPORTING, 3)
_FIRST_PARTY = _cues(r"\b(?:we|i|our|my|us|support|support'?s|nous|wir|ich|nosotros|noi|nós|wij|ik)\b")
_LATER_REPORT = _cues(r"^(?:some|they|people|others|many|a few|most) (?:say|said|suggest|claim|recommend)\b")
_SUBJECTS = _words("you someone anyone somebody anybody they we i he she")
_HYPOTHETICAL = frozenset({"if", "unless", "whether", "in case", "when", "whenever"})
# "If" and "when" in the other languages, read only at the head of a clause (Spanish "se" is a pronoun,
# so these never cut a clause), and the subject pronouns that may stand between them and the verb.
_FOREIGN_IF = _words(
    "si quand lorsque cuando se quando als wanneer indien wenn falls sobald jeśli jeżeli gdy kiedy"
)
_FOREIGN_SUBJECTS = _words(
    "vous tu on usted ustedes tú você vocês voi lei tu u je jij we ze het sie du man ty wy pan pani "
    "l' ne en y lo la gli ci vi"
)
# A condition's subject and the object's article or possessive ("Wenn Sie das Konto löschen", "Als u uw
# account verwijdert", "Si vous supprimez votre compte").
_CONDITION_FILLERS = _FOREIGN_SUBJECTS | DETERMINERS
# What a subject's predicate says about doing it.
_POSITIVE = _cues(
    r"\b(?:fix|fixes|fixed|solve|solves|solved|resolve|resolves|resolved|help|helps|helped|works?|worked|"
    r"cures?|clears? (?:it|this|that) up|does the trick|sorts? (?:it|this) out)\b",
    r"\b(?:is|are|was|would be|remains) (?:the |your |a |an |our )?(?:fix|solution|answer|way forward|"
    r"best|only|quickest|easiest|simplest|safest|recommended|right|next step|trick|cure|way to go|"
    r"necessary|required|needed|safe|fine|ok|okay|the way)\b",
    r"\b(?:recommended|necessary|required|needed|advisable|your best bet)\b",
)
_WARNING = _cues(
    r"\b(?:los(?:e|es|ing)|lost|eras(?:e|es|ing)|delet(?:e|es|ing)|remov(?:e|es|ing)|wip(?:e|es|ing)|"
    r"resets?|resetting|signs? you out|logs? you out|signs? out|voids?|expos(?:e|es|ing)|exposed|"
    r"weakens?|bricks?|breaks?|destroys?|undone|permanent|irreversible|destructive|dangerous|risky|"
    r"drastic|full access|cannot be reversed|can'?t be reversed|wipes? out|clears? (?:all|your|every)|"
    r"effacera|supprimera|perdrez|perdra|perderá|perderás|eliminará|borrará|entfernen|entfernt|"
    r"cancellerà|eliminerà|perderai|perderà|perderete|cancella|apagará|vai (?:eliminar|apagar|perder)|"
    r"wist|verwijdert|verlies|verliest|kwijt|skasuje|usunie|stracisz|utracisz|straci|"
    r"apaga|cancella|efface|löscht|usuwa|kasuje|borra|"
    r"verlieren|gelöscht)\b"
)


def _is_subject(words: Sequence[str], start: int, end: int, before: Before, language: str = "en") -> bool:
    """Is the match the subject of its clause: a gerund, a noun after a determiner, a word followed by a
    verb ("Reinstall is not needed"), or in French and Spanish an infinitive ("Supprimer le profil
    effacera vos notes"; the imperative is "Supprimez")?"""
    if language in _INFINITIVES and not before and words[start].endswith(_INFINITIVES[language]):
        return True
    if (
        end < len(words)
        # "Het profiel verwijderen wist ...", "Das Gerät zurücksetzen löscht ...": an infinitive after at
        # most a determiner, with a verb after it (an instruction's infinitive ends its clause)
        and (
            (language in ("nl", "de") and words[end - 1].endswith("en") and before.all_in(_DETERMINERS))
            or (language == "pl" and not before and words[start].endswith(("nie", "cie")))  # "Usunięcie"
        )
    ):
        return True
    if before.any_in(_TAKES_A_GERUND):
        return False  # "try resetting": the object of the instruction
    if end < len(words) and language != "en" and consequence(words[end], language):
        return True  # "Zresetować kartę chipową oznaczałoby ...": no instruction is followed by a conditional
    if words[start].endswith("ing") or before.any_in(_BEFORE_A_SUBJECT):
        return True
    after = words[end] if end < len(words) else ""
    return after in _VERBS or after.endswith("n't")


# An infinitive at the head of a clause is its subject in these languages (the imperative differs).
_INFINITIVES = {
    "fr": ("er", "ir", "re", "ar"),
    "es": ("er", "ir", "ar"),
    "it": ("are", "ere", "ire"),
    "pt": ("ar", "er", "ir"),
}
_DETERMINERS = _words("het de een das die der den dem ein eine einen")
_TAKES_A_GERUND = _words("try consider keep start go recommend suggest")
_VERBS = _words(
    """is are was were will would can could may might does did has have had should must won't isn't
    wasn't usually always often never rarely ne n' no nicht est es ist non è é não nao niet helpt
    nie nic jest"""
)


def weigh(
    words: Sequence[str],
    start: int,
    end: int,
    clause: ClauseWords,
    opener: str | None,
    subordinate: bool,
    text: str,
    at: int,
    facts: Facts,
    pattern: bool,
) -> Outcome:
    """What the clause `words` (opened by `opener`; its own words `clause` from `clause.body` on) does
    with the match `words[start:end]`, which lies at offset `at` of its sentence `text`. Negation was read
    before. The words before the match are read from the clause's index (`Before`), and the sentence's
    text around it within the window each shape reads: a clause of thousands of matches stays linear."""
    body = clause.body
    before = clause.before(start)
    # A table cell: its row's verdict, else its column's.
    if facts.row is not None or facts.column is not None:
        table = facts.row if facts.row is not None else facts.column
        return ADVISES if table == "yes" else CLEARS
    quoted = facts.quoted or any(s <= at < e for s, e in facts.quotes)
    if quoted:
        rest = _outside_quotes(text, facts.quotes)
        stance = _stance_of(rest) or facts.reply or facts.shaped
        if stance in ("yes", "endorse"):
            return ADVISES
        if stance in ("no", "reject"):
            return CLEARS
        return Outcome("uncertain", "a quotation the answer neither endorses nor rejects")
    if facts.question:
        if rhetorical_rejection(text, at):
            return CLEARS
        reply = facts.reply or facts.shaped
        if reply in ("yes", "endorse"):
            return ADVISES
        if reply in ("no", "reject"):
            return CLEARS
        if why_question(text[:at], facts.language, facts.explained) == "clears":
            return CLEARS  # "Warum den Treiber deinstallieren, wenn ein Neustart reicht?"
        return Outcome("uncertain", "a question the answer leaves unanswered")
    if _asked(text, at):
        return _answered(text, at, facts)
    # (the shape reads a head of at most `_WINDOW` characters and the first `_WINDOW` after the match)
    if conditional_consequence(text[: min(at, _WINDOW + 1)], text[at : at + _WINDOW], facts.language):
        return CLEARS  # "Should you unlink the account, pending payouts will be cancelled"
    subject = _is_subject(words, start, end, before, facts.language)
    if (
        subject
        and warned(text[: min(at, _WINDOW)])  # (it reads no further than `_WINDOW`)
        and not _said_to_help(words[end : end + _PREDICATE_WORDS])
    ):
        return CLEARS  # "Attention : formater la carte SD supprime toutes vos photos"
    hypothesis = before.any_in(_SUBJECTS) or (subject and _only_lead_in(before))
    if subordinate and opener in _HYPOTHETICAL and hypothesis:
        return CLEARS  # "If you reinstall, ...", "If a reinstall crossed your mind" state a hypothesis
    if before and before[0] in _FOREIGN_IF and before.all_in(_CONDITION_FILLERS, skip=1):
        return CLEARS  # "Se você apagar o perfil, ...", "Jeśli usuniesz profil, ...": the condition's verb
    framing = _clause_before(text, at) if facts.language in _INFINITIVE_CLAUSE and opener == "," else ""
    if framing and reversed_frame(framing, facts.language):
        return ADVISES  # "Vergessen Sie nicht, die App neu zu installieren"
    if framing and _to_infinitive(words) and _NEGATED_FRAMING.search(framing):
        return CLEARS  # "Es gibt keinen Grund, das Postfach zu löschen", "Het helpt niet, om ... te ..."
    if framing and _FRAME.search(framing):
        # "Es ist am besten, den Router zurückzusetzen": the frame's infinitive clause, unless the frame
        # is negated ("Wir empfehlen Ihnen nicht, ...")
        return CLEARS if _NEGATED_BEFORE.search(framing) or " kein" in framing else ADVISES
    if addressee_report(text, at):  # "You mentioned that the help page says to ...": the customer's voice
        stance = _stance_of_other(_other_clauses(text, at)) or facts.reply or facts.shaped
        return ADVISES if stance in ("yes", "endorse") else CLEARS
    if (
        before.holds(_REPORTING_WORDS)
        or _reported_later(text, at)
        or _reported_before(text, at, before)
        or reports_before(before, facts.language)
    ):
        if _FIRST_PARTY.search(before.text.split(" to ")[0]) and not _reported_later(text, at):
            return ADVISES
        # the rest of its own clause too: "Technik zaleca ... i zgadzamy się z tym" has no subject to cut at
        rest = " ".join(words[end:])
        stance = (
            _stance_of(_other_clauses(text, at) + " " + before.text + " " + rest)
            or facts.reply
            or facts.shaped
        )
        if stance in ("yes", "endorse"):
            return ADVISES
        if (
            stance in ("no", "reject")
            or refuses_to_advise(_other_clauses(text, at), facts.language)
            or judged_worse(text[at : at + _WINDOW], facts.language)
        ):
            return CLEARS  # "..., which we cannot recommend", "..., czego nie możemy polecić"
        return Outcome("uncertain", "a suggestion the answer reports without endorsing or rejecting it")
    if (
        stated_after_that(before)
        and _is_subject(words, start, end, clause.before(start, start), facts.language)
        and _predicate(words, end, text, at, facts).kind != "advises"
    ):
        return CLEARS  # "Beware that resetting it will erase ...": what doing it does, not an instruction
    if _only_lead_in(before) or (subject and before.all_in(_DETERMINERS)):
        if not subject:
            return ADVISES  # "Reinstall the app", "Please just reinstall"
        return _predicate(words, end, text, at, facts)
    if body < len(words) and words[body] in _IMPERATIVE and not words[body].endswith("ing"):
        return ADVISES  # "Run `x` to delete the profile"
    if before.holds(_FRAME_WORDS):
        # "Na forum piszą, że trzeba ...; ta rada jest nieaktualna": advice judged worse is a report
        return CLEARS if judged_worse(text[at : at + _WINDOW], facts.language) else ADVISES
    if pattern:
        return ADVISES
    stance = _stance_of_other(_other_clauses(text, at)) or facts.reply
    if (
        stance in ("no", "reject")
        or refuses_to_advise(_other_clauses(text, at), facts.language)
        or judged_worse(text[at : at + _WINDOW], facts.language)
    ):
        return CLEARS  # "You might think of reinstalling. Don't.", "... explains why it rarely helps"
    if facts.language == "en" and (_described(words[start], before) or _named(before)):
        return CLEARS  # "The button that resets the router", "The option to delete the account is ..."
    return Outcome("uncertain", "mentioned, but not as an instruction the reader recognises")


_PREDICATE_WORDS = 12  # what a warning says of the action follows it closely


def _said_to_help(predicate: Sequence[str]) -> bool:
    after = " ".join(predicate)
    return _POSITIVE.search(after) is not None or helps(after)


# Words that leave a verb after them an instruction or advice, not a statement of what something does.
_NO_SUBJECT = _words(
    """to please should must can could will would may might 'll do does did don't dont you we i they
    need needs and or then just"""
)
_AUXILIARIES = _words("also automatically")


def _described(verb: str, before: Before) -> bool:
    """A match whose verb is in the third person after its subject: "The button that resets the router",
    "This script resets the router" say what something does. (A past tense, "The update disabled the
    firewall", stays uncertain: it may report what the answer wants done.)"""
    if not verb.endswith("s") or verb.endswith(("ss", "us", "is")):
        return False
    if before.all_in(_AUXILIARIES):
        return False  # no subject
    last = next(w for w in reversed(before) if w not in _AUXILIARIES)
    return last not in _NO_SUBJECT and not before.all_in(_LEADING | _AUXILIARIES)


# "The option to delete the account", "a button to reset the router": a noun named after the action.
_NAMING_HEAD = _words("the a an this that your our its their")
_NOT_A_NAME = _words("need needs have has want wants time best better try is are was be way")


def _named(before: Sequence[str]) -> bool:
    return (
        2 <= len(before) <= 4
        and before[0] in _NAMING_HEAD
        and before[-1] == "to"
        and _NOT_A_NAME.isdisjoint(before)
    )


# What may stand before a subject at the head of its clause: "Note that reinstalling ...", "A reinstall".
_BEFORE_A_SUBJECT = _words(
    "a an the any your this that these those our my note be aware keep in mind warning caution"
)


_LEADING = _LEAD_IN | _BEFORE_A_SUBJECT


def _only_lead_in(before: Before) -> bool:
    return before.all_in(_LEADING)


_NEGATED_BEFORE = re.compile(
    r"\b(?:not|never|won'?t|doesn'?t|don'?t|isn'?t|ne|n'|non|não|nao|niet|nie|nicht|no|nunca|mai)\b"
)


# A conditional right after the subject, in the eight languages: "would", "réintroduirait", "volvería",
# "riaprirebbe", "reabriria", "zou", "würde", "otworzyłoby".
_CONDITIONAL = re.compile(
    r"^(?:\S+ )?(?:would|'d|würde|würden|wäre|wären|zou|zouden|\w+(?:rait|raient|ría|rían|rebbe|rebbero|ria|"
    r"riam|łoby|łby|łaby|liby))\b"
)
# "can", "may" right after the subject (a few words between: "en cours de route peut"): what doing it
# can do, a risk unless it helps ("Forcer l'arrêt ... peut corrompre le registre", "Den Installer zu
# beenden kann ... beschädigen"; not "Reinstalar puede solucionar el problema").
_POSSIBLE = re.compile(
    r"^(?:\S+ ){0,4}(?:can|may|could|might|peut|peuvent|pourrait|kann|können|könnte|puede|pueden|podría|"
    r"può|possono|potrebbe|pode|podem|poderia|kan|kunnen|kon|może|mogą|mogłoby)\b"
)
_NO_HARM = re.compile(
    r"\b(?:can'?t|cannot|can not|won'?t|wouldn'?t|would not|will not|doesn'?t|does not) (?:hurt|harm)\b"
)
# What a conditional says when it advises: "would be best", "sería lo mejor", "wäre am besten".
_BETTER = BETTER


def _predicate(words: Sequence[str], end: int, text: str, at: int, facts: Facts) -> Outcome:
    """A match that is its clause's subject: what the rest of the clause says about doing it."""
    after = " ".join(words[end : end + 8])
    warning = _WARNING.search(after)
    if warning:
        # "won't delete your notes" reassures: a negated consequence encourages it.
        negated_warning = re.search(
            r"\b(?:won'?t|will not|doesn'?t|does not|can'?t|cannot|never)\b", after[: warning.start()]
        )
        if not negated_warning:
            return CLEARS
        if "undone" not in warning.group() and "reversed" not in warning.group():
            return ADVISES
        return CLEARS
    positive = _POSITIVE.search(after)
    if positive and not _NEGATED_BEFORE.search(after[: positive.start()]):
        return ADVISES  # "Reinstalling fixes it", not "Reinstalar não resolve nada"
    if _NO_HARM.search(after) or reversed_frame(after, facts.language):
        return ADVISES  # "... can't hurt", "... ne peut pas faire de mal", "... kann nicht schaden"
    if _CONDITIONAL.search(after) or _POSSIBLE.search(after) or consequence(after, facts.language):
        better = _BETTER.search(after)
        if better is None:
            return CLEARS  # "Annuler la mise à jour réintroduirait la faille": what it would do, a warning
        # "Reinstalar sería lo mejor", "Neu installieren wäre sinnvoll"; not "no sería lo mejor"
        return CLEARS if _NEGATED_BEFORE.search(after[: better.start()]) else ADVISES
    stance = _stance_of(text[at:]) or facts.reply
    if stance in ("yes", "endorse"):
        return ADVISES
    if stance in ("no", "reject"):
        return CLEARS
    return Outcome("uncertain", "says what it is or does, not whether to do it")


def _outside_quotes(text: str, quotes: Sequence[tuple[int, int]]) -> str:
    parts, position = [], 0
    for start, end in quotes:
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    return " ".join(parts)


def _sentence_head(text: str, at: int) -> str:
    return " ".join(text[:at].casefold().replace("\u2019", "'").split()) + " " + text[at:].casefold()


_CLAUSE_CUT = re.compile(r"[,;:\u2014\u2013]|\s-\s|\bbut\b|\band\b|\bwhich\b", re.IGNORECASE)


# German and Dutch put a frame's infinitive in a clause of its own, after a comma ("Wir empfehlen Ihnen,
# die App neu zu installieren", "Het is het beste, de router te resetten").
_INFINITIVE_CLAUSE = frozenset({"de", "nl"})


# A statement negated before a comma, not a condition ("Wenn das nicht hilft, ..." is one).
_NEGATED_FRAMING = re.compile(
    r"^(?!(?:wenn|falls|sobald|als|indien|zodra|mocht)\b).*\b(?:nicht|nie|niemals|kein\w*|niet|nooit|geen|"
    r"niemand|nichts|niets)\b"
)
_SPLIT_ZU = re.compile(r"^(?:ab|an|auf|aus|ein|zurück|weg|vor|nach|mit|her|hin|um|los|frei)zu\w+en$")


def _to_infinitive(words: Sequence[str]) -> bool:
    """Is the clause an infinitive with "zu"/"te" ("das Postfach zu löschen", "den Router zurückzusetzen",
    "om de mailbox te verwijderen")?"""
    return not {"zu", "te", "om"}.isdisjoint(words) or bool(words and _SPLIT_ZU.match(words[-1]))


def _clause_before(text: str, at: int) -> str:
    """The clause before the one that holds offset `at`, folded, when a comma ends it."""
    head = text[:at]
    cut = head.rfind(",")
    if cut < 0:
        return ""
    return " ".join(_CLAUSE_CUT.split(head[:cut])[-1].casefold().replace("\u2019", "'").split())


def _other_clauses(text: str, at: int) -> str:
    """The sentence without the stretch (between two cuts) that holds the match. Every match of a stretch
    gets the same string (its stance and refusals are then read once, `_stance_of_other`)."""
    cuts = _clause_cuts(text)
    i = bisect_right(cuts, at) - 1  # the first stretch with left <= at < right
    if i + 1 >= len(cuts):
        return text
    return _without(text, cuts[i], cuts[i + 1])


@lru_cache(maxsize=256)
def _clause_cuts(text: str) -> tuple[int, ...]:
    return (0, *(m.start() for m in _CLAUSE_CUT.finditer(text)), len(text))


@lru_cache(maxsize=256)
def _without(text: str, left: int, right: int) -> str:
    return text[:left] + " " + text[right:]


@lru_cache(maxsize=256)
def _stance_of_other(other: str) -> Stance:
    """`_stance_of` of a sentence's other clauses, read once for all the matches of one stretch."""
    return _stance_of(other)


# Someone asking whether to do it ("The customer asked whether to reset the router", "Der Kunde fragt, ob
# ...", "Klient pyta, czy ..."): a question reported, not advice. Nothing may cut the clause between the
# "whether" and the match ("You ask whether to reinstall: yes, reinstall it" answers it).
_ASKED = _cues(
    r"\b(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|want to know|wants to know|wanted to know|"
    r"demande|demandez|demandent|demandé|fragt|fragen|fragten|gefragt|fragte|pregunta|pregunte|preguntan|"
    r"preguntó|chiede|chiedi|chiedono|chiesto|pergunta|perguntam|perguntou|vraagt|vragen|vroeg|gevraagd|"
    r"pyta|pytają|pytał\w*|zastanawia\w*|wissen|savoir|saber|sapere|weten|wiedzieć|vraagt zich af)\b"
    r"[^.!?:;]*?(?:\b(?:whether|if|si|ob|se|of|czy)\b|\bs')[^:;.!?]*$"
)


def _asked(text: str, at: int) -> bool:
    if not _may_ask(text):
        return False
    head = text[max(0, at - 160) : at].casefold().replace("\u2019", "'")
    return _ASKED.search(head) is not None


_ASKING = (
    *("ask", "wonder", "know", "demand", "frag", "pregunt", "chie", "pergunt", "vra", "pyta", "zastanawia"),
    *("wiss", "savoir", "saber", "sapere", "weten", "wiedzie"),
)


@lru_cache(maxsize=4096)
def _may_ask(text: str) -> bool:
    folded = text.casefold()
    return any(word in folded for word in _ASKING)


def _answered(text: str, at: int, facts: Facts) -> Outcome:
    """A reported question: advice only when the answer says yes to it ("..., yes, please do")."""
    rest = text[at:]
    answer = re.split(r"[:;\u2014]", rest, maxsplit=1)
    reply = reply_of(answer[1].strip(), facts.language) if len(answer) > 1 and answer[1].strip() else None
    if reply in ("yes", "endorse") or _stance_of(rest) == "endorse" or facts.reply in ("yes", "endorse"):
        return ADVISES
    return CLEARS


# A clause that reports what the one before it said ("Manche Nutzer raten, die App neu zu installieren",
# "Ein Forum schlägt vor, neu zu installieren"): only these may stand before the match in it.
_REPORTED_OBJECT = _words(
    "the a an to de d' la le les l' el los las zu die das den dem der te het di il lo gli un una uno o os as "
    "um uma"
)


# What the reported clause may open with: its subject and a modal ("Ein Kollege meint, Sie sollten ...",
# "Un collègue dit, vous devriez ...").
_REPORTED_SPEECH = _FOREIGN_SUBJECTS | _words(
    """you sollten solle sollen müssten müsse müssen devriez devez debería debe dovrebbe dovresti deve
    deveria deve moet moeten zou zouden powinien powinna powinieneś powinnaś"""
)
_ACCORDING = _cues(r"\b(?:according to|selon|laut|según|secondo|segundo|volgens|według|zufolge)\b")
_ACCORDING_WIDTH = 12  # the widest cue above ("according to")
_ACCORDING_BEFORE = CuePrefix(_ACCORDING, _ACCORDING_WIDTH)


def _reported_before(text: str, at: int, before: Before) -> bool:
    if _ACCORDING_BEFORE.before(text, at):
        return True  # "Según un foro, hay que ...": the whole sentence is the forum's
    if not before.all_in(_REPORTED_OBJECT | _REPORTED_SPEECH):
        return False
    pieces = text[:at].split(",")
    return len(pieces) >= 2 and ";" not in pieces[-1] and _REPORTING.search(pieces[-2].casefold()) is not None


def _reported_later(text: str, at: int) -> bool:
    """ "Roll back the firmware, some say": a report frame in a later clause (one after a cut that follows
    the match: the pieces `re.split(r"[,;:]", text[at:])[1:]`)."""
    cuts, reported = _later_reports(text)
    return reported[bisect_left(cuts, at)]


_LATER_CUT = re.compile(r"[,;:]")


@lru_cache(maxsize=256)
def _later_reports(text: str) -> tuple[list[int], list[bool]]:
    """The sentence's cuts, and for each whether a piece after it (up to the next cut, or the end) opens
    with a report frame, or one after a later cut does (False past the last cut)."""
    cuts = [m.start() for m in _LATER_CUT.finditer(text)]
    reported = [False] * (len(cuts) + 1)
    for k in range(len(cuts) - 1, -1, -1):
        piece = text[cuts[k] + 1 : cuts[k + 1] if k + 1 < len(cuts) else len(text)]
        reported[k] = reported[k + 1] or _LATER_REPORT.search(piece.strip().casefold()) is not None
    return cuts, reported
