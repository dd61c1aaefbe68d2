"""The sentences of an answer's visible text, for the policy reader.

Every paragraph, list item (``-``, ``*``, ``+``, ``1.``, ``1)``), heading, table cell and line of a code
block is read on its own, and a paragraph is cut after ``.``, ``!`` and ``?`` (not after e.g., i.e., etc.
or an initial). A list item's continuation lines belong to the item; a soft-wrapped paragraph is one
text. The items of a list introduced by a line that tells the reader not to do something ("Do not:",
"Avoid the following:") are read with "Do not" in front.

A sentence remembers where it lies in the visible text (`Sentence.base`), so the reader can take its
words from the answer's words (`AnswerView.tokens`) instead of reading them again.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import NamedTuple

from assay_runner.text.language import detect
from assay_runner.text.markdown import normalize
from assay_runner.text.stance import (
    calls_futile,
    heading_negates,
    judges_list_badly,
    keeps,
    reassures_of_list,
    sets_aside,
)
from assay_runner.text.stance.delegation import delegates
from assay_runner.text.stance.headings import heading_without_colon_negates
from assay_runner.text.stance.how_after import shows_how
from assay_runner.text.stance.words import _RESTART, ALL_NEGATORS, _calls_it_wrong

__all__ = ["Sentence", "sentences_of_plain", "split_sentences"]


class Sentence(NamedTuple):
    text: str
    """The sentence, trimmed, with soft line breaks read as spaces."""
    base: int | None
    """Where `text` lies in the visible text: `text[i]` is `plain[base + i]` (a line break read as a
    space) for every `i >= added`; None when its lines are not one slice of it."""
    added: int = 0
    """How many characters at the start of `text` the reader put there ("Do not " before an item under
    a negating introduction): they negate what follows but are not the answer's words, so they never
    match a forbidden item."""
    quoted: bool = False
    """In a block quote: the answer cites it (its stance comes from what follows)."""
    column: str = ""
    """A table cell: the header of its column ("Don't", "Fix", ...)."""
    row: tuple[str, ...] = ()
    """A table cell: the other cells of its row."""

    @property
    def placed(self) -> bool:
        """Is the whole text a slice of the visible text (its words are the answer's words there)?"""
        return self.base is not None and not self.added


_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)]|[A-Za-z][.)](?=\s))\s+")
# A checklist's marks, as a line's first character or after its bullet: a cross says "not this" of its item
# ("\u274c open the incubator" under "These stay off-limits:"), a tick "this" (the item reads as it stands).
_CROSSES = "\u274c\u2716\u2717\u2718\u26d4\U0001f6ab\U0001f6d1"
_TICKS = "\u2705\u2714\u2611\u2713"
_MARK = re.compile(f"\\s*([{_CROSSES}{_TICKS}])\ufe0f?\\s+")  # matched where a line or its bullet ends
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_RULE_LINE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_TABLE_SEP = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*(?::?-+:?\s*)?$")
_CELL = re.compile(r"[^|]+")
# A run of end marks before a space or the end; a lone period after an initial ("J. Smith", "a. b. c")
# is skipped by the engine itself: an answer of a million initials must not cost a Python call each.
_SENTENCE_END = re.compile(
    r"(?=[.!?])(?!(?:(?<=[^\w.][^\W\d_])|(?<=^[^\W\d_]))\.(?:\s|$))[.!?]+[\"')\]]*(?=\s|$)"
)
_ENDS = re.compile(r"[.!?]")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "approx", "incl", "mr", "mrs", "ms", "dr", "st", "cf", "al"}
)
_HAS_WORD = re.compile(r"[^\W_]")
_ABBREVIATION_LOOKBACK = 16
# A line that only tells the reader not to do what follows ("Do not:", "Avoid the following:", "Things
# you should never do:", a <summary>Avoid</summary>) or that what follows will not help ("None of these
# will help:", "These won't fix it:", "Not recommended:"): its list items, or the paragraph after it, are
# negated. Every word must be a negation or a filler: "Don't panic:" introduces advice, not a ban.
_NEGATING_INTRO = re.compile(
    r"\b(?:do\s+not|don't|dont|never|avoid|refrain|not\s+to\s+do|must\s+not|should\s+not|shouldn't|"
    r"none|neither|won't|wont|will\s+not|doesn't|does\s+not|not\s+(?:recommended|needed|necessary|required|helpful))\b"
    # the same in the seven other languages: avoid, not, never, none of, nothing
    r"|\b(?:évitez|éviter|évite|ne|pas|jamais|aucune?|rien|vermeiden|vermeide|nicht|nie|niemals|keine[rsn]?|"
    r"nichts|evite|evita|evitar|evitare|evitate|eviti|no|nunca|ninguna|ninguno|nada|non|mai|nessuna|"
    r"nessuno|niente|não|nao|nenhuma|nenhum|vermijd|vermijden|niet|nooit|geen|niets|unikaj|unikać|"
    r"nigdy|żadne|żaden|żadna|żadnych|nic|useless|pointless|no\s+point|inutile|unnötig|inútil|onnodig|"
    r"zbędne)\b|\bn'"
    # any other "not" ("Steps we would not take:"): the line's structure decides (`heading_negates`)
    r"|\bnot\b|n't\b"
    # advising against: "Things we advise against:", "Ce que nous déconseillons :", "Wovon wir abraten:"
    r"|\b(?:innecesari|desnecess|niepotrzebn|unnecessary|needless|überflüssig|overbodig|superflu)|\bagainst\b|\b(?:déconseill|desaconsej|sconsigli|desaconselh|abrat|abgerat|afrad|ontrad|odradz)",
    re.IGNORECASE,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_INTRO_FILLER = _words(
    """do not don't dont never avoid refrain from the following these this any of all things thing steps
    step actions action you should must shouldn't what to ever please here are some list at mistakes
    pitfalls common bad ideas a few don'ts no none will won't wont doesn't does help helps fix fixes it
    work works needed necessary recommended required helpful is are that try neither either bother with
    tout marchera marchent essayer davon hiervan daarvan tutto ciò disso disto funcionará funcionarán
    zadziała zadziałają doe rób questo questa useless pointless point unnötig inútil onnodig zbędne
    évitez éviter évite ne n' pas jamais aucune aucun rien ce qui suit suivant suivantes suivants les ces
    ceci cela solutions étapes actions à faire faites surtout vous de d' il faut aidera aideront
    marchera fonctionnera servira inutile inutiles recommandé recommandée conseillé nécessaire choses
    vermeiden vermeide sie nicht nie niemals kein keine keiner keines keinen nichts folgendes folgende
    bitte dieser diese dies das was man tun machen sollten hilft helfen bringt schritte empfohlen nötig
    evite evita evitar lo siguiente siguientes no nunca ninguna ninguno nada estas estos opciones pasos
    ayudará ayudarán servirá funcionará qué que hacer haga se recomienda recomendado necesario cosas
    esto eso evitare evitate eviti quanto segue seguenti non mai nessuna nessuno niente di queste questi
    soluzioni passi aiuterà aiuteranno funzionerà cosa fare fate è consigliato consigliata consigliati
    necessario da o seguinte não nenhuma nenhum destas destes opções vai vão ajudar ajudará resolver
    funcionar fazer faça recomendada necessário coisas isto vermijd vermijden het volgende van deze stappen
    helpt helpen werkt wat u je moet doen niet nooit geen niets aanbevolen nodig dit dingen zal zullen
    unikaj unikać proszę następujących następujące kroków kroki z poniższych poniższe nigdy żadne żaden
    żadna żadnych nic pomoże pomogą czego robić rób zalecamy zalecane tego tych rzeczy jest potrzebne
    to il debe debes deben deve devi devono moet moeten muss sollte solltest należy powinieneś doit devez
    hay tun co"""
)
_INTRO_WORD = re.compile(r"[\w']+")
# What opens a condition: a line so opened says when to do what follows, not what not to do.
_CONDITION_OPENERS = frozenset(
    {"if", "when", "unless", "si", "quand", "lorsque", "wenn", "falls", "sobald", "cuando", "se", "quando"}
    | {"caso", "als", "wanneer", "indien", "jeśli", "jeżeli", "gdy", "kiedy"}
)
_MAX_INTRO = 100  # characters: a heading, not a paragraph that ends in a colon
_INTRO_PREFIX = "Do not "


def split_sentences(text: str) -> list[str]:
    """The sentences of a markdown answer, normalised, in reading order (see the module docstring)."""
    return [sentence.text for sentence in sentences_of_plain(normalize(text))]


def sentences_of_plain(plain: str) -> list[Sentence]:
    """The sentences of an answer's visible text (`markdown.render(...).plain`)."""
    sentences: list[Sentence] = []
    for block in _Blocks(plain).read():
        sentences.extend(_split_block(block))
    return sentences


class _Line(NamedTuple):
    text: str
    start: int | None  # offset of `text` in the visible text


class _Blocks:
    """Paragraphs, list items, headings and table cells, with soft-wrapped lines joined."""

    def __init__(self, plain: str) -> None:
        self.plain = plain
        self.blocks: list[Sentence] = []
        self.current: list[_Line] = []
        self.item = False  # the block being read is a list item
        self.heading = False  # the block being read is a heading
        self.intro = False  # the last paragraph was a negating introduction ("Do not:")
        self.intro_open = False  # no block has followed the negating introduction yet
        self.listed_aside = False  # the last block was a heading that negates the bare items under it
        self.quoted = False  # the block being read is in a block quote
        self.crossed = False  # the block being read is a checklist item marked with a cross
        self.header: list[str] | None = None  # the header cells of the table being read

    def read(self) -> list[Sentence]:
        position = 0
        for raw in self.plain.split("\n"):
            self._line(raw, position)
            position += len(raw) + 1
        self._flush()
        return self.blocks

    def _line(self, raw: str, position: int) -> None:
        if not raw:
            self._flush()
            self.header = None
            self.quoted = False
        elif _plain_line(raw):
            self.header = None
            if _needless_label(raw.strip()):
                self._flush()  # a label opening its line opens a block ("Pendiente: ...\nInnecesario: ...")
            self.current.append(_trimmed(raw, position))
        else:
            self._structured_line(raw, position)

    def _structured_line(self, raw: str, position: int) -> None:
        quote = _QUOTE.match(raw)
        offset = quote.end() if quote else 0
        if bool(quote) != self.quoted:
            self._flush()
            self.quoted = bool(quote)
        line = raw[offset:]
        if not line.lstrip().startswith("|"):
            self.header = None
        if not line.strip() or _RULE_LINE.match(line) or _TABLE_SEP.match(line):
            self._flush()
        elif line.lstrip().startswith("|"):
            self._flush()
            self._row(line, position + offset)
        elif heading := _HEADING.match(line):
            self._flush()
            text = line[heading.end() :].strip().rstrip("#").strip()
            self.current.append(_Line(text, _located(raw, text, position, offset + heading.end())))
            self.heading = True
            self._flush()
        elif bullet := _BULLET.match(line) or _MARK.match(line):
            self._flush()
            self.item = True
            # The mark is the bullet, or follows it ("- \u274c open the incubator").
            mark = bullet if bullet.re is _MARK else _MARK.match(line, bullet.end())
            start = bullet.end()
            if mark is not None:
                self.crossed = mark.group(1) in _CROSSES
                start = mark.end()
            self.current.append(_trimmed(line[start:], position + offset + start))
        else:
            self.current.append(_trimmed(line, position + offset))

    def _row(self, line: str, start: int) -> None:
        """A table row: each cell a sentence that knows its column's header and its row's other cells
        (the first row of a table is its header)."""
        cells = [
            (cell.group(), start + cell.start()) for cell in _CELL.finditer(line) if cell.group().strip()
        ]
        texts = [text.strip() for text, _ in cells]
        header = self.header
        if header is None:
            self.header = texts
        for k, (text, begin) in enumerate(cells):
            column = header[k] if header is not None and k < len(header) else ""
            row = tuple(texts[:k] + texts[k + 1 :]) if header is not None else ()
            line_ = _trimmed(text, begin)
            self.blocks.append(Sentence(line_.text, line_.start, 0, self.quoted, column, row))

    def _flush(self) -> None:
        lines, self.current = self.current, []
        item, self.item = self.item, False
        heading, self.heading = self.heading, False
        crossed, self.crossed = self.crossed, False
        if not lines:
            return
        if len(lines) == 1:
            text, base = lines[0]
        else:
            text = " ".join(line.text for line in lines)
            base = lines[0].start
            # One slice of the visible text when the lines follow one another with only a line break
            # between them.
            for before, after in pairwise(lines):
                if before.start is None or after.start != before.start + len(before.text) + 1:
                    base = None
        crossed = crossed and not _negates_itself(text)  # "\u274c Don't add water": the cross only repeats it
        if (
            (self.intro and (item or self.intro_open))
            or (item and self.listed_aside and _bare_item(text))
            or crossed
        ):
            # under "Do not:" / "Avoid the following:", or a bare item under "### Never on a sealed rim"
            self.intro_open = False  # one paragraph after the intro, or the list items under it
            added = len(_INTRO_PREFIX)
            self.blocks.append(
                Sentence(_INTRO_PREFIX + text, None if base is None else base - added, added, self.quoted)
            )
            return
        if not item:
            self.intro = self.intro_open = negating_intro(text, heading)
            self.listed_aside = heading and not self.intro and heading_without_colon_negates(text)
        self.blocks.append(Sentence(text, base, 0, self.quoted))


# The characters a quote marker, rule, table, heading or bullet can start with (besides a digit, a space,
# or a letter followed by "." or ")"): a line that starts with anything else is paragraph text.
_STRUCTURAL = frozenset(">-*_=|:#+\u2022" + _CROSSES + _TICKS)


# "None of these ...:", in every language: a negative quantifier over what the list holds negates the
# list whatever its noun and verb ("Geen van deze oplossingen werkt:", "Nessuna di queste soluzioni
# funziona:", "Żadne z tych rozwiązań nie pomoże:").
_NONE_OF = re.compile(
    r"^\W*(?:none|neither|nothing|aucune?|aucun|rien|keine[rs]?|nichts|ninguna|ninguno|nada|nessuna|nessuno|"
    r"niente|nulla|nenhuma|nenhum|geen|niets|żadne|żaden|żadna|żadnych|nic)\s+(?:of|de|des|du|d'|dieser|"
    r"der|von|diesen|davon|hiervon|di|delle|dei|degli|della|destas|destes|dessas|desses|disso|disto|das|"
    r"dos|van|hiervan|daarvan|ervan|z|ze|spośród)\b[^,;.!?]*:\s*$",
    re.IGNORECASE,
)
# A line that tells the reader to skip or ignore what follows: "Skip these:", "Ignore the following:".
_SKIP = re.compile(r"^\W*(?:please\s+)?(?:skip|ignore)\s+(?:these|those|the\s+following|this)\s*:\s*$", re.I)


def negating_intro(text: str, heading: bool = False) -> bool:
    """Does this line (a heading when `heading`) tell the reader not to do what follows ("Do not:", "Avoid
    the following:", "Avoid", "None of these options will work:", "Off-limits on managed laptops", "...,
    so leave them out:")? See `_INTRO_FILLER`, `_NONE_OF` and `stance.sets_aside`."""
    folded = text.replace("\u2019", "'")
    if keeps(folded) or shows_how(folded):
        return False  # "Don't skip these:", "Sla deze stappen niet over:", "No workshop needed - here's how:"
    if sets_aside(folded, heading) or calls_futile(folded, heading) or delegates(folded):
        return True  # ... or "### Leave these to Paula on Tuesday", "Laat dit dinsdag aan Ruud over:"
    if len(folded) <= _MAX_INTRO and judges_list_badly(folded, heading):
        return True  # "### Pointless with a sealed barrel like yours", "Déconseillé pour un hamac :"
    if len(folded) <= _MAX_INTRO and (none := _NONE_OF.search(folded)):
        # "None of these options will work:", not "... takes long:", "... can wait:", "... will hurt:"
        return not reassures_of_list(folded) and not _frees_the_list(folded[none.start() :])
    if _none_of_these(folded, heading):
        return True  # "Sulla visiera a specchio, niente di tutto questo:", "### Nichts davon, solange ..."
    if len(folded) <= _MAX_INTRO and _SKIP.search(folded):
        return True
    words = _INTRO_WORD.findall(folded.casefold())
    if not words or len(words) > 8 or not _NEGATING_INTRO.search(text):
        return False
    if words[0] in _CONDITION_OPENERS:
        return False  # "Se nada disso ajudar:", "If none of that helps:": a condition, then what to do
    if all(_intro_word(word) for word in words) and not text.rstrip().endswith((".", "!", "?")):
        return True
    # Words the filler list does not hold: the line's structure, in its own language, decides.
    short = len(folded) <= _MAX_INTRO and folded.rstrip().endswith(":")
    return short and heading_negates(folded, detect(folded))


def _negates_itself(text: str) -> bool:
    """A negation word of any language read, or an English "n't" or French "n'"."""
    words = _INTRO_WORD.findall(text.replace("\u2019", "'").casefold())
    return any(w in ALL_NEGATORS or w.endswith("n't") or w.startswith("n'") for w in words)


def _bare_item(text: str) -> bool:
    """A list item written as a bare action ("regenerate the water softener", "tirar el SCOBY"), as lists
    of what not to do are, not as a sentence that instructs ("Reset the alarm with the test button.")."""
    first = next((c for c in text if c.isalpha()), "")
    return first.islower() and not text.rstrip().endswith((".", "!"))


def _none_of_these(line: str, heading: bool) -> bool:
    """A short line that ends in a colon (or a heading) and says, anywhere in it, that none of what the
    list holds will do ("Para la línea de la mejilla con barba de tres días, nada de esto:", "Helaas
    verhelpt niets op dit lijstje de lekkage"), not in a question or a condition ("If none of these
    helps:"), nor of what the list costs ("None of these takes long")."""
    text = line.strip()
    if len(text) > _MAX_INTRO or "?" in text or not (heading or text.endswith(":")):
        return False
    found = _NONE_OF_THESE.search(text)
    if found is None:
        return False
    before = _INTRO_WORD.findall(text[: found.start()].casefold())
    if not _CONDITION_OPENERS.isdisjoint(before):
        return False
    return not _frees_the_list(text[found.end() :]) and not reassures_of_list(text)


def _frees_the_list(rest: str) -> bool:
    """Does what a line says after its "none of these" free the list rather than negate it: a new clause
    ("..., więc zostaje jeszcze to:"), or a predicate whose own negation makes a double negative ("is
    off-limits", "is optional", "can wait", "will hurt", "ist schwer")?"""
    after = _INTRO_WORD.findall(rest.casefold())
    if not _RESTART.isdisjoint(after):
        return True  # "Nic z tego, co próbowaliśmy, nie pomogło, więc zostaje jeszcze to:"
    return _calls_it_wrong(after) or any(w.startswith(_ALL_OF_IT) for w in after)


# Forbidden, optional or able to wait, in the eight languages: none of the list so is all of it to do.
_ALL_OF_IT = (
    *("off", "forbidden", "prohibited", "interdit", "verboten", "untersagt", "prohibid", "vietat"),
    *("proibid", "verboden", "zakazan", "niedozwol", "optional", "opcional", "facultati", "facoltativ"),
    *("optioneel", "opcjonaln", "freiwillig", "wait", "attend", "warten", "esper", "aspett", "wacht"),
    *("czeka", "skip", "overslaan", "pomin"),
    # what it costs: "None of these will hurt", "Nichts davon ist schwer", "Niente di tutto ciò è difficile"
    *("hurt", "harm", "schad", "schwer", "nuir", "dañ", "dann", "prejudic", "difficil", "difícil", "hard"),
    *("moeilijk", "trudn", "complic", "kompliz", "ingewikkeld", "skomplik"),
)


# A negative quantifier over what the list holds, in the eight languages.
_NONE_OF_THESE = re.compile(
    r"\b(?:(?:none|nothing|neither) (?:of (?:these|them|this|the following|those)|on this list)|"
    r"(?:aucune?|rien) de (?:ces|tout (?:cela|ceci|ça)|cela|ceci|la liste)|"
    r"(?:keine[rsn]?|nichts) (?:davon|hiervon|dieser|von diesen|auf dieser liste)|"
    r"(?:ningun[ao]|nada) de (?:esto|estos|estas|esta lista|lo siguiente|todo esto)|"
    r"(?:nessun[ao]?|niente|nulla) (?:di (?:questi|queste|tutto questo|questo|ciò))|"
    r"(?:nenhuma?|nada) (?:destes|destas|disto|disso|desta lista)|"
    r"(?:geen|niets) (?:van (?:deze|dit|die)|hiervan|daarvan|op dit lijstje|op deze lijst)|"
    r"(?:żaden|żadna|żadne|żadnej|żadnego|nic) z (?:tych|tego|tej listy|poniższych))\b",
    re.IGNORECASE,
)


def _intro_word(word: str) -> bool:
    """A filler, or an elided article or "ne" before one ("n'aidera", "l'app")."""
    if word in _INTRO_FILLER:
        return True
    head, _, rest = word.partition("'")
    return bool(rest) and (len(head) == 1 or head == "qu") and rest in _INTRO_FILLER


def _plain_line(line: str) -> bool:
    first = line[0]
    if first in _STRUCTURAL or first.isspace() or first.isdecimal():
        return False
    return not (first.isascii() and first.isalpha() and line[1:2] in (".", ")"))


def _trimmed(text: str, start: int) -> _Line:
    lead = len(text) - len(text.lstrip())
    return _Line(text.strip(), start + lead)


def _located(raw: str, text: str, position: int, offset: int) -> int | None:
    """Where a heading's text lies on its line (None when trimming the closing #s moved it)."""
    found = raw.find(text, offset) if text else -1
    return position + found if found >= 0 else None


# A label that says what follows is not needed or not to be done, in the eight languages ("**Unnecessary:**
# ...", "Inutile :", "Nicht nötig:", "No hace falta:", "Non serve:", "Desnecessário:", "Overbodig:",
# "Zbędne:"), then a colon and the items on the same line. A verb of the label stands alone ("Avoid:"), and
# an adjective takes at most a place or a time ("Unnötig in Ihrem Fall:"): not "Don't forget: ...", "Never
# mind: ...", "No need to worry: ...", which go on to what to do.
_ALONE = (
    r"never|don'?t|do not|skip|avoid|no need|leave out|évitez|à éviter|à proscrire|pas la peine|pas besoin|"
    r"evite|evitar|no hace falta|sobra|evitare|da evitare|não é preciso|vermeiden|vermijden|niet doen|"
    r"unikaj|unikać|nie rób"
)
_NEEDLESS = (
    r"unnecessary|needless|not (?:needed|necessary|required)|forbidden|off[- ]limits|pointless|useless|"
    r"inutiles?|pas nécessaire|interdit|superflus?|innecesari[oa]s?|no (?:es )?necesari[oa]s?|prohibido|"
    r"non (?:serve|servono|necessari[oa]|indispensabile)|vietato|superflu[oa]|desnecessári[oa]s?|"
    r"escusad[oa]|não (?:é )?necessário|proibido|unnötig|nicht (?:nötig|notwendig|erforderlich)|"
    r"überflüssig|verboten|tabu|overbodig|niet nodig|verboden|zbędne|niepotrzebne|nie (?:trzeba|potrzeba)|"
    r"zakazane"
)
_PLACE_OR_TIME = (
    r"for|in|on|with|here|now|today|this|pour|dans|ici|aujourd'hui|für|bei|in|hier|jetzt|heute|para|en|"
    r"con|aquí|hoy|per|con|qui|oggi|com|aqui|hoje|voor|bij|met|nu|vandaag|dla|w|przy|teraz|dziś|dzisiaj"
)
_NEEDLESS_LABEL = re.compile(
    rf"^(?:(?:{_ALONE})|(?:{_NEEDLESS})(?:\s+(?:{_PLACE_OR_TIME})\b[^:;.!?]{{0,24}}?)?)\s*:\s+(?=\w)",
    re.IGNORECASE,
)


def _needless_label(text: str) -> int:
    """Where the items after a label that sets them aside begin (0: no such label)."""
    found = _NEEDLESS_LABEL.match(text.replace("\u2019", "'"))
    if found is None or len(_INTRO_WORD.findall(found.group())) > 4:
        return 0
    return found.end()


def _split_block(block: Sentence) -> list[Sentence]:
    text = block.text
    if not _ENDS.search(text):  # a heading, a cell, a list item without a full stop: one sentence
        whole = block.added == 0 and _HAS_WORD.search(text) and not _needless_label(text)
        return [block] if whole else _split_slowly(block)
    return _split_slowly(block)


def _split_slowly(block: Sentence) -> list[Sentence]:
    text = block.text
    sentences: list[Sentence] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group() == "." and _is_abbreviation(text, m.start()):
            continue
        _add(sentences, text, start, m.end(), block)
        start = m.end()
    _add(sentences, text, start, len(text), block)
    return sentences


def _add(sentences: list[Sentence], text: str, start: int, end: int, block: Sentence) -> None:
    piece = text[start:end]
    trimmed = piece.strip()
    if trimmed and _HAS_WORD.search(trimmed):
        lead = len(piece) - len(piece.lstrip())
        base = None if block.base is None else block.base + start + lead
        added = max(0, block.added - start - lead)
        if not added and not start and (label := _needless_label(trimmed)):
            # "Innecesario: enjuagar la pluma; cambiar el plumín.", opening its line: the items, not to do
            # (not a reply after a sentence: "Someone says to X. No need: it never expires.")
            rest = trimmed[label:]
            at = None if base is None else base + label - len(_INTRO_PREFIX)
            added = len(_INTRO_PREFIX)
            sentences.append(Sentence(_INTRO_PREFIX + rest, at, added, block.quoted, block.column, block.row))
            return
        sentences.append(Sentence(trimmed, base, added, block.quoted, block.column, block.row))


def _is_abbreviation(block: str, end: int) -> bool:
    # Only the few characters before the period matter: looking further made the split quadratic.
    m = _WORD_BEFORE.search(block, max(0, end - _ABBREVIATION_LOOKBACK), end)
    if not m:
        return False
    word = m.group(1).casefold()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())
