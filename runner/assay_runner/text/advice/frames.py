"""What makes a clause an instruction or advice: the words that may lead in to an instruction's verb, an
imperative verb at its head, an advice frame before the match ("you should", "il faut", "Sie sollten"),
and in German and Dutch the frame's infinitive in a clause of its own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.advice.cues import _cues, _words
from assay_runner.text.head_words import CueWords

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
    # "the simplest is to", in every language: a superlative of ease that advises what follows
    r"\b(?:the (?:simplest|easiest|quickest|fastest)(?: thing| way| fix| option)? (?:is|would be) to|"
    r"le plus (?:simple|rapide|facile) (?:est|serait) d[e']|am (?:einfachsten|schnellsten)|"
    r"lo más (?:sencillo|fácil|rápido) (?:es|sería)|la cosa più (?:semplice|facile|rapida) (?:è|sarebbe)|"
    r"o mais (?:simples|fácil|rápido) (?:é|seria)|het (?:eenvoudigst|makkelijkst|snelst)e? (?:is|zou)|"
    r"najprościej|najłatwiej|najszybciej)",
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


# Searched in the words before a match (`Before.holds`): a match spans at most this many words
# (`tests/unit/test_policy_cost.py` holds it).
_FRAME_WORDS = CueWords(_FRAME, 6)


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
