"""Verbs whose negation encourages what follows, in the seven languages besides English: "N'hésitez pas à
réinitialiser", "No dude en restablecer", "Non esitare a ripristinare", "Não deixe de reiniciar",
"Zögern Sie nicht", "Aarzel niet om", "Nie wahaj się" advise the action they stand before, as "Don't
hesitate to" does (English: `negation.vocabulary._REVERSERS`).

A verb is known by its inflection key in the clause's language (`tokens.tokenize`: simplemma's lemma for
Italian, Portuguese, Dutch and Polish, the light stemmers for French, Spanish and German), so the forms
listed here are the ones those keys do not join (the infinitive and the imperatives of address).
"""

from __future__ import annotations

from functools import lru_cache

from assay_runner.text.tokens import tokenize

__all__ = ["reversed_frame", "reverses"]

# hesitate, forget, fail to / miss, worry, be afraid, hurt / harm / cost / bad, wait, rule out, put off /
# delay, neglect, optional: the concepts of the English list that support answers use before advice ("Non
# fa male", "Het kan geen kwaad", "Não custa nada", "Ne tardez pas à", "No es opcional").
_FORMS: dict[str, str] = {
    "fr": "hésiter hésitez hésite oublier oubliez oublie manquer manquez manque inquiéter inquiétez "
    "mal mauvais mauvaise nuire nuit coûter coûte attendre attendez attends idiot idiote bête exclure "
    "excluez "
    "tarder tardez différer différez repousser repoussez retarder retardez négliger négligez facultatif "
    "facultative optionnel optionnelle",
    "es": "dudar dude dudes olvidar olvide olvides dejar deje dejes preocupar preocupe preocupes hesitar "
    "hesite vacilar vacile mal costar cuesta perjudicar perjudica daño dañar esperar espere esperes "
    "malo mala "
    "descartar descarte "
    "tardar tarde tardes demorar demore demores aplazar aplace posponer posponga postergar postergue "
    "descuidar descuide opcional",
    "de": "zögern zögere zöger vergessen vergiss scheuen scheue sorgen schaden schadet warten warte wartet "
    "schlecht schlechte schlechter ausschließen "
    "aufschieben hinauszögern vernachlässigen optional",
    "it": "esitare esiti dimenticare dimentichi dimenticarti mancare manchi preoccupare preoccuparti "
    "preoccuparsi male costare costa nuocere nuoce danno aspettare aspetti aspetta cattiva cattivo "
    "escludere escluda "
    "tardare tardi rimandare rimandi rinviare rinvii posticipare posticipi trascurare trascuri "
    "facoltativo facoltativa opzionale",
    "pt": "hesitar hesite esquecer esqueça deixar deixe preocupar preocupe custar custa mal prejudicar "
    "esperar espere má mau descartar descarte "
    "demorar demore adiar adie tardar tarde protelar protele descurar descure opcional facultativo "
    "facultativa",
    "nl": "aarzelen aarzel twijfelen twijfel vergeten vergeet schromen schroom kwaad schaden schaadt "
    "wachten wacht slecht slechte uitsluiten "
    "uitstellen talmen treuzelen verwaarlozen optioneel",
    "pl": "wahać wahaj wahajcie zapomnieć zapomnij zapominać zapominaj bać bój martwić martw zaszkodzić "
    "zaszkodzi szkodzić szkodzi czekać czekaj zwlekać zwlekaj zły zła złe wykluczać wykluczyć "
    "odkładać odkładaj odwlekać odwlekaj opóźniać opóźniaj zaniedbać zaniedbywać opcjonalne opcjonalny "
    "opcjonalna",
}


def _words(text: str) -> list[str]:
    return text.split()


@lru_cache(maxsize=len(_FORMS))
def _keys(language: str) -> frozenset[str]:
    """The inflection keys of the reversing verbs in `language` (built on first use: the language's
    dictionary is loaded already when a clause of it is read)."""
    return frozenset(token.stem for token in tokenize(_FORMS.get(language, ""), language))


def reverses(key: str, language: str) -> bool:
    """Is a word with inflection key `key` in `language` a verb whose negation encourages what follows?"""
    return language in _FORMS and key in _keys(language)


_NEGATIONS = frozenset(
    _words(
        "ne n' pas no non não nao nicht nie niet nunca jamais mai nooit nigdy geen kein keinen keine keiner"
    )
)
_REACH = 3  # "N'oubliez pas", "Não se esqueça", "Vergessen Sie nicht": the negation stands close by


def reversed_frame(text: str, language: str) -> bool:
    """Does `text` (a clause before the match's) negate a reversing verb: "Vergessen Sie nicht", "N'hésitez
    pas", "Non dimenticare"? The clause after it is then advice."""
    if language not in _FORMS:
        return False
    tokens = tokenize(text, language)
    for i, token in enumerate(tokens):
        if reverses(token.stem, language):
            near = tokens[max(0, i - _REACH) : i + _REACH + 1]
            if any(t.text in _NEGATIONS for t in near):
                return True
    return False
