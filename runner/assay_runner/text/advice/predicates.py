"""What the rest of a clause says of its subject, the match: that doing it helps, that it costs something
(a warning), what it would or could do, or nothing that decides."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.advice.cues import _cues
from assay_runner.text.advice.facts import Facts
from assay_runner.text.advice.outcome import ADVISES, CLEARS, Outcome
from assay_runner.text.advice.stance_reading import _stance_of
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance import BETTER, FAR_WORDS, brings_about, consequence, helps, not_in_hindsight

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
    r"verlieren|gelöscht|"
    # what it means losing: "... implica perder el descuento", "... significa perder o desconto"
    r"(?:implica|significa|signifie|bedeutet|betekent|oznacza|means) (?:\w+ )?(?:perder|perdere|perdre|"
    r"verlieren|verliezen|utrat\w*|stra\w+|losing))\b"
)


_PREDICATE_WORDS = 12  # what a warning says of the action follows it closely

# What doing it damages, by stem, in the eight languages: scratches, stains, cracks, warps, floods,
# tarnishes, clogs, ruins, rusts, wears off, burns, melts, leaves it sticky or rancid.
_HARM = (
    *("scratch", "stain", "crack", "warp", "flood", "tarnish", "clog", "ruin", "damag", "corrod", "rust"),
    *("smear", "discolo", "blacken", "swell", "dent", "peel", "scorch", "melt", "sticky", "rancid"),
    *("mould", "mold", "brittle"),
    *("raye", "tach", "fissur", "fend", "déform", "gonfl", "inond", "terni", "noirci", "encrass", "abîm"),
    *("endommag", "rouill", "écaill", "décolor", "brûl", "collant", "rancit", "rance", "moisi"),
    *("zerkratz", "verkratz", "kratzt", "fleck", "reisst", "verzieh", "quillt", "überflut", "verfärb"),
    *("schwärz", "verstopf", "ruinier", "beschädig", "rostet", "korrod", "schleift", "abgenutzt"),
    *("splitter", "verbrenn", "schmilz", "klebrig", "ranzig", "schimmel"),
    *("raya", "mancha", "agriet", "deforma", "hincha", "inunda", "ennegrec", "oscurec", "atasc", "estrope"),
    *("arruin", "daña", "oxida", "desgast", "quema", "derrit", "pegajos", "rancio", "enrancia", "enmohec"),
    *("graffi", "macchi", "crepa", "spacca", "deform", "gonfi", "allag", "annerisc", "scurisc", "intasa"),
    *("rovin", "dannegg", "arrugginisc", "consuma", "brucia", "appiccicos", "irrancid", "rancid", "ammuff"),
    *("risca", "mancha", "racha", "fende", "deforma", "incha", "inunda", "escurec", "enegrec", "entope"),
    *("estraga", "arruína", "danifica", "enferruj", "corrói", "desgasta", "queima", "derrete", "rançosa"),
    *("krast", "vlekt", "vlekken", "scheurt", "barst", "vervorm", "zwelt", "overstroom", "verkleur"),
    *("verstopt", "verpest", "beschadig", "roest", "slijt", "verbrandt", "smelt", "kleverig", "ranzig"),
    *("rysuje", "porysuje", "plami", "poplami", "pęka", "wypacza", "odkształca", "zalewa", "zaleje"),
    *("czerni", "zaczerni", "ciemni", "zatyka", "zatka", "niszczy", "zniszczy", "uszkadza", "uszkodzi"),
    *("rdzewie", "koroduje", "ściera", "zużywa", "spali", "topi", "lepk", "jełcz", "pleśni"),
    # tearing off ("reiss": words are casefolded, "ß" to "ss"), and wounds left open
    *("arrach", "reiss", "wound", "plaie", "wunde", "herida", "ferit", "ferida", "wonden", "rany"),
)
# What prevents or repairs it: "stops it cracking", "l'empêche de se fendre", "zapobiega pękaniu".
_PREVENTS = (
    *("prevent", "stop", "avoid", "protect", "keep", "reduc", "remov", "fix", "repair", "empêch", "évit"),
    *("protèg", "protég", "rédui", "enlèv", "répar", "verhinder", "vermeid", "schützt", "reduzier"),
    *("entfern", "reparier", "evita", "impid", "previen", "proteg", "reduc", "quita", "repara"),
    *("impedisc", "previen", "protegg", "riduc", "togli", "ripara", "imped", "previn", "reduz", "tira"),
    *("voorkom", "beschermt", "verminder", "haalt", "repareer", "zapobieg", "chroni", "zmniejsz"),
    *("usuwa", "napraw"),
)


# Removing, by stem: a removal is a loss unless what it removes is a problem.
_REMOVING = (
    *("remov", "eras", "delet", "wip", "clear", "effac", "supprim", "enlèv", "elimin", "borr", "entfern"),
    *("lösch", "cancell", "apag", "wist", "verwijder", "usuw", "usun", "kasuj", "skasuj"),
)
# Problems one removes: the damage of `_HARM` and dirt, limescale, smells, residue, grease, dust.
_PROBLEMS = (
    *_HARM,
    *("dirt", "limescale", "scale", "smell", "odour", "odor", "residue", "deposit", "grease", "dust"),
    *("saleté", "calcaire", "tartre", "odeur", "résidu", "dépôt", "graisse", "poussière", "schmutz"),
    *("kalk", "geruch", "rückst", "ablager", "fett", "staub", "suciedad", "sarro", "olor", "resto"),
    *("grasa", "polvo", "sporco", "calcare", "odore", "residu", "grasso", "polvere", "sujidade"),
    *("calcário", "cheiro", "resíduo", "gordura", "vuil", "geur", "aanslag", "vet", "stof", "brud"),
    *("kamień", "zapach", "osad", "tłuszcz", "kurz", "plamy", "rdz"),
)
_OBJECT_WORDS = 4  # the removal's object follows it closely


def _removes_a_problem(predicate: Sequence[str], warning: str) -> bool:
    """Does the predicate's removal verb (`warning`, the word `_WARNING` found) remove a problem ("removes
    the black stains", "quita las manchas", "usuwa czarne plamy") rather than what the customer keeps?"""
    if not warning.startswith(_REMOVING) or warning not in predicate:
        return False
    at = list(predicate).index(warning)
    return any(_a_problem(w) for w in predicate[at + 1 : at + 1 + _OBJECT_WORDS])


