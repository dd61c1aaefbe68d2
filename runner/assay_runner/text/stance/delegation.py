"""A heading, a list's introduction or a table's column that hands what follows to someone else: "### Leave
these to Paula on Tuesday", "Laat dit dinsdag aan Ruud over:", "| What our technician will do |", "| Das
erledigt unser Monteur |", "| Lo que hará nuestro instalador |", "| Ce que nous ferons à l'atelier |". What
it holds is not the customer's to do: the answer says the company, or its technician, will do it.

Read from closed shapes in the eight languages: "leave ... to" with its particle or preposition, and a
first-person plural or "our <person>" as the subject of a verb of doing or taking charge, never negated
("What we won't do")."""

from __future__ import annotations

import re

_LEAVE_TO = (
    r"leave (?:these|this|that|them|it|the rest|everything(?: else)?) to "
    r"(?:us|our|the (?:technician|engineer|workshop|professionals?|experts?|installer|fitter)|"
    r"a (?:professional|technician)|(?-i:[A-Z])\w*)|"
    r"laissez(?:-nous)? (?:cela|ceci|ça|ces \w+|tout cela|le reste) (?:à|au|aux)|"
    r"überlassen sie (?:das|dies|diese \w+|alles (?:andere|weitere)|den rest)|"
    r"d[ée]jel[oa]s? (?:a|al|en manos de)|deje (?:esto|eso|todo esto) (?:a|al|en manos de)|"
    r"lasci(?:ate)? (?:questo|questi|tutto questo|il resto) (?:a|al|alla|ai)|"
    r"deixe (?:isto|isso|estes|tudo isto|o resto) (?:para|ao|à|a cargo)|"
    r"laat (?:dit|dat|deze|die|alles|de rest)\b.{0,40}\b(?:aan|over aan)\b|"
    r"zostaw(?:cie)? (?:to|te|resztę) (?:nam|naszemu|naszej|technikowi|serwisowi)"
)
_OURS_DOES = (
    r"(?:what |that |this |these )?(?:we(?:'ll| will| shall)|our (?:technician|engineer|fitter|installer|"
    r"workshop|team|service centre|service center|repair shop)(?:'ll| will)?) (?:do|handle|take care of|"
    r"fix|replace)|"
    r"ce que (?:nous ferons|nous faisons|fera notre|notre \w+ fera)|nous (?:nous en chargeons|ferons)|"
    r"(?:das|dies|diese \w+) (?:erledigt|übernimmt|macht) unser|"
    r"(?:das|dies) (?:erledigen|übernehmen|machen) wir|"
    r"lo que (?:hará|haremos|hacemos|hará nuestro)|(?:de )?(?:esto|eso) nos encargamos|"
    r"(?:che )?cosa faremo|(?:questo|ciò che) (?:faremo|farà il nostro)|ci pensa(?:no)? (?:il|la) nostr|"
    r"o que (?:faremos|fazemos|o nosso \w+ fará|fará o nosso)|fica a cargo d|"
    r"(?:dit|dat|wat) (?:doen wij|doet onze|doen we)|wat (?:wij|we) (?:doen|gaan doen)|"
    r"(?:to )?zrobi(?:my)? nasz|(?:tym|tego) zajmie się nasz|co zrobimy"
)
_DELEGATES = re.compile(rf"(?:^|\W)(?:{_LEAVE_TO}|{_OURS_DOES})\b", re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:won't|will not|don't|do not|not|ne|pas|nicht|kein|no|non|não|niet|geen|nie)\b", re.IGNORECASE
)


def delegates(text: str) -> bool:
    """Does a heading, an introduction or a column's header hand what it holds to the company or its
    technician ("Leave these to Paula", "Lo que hará nuestro instalador")? Not when it negates ("What we
    won't do", "Ce que nous ne ferons pas")."""
    folded = text.replace("\u2019", "'")
    return _DELEGATES.search(folded) is not None and _NEGATED.search(folded) is None
