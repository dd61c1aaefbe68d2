"""A heading, or a line ending in a colon, that judges its list badly before anything else: "### Pointless
with a sealed barrel like yours", "**Déconseillé pour un hamac en coton :**", "### Überflüssig bei
einer frostfesten Tonne", "Tabu, solange ...:", "Zinloos bij een no-frostvriezer:", "Odpada przy
łożyskach zamkniętych:". What the list holds is called useless, superfluous, ruled out, discouraged,
forbidden or harmful in the customer's case, so it negates the list as "Do not:" does
(`sentences.negating_intro`). A line that judges it well ("Recommended before the first frost"), asks
a question, opens a condition, or says how to go on ("No tools needed, here's how:") does not."""

from __future__ import annotations

import re

from assay_runner.text.stance.words import _set, _words

# Words that judge what a list holds badly, in the eight languages: useless, pointless, superfluous,
# unnecessary, counterproductive, ruled out, discouraged, forbidden, taboo, harmful, risky.
_BAD = _set(
    """pointless useless needless unnecessary superfluous futile counterproductive discouraged inadvisable
    forbidden prohibited banned taboo harmful risky dangerous redundant unneeded
    inutile inutiles superflu superflus superflue superflues vain vaine inefficace contre-productif
    déconseillé déconseillée déconseillés proscrit proscrits exclu exclus interdit interdits nuisible
    risqué dangereux superflus
    überflüssig unnötig sinnlos zwecklos nutzlos vergeblich kontraproduktiv ausgeschlossen tabu verboten
    schädlich riskant gefährlich gestrichen wirkungslos
    inútil inútiles innecesario innecesarios superfluo superfluos contraproducente descartado
    descartados desaconsejado desaconsejados prohibido prohibidos perjudicial arriesgado peligroso
    excluido excluidos vano ineficaz
    superflui superflua sconsigliato sconsigliati controproducente escluso esclusi vietato vietati
    proibito dannoso rischioso pericoloso depennato inefficace
    desnecessário desnecessários escusado supérfluo dispensável desaconselhado desaconselhados
    proibido proibidos prejudicial arriscado perigoso excluído excluídos
    zinloos nutteloos overbodig onnodig uitgesloten afgeraden verboden contraproductief riskant
    gevaarlijk schadelijk vergeefs geschrapt taboe
    zbędne zbędny niepotrzebne bezcelowe bezużyteczne bezsensowne odpada wykluczone odradzane
    niewskazane zakazane szkodliwe ryzykowne niebezpieczne skreślone daremne nieskuteczne"""
)
# The same judgements in several words: "ruled out", "crossed off", "af te raden", "à éviter".
_BAD_PHRASE = re.compile(
    r"^(?:\W*\w+\W+){0,3}?(?:ruled out|crossed off|off the table|off limits|off-limits|out of the question|"
    r"not recommended|hands off|no go|no-go|à éviter|à proscrire|hors de question|pas recommandé|"
    r"finger weg|nicht empfohlen|nicht zu empfehlen|abzuraten|fuera de cuestión|ni hablar|a evitar|"
    r"no recomendado|da evitare|fuori discussione|non consigliato|fora de questão|não recomendado|"
    r"af te raden|uit den boze|niet aanbevolen|nie wchodzi w grę|nie polecamy|do unikania)\b",
    re.IGNORECASE,
)
# What says how to go on after the judgement: "here's how", "so geht's", "procédez ainsi".
_HOW = re.compile(
    r"\b(?:here'?s how|how to|as follows|step by step|comme suit|voici comment|so geht|wie folgt|so gehen|"
    r"como sigue|come segue|como se segue|zo pakt|zo doet|als volgt|zo gaat|następująco|oto jak|"
    # "so" after a verb of doing: "procédez ainsi", "hágalo así", "fate così", "faça assim", "zrób tak"
    r"(?:procédez|faites|fais|hágalo|hazlo|hágase|se hace|fate|faccia|si fa|faça|faz-se|fazer|zrób|"
    r"zróbcie|wystarczy|proszę zrobić) (?:ainsi|comme ça|así|così|assim|tak))\b",
    re.IGNORECASE,
)
# An error's name is no judgement: "403 Forbidden", "Fehler 403: Zugriff verboten", "Accès interdit".
_ERROR = _set(
    """error erreur fehler errore erro fout błąd access accès zugriff acceso accesso acesso toegang dostęp
    http"""
)
_NOT = _set("not no non pas nicht kein keine nie niet geen nem não ni nor")
_CONDITION = _set("if si wenn falls se als indien jeśli jeżeli gdyby when quand cuando quando wanneer gdy")
# Skipping what the list holds, judged badly, recommends it ("Harmful to skip:", "Riskant, sie
# auszulassen:").
_SKIPPING = _set(
    """skip skipping omit omitting ignore ignoring neglect neglecting sauter omettre ignorer négliger
    auslassen weglassen überspringen ignorieren saltar omitir ignorar saltare omettere ignorare tralasciare
    pular saltar omitir ignorar overslaan weglaten negeren pominąć pomijać ignorować"""
)
# A bad judgement turned round by a contrast and a good one ("Risky, but worth it").
_BUT_GOOD = re.compile(
    r"\b(?:but|yet|mais|aber|doch|pero|ma|però|mas|porém|maar|toch|ale|jednak)\b.*\b(?:worth|worthwhile|"
    r"necessary|needed|essential|vaut|nécessaire|indispensable|lohnt|nötig|notwendig|vale|necesario|"
    r"imprescindible|necessario|indispensabile|necessário|waard|nodig|noodzakelijk|warto|konieczne|"
    r"niezbędne)\b",
    re.IGNORECASE,
)
_LEAD = 4  # the judgement leads the line: "Pointless with ...", "Honestly, pointless on ..."
_MAX_WORDS = 16


def judges_list_badly(line: str, heading: bool) -> bool:
    """Does this heading (or line ending in a colon) open with a bad judgement of what follows?"""
    stripped = line.strip().rstrip("*_ ").strip()
    if not heading and not stripped.endswith(":"):
        return False
    if "?" in stripped or _HOW.search(stripped):
        return False
    words = _words(stripped)
    if not words or len(words) > _MAX_WORDS or words[0] in _CONDITION:
        return False
    if not _ERROR.isdisjoint(words) or any(w.isdigit() for w in words[:_LEAD]):
        return False
    if not _SKIPPING.isdisjoint(words) or _BUT_GOOD.search(stripped):
        return False  # "Harmful to skip:", "Risky, but worth it:": the judgement turns round
    if _BAD_PHRASE.search(stripped):
        return True
    for at, word in enumerate(words[:_LEAD]):
        if word in _BAD:
            return not (at and words[at - 1] in _NOT)  # not "Not pointless:", "Nicht überflüssig:"
    return False