def _a_problem(word: str) -> bool:
    """A problem's word, or a compound that ends in one ("Salzflecken", "kalkaanslag")."""
    return word.startswith(_PROBLEMS) or any(p in word[1:] for p in _LONG_PROBLEMS)


_LONG_PROBLEMS = tuple(p for p in _PROBLEMS if len(p) >= 5)


def harms(predicate: Sequence[str]) -> bool:
    """Does the predicate say that doing it damages something ("scratches the finish", "verzieht die
    Leimfugen", "wypacza klejone łączenia"), with no negation and nothing that prevents the damage before
    the word ("stops it cracking", "evita que se agriete")?"""
    for at, word in enumerate(predicate):
        if word.startswith(_HARM):
            before = predicate[:at]
            negated = any(_NEGATED_BEFORE.fullmatch(w) for w in before)
            return not negated and not any(w.startswith(_PREVENTS) for w in before)
    return False


def _said_to_help(predicate: Sequence[str]) -> bool:
    after = " ".join(predicate)
    return _POSITIVE.search(after) is not None or helps(after)


_NEGATED_BEFORE = re.compile(
    r"\b(?:not|never|won'?t|doesn'?t|don'?t|isn'?t|ne|n'|non|não|nao|niet|nie|nicht|no|nunca|mai)\b"
)


_NEGATED_ANYWHERE = re.compile(
    r"\b(?:ne|n'|pas|non|não|nao|niet|nie|nicht|kein\w*|geen|no|nunca|nooit|nie|mai|jamais|nada|niets|nichts|"
    r"rien|niente|nic)\b"
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


# Dutch "oplossen" split: "lost het probleem (niet) op"
_DUTCH_SOLVES = re.compile(r"^(?:\S+ )?lost\b(?: \S+){0,5}? op\b")
_DUTCH_NOT = re.compile(r"\b(?:niet|nooit|geen)\b")


def _predicate(words: Sequence[str], end: int, text: str, at: int, facts: Facts) -> Outcome:
    """A match that is its clause's subject: what the rest of the clause says about doing it."""
    after = " ".join(words[end : end + 8])
    solves = _DUTCH_SOLVES.search(after) if facts.language == "nl" else None
    if solves:  # "lost ... op" solves (English "lost" is a warning): "De headset ontkoppelen lost dit op"
        return CLEARS if _DUTCH_NOT.search(solves.group()) else ADVISES
    warning = _WARNING.search(after)
    if warning and _removes_a_problem(words[end : end + _PREDICATE_WORDS], warning.group()):
        warning = None  # "... removes the black stains", "... entfernt die Flecken": it helps
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
    if not_in_hindsight(words[end : end + FAR_WORDS]):
        return CLEARS  # "Draining the pool wouldn't have saved the coping stone"
    positive = _POSITIVE.search(after)
    if positive and not _NEGATED_BEFORE.search(after[: positive.start()]):
        return ADVISES  # "Reinstalling fixes it", not "Reinstalar não resolve nada"
    if harms(words[end : end + FAR_WORDS]):
        # "Polishing the cutlery with toothpaste scratches the finish", and after long modifiers:
        # "Regraisser les roulements avec une graisse ordinaire plutôt qu'une graisse marine les expose à la
        # rouille" (a warning)
        return CLEARS
    if _NO_HARM.search(after) or reversed_frame(after, facts.language):
        return ADVISES  # "... can't hurt", "... ne peut pas faire de mal", "... kann nicht schaden"
    if _CONDITIONAL.search(after) or _POSSIBLE.search(after) or consequence(after, facts.language):
        better = _BETTER.search(after)
        if better is None:
            return CLEARS  # "Annuler la mise à jour réintroduirait la faille": what it would do, a warning
        # "Reinstalar sería lo mejor", "Neu installieren wäre sinnvoll"; not "no sería lo mejor"
        return CLEARS if _NEGATED_BEFORE.search(after[: better.start()]) else ADVISES
    if facts.language != "en" and helps(after):  # "... helpt meestal", "... hilft fast immer"
        return CLEARS if _NEGATED_ANYWHERE.search(after) else ADVISES  # not "... hilft nicht"
    stance = _stance_of(text[at:]) or facts.reply
    if stance in ("yes", "endorse"):
        return ADVISES
    if stance in ("no", "reject"):
        return CLEARS
    if brings_about(words[end : end + FAR_WORDS], facts.language):
        return CLEARS  # "Repotting the orchid in ordinary compost after it has flowered often rots the roots"
    return Outcome("uncertain", "says what it is or does, not whether to do it")
