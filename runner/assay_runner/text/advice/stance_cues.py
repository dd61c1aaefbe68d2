"""The cue words of a stance, in the eight languages: a reply's yes or no, a rejection, an endorsement,
and the words one of them needs (a sentence with none of them is not searched)."""

from __future__ import annotations

from assay_runner.text.advice.cues import _cues, _words

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
    r"\b(?:ignore|disregard) (?:it|them|that|this|those|any|the|what|whatever|his|her|their)\b",
    # "ignore what he said" in the other languages: the answer sets the report aside
    r"\bne (?:tenez|tiens|tenez surtout) pas compte\b|\bignorieren sie\b|\bno (?:haga|hagas|hagan) caso\b|"
    r"\bnon (?:dia|date|dare) retta\b|\bnão (?:ligue|liguem|dê|deem) (?:ao|à|a|importância)\b|\bnegeer\b|"
    r"\b(?:zignoruj\w*|zignorować|ignoruj\w*)\b",
    r"\b(?:isn'?t|is not|wasn'?t|was not|didn'?t come|did not come|doesn'?t come|does not come) from "
    r"(?:us|the bank|your bank|our)\b",
    r"\bskip (?:it|that|this)\b",
    r"\b(?:bad|wrong|poor|outdated|old|dangerous) advice\b",
    r"\b(?:a|was a|is a|would be a) mistake\b",
    r"\b(?:is|was|that'?s|it'?s) wrong\b",
    r"\b(?:outdated|obsolete|misleading|fake|phishing|scam|scammers|fraud|retired|overkill)\b",
    r"\b(?:arnaque|escroquerie|hameçonnage|betrug|betrugsversuch|estafa|fraude|timo|truffa|golpe|"
    r"oplichting|nep|oszustwo|oszustwem|wyłudzenie|burla|esquema|phishingu)\b",
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
    # "..., but that is not true": a contrast that denies the report, in every language
    r"\b(?:but|mais|aber|doch|pero|ma|mas|maar|ale)\b.{0,20}\b(?:(?:that's|that is|it's|it is) not true|"
    r"ce n'est pas vrai|c'est faux|(?:das )?stimmt (?:so )?nicht|das ist falsch|no es (?:cierto|verdad)|"
    r"es falso|non è vero|è falso|não é verdade|é falso|(?:dat )?klopt niet|dat is niet waar|"
    r"to nieprawda|to nie jest prawdą)",
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
    # "... that guide no longer applies to your model": the report is out of date, in every language
    r"\b(?:ne (?:concerne|s'applique|vaut|correspond) plus|(?:gilt|betrifft|passt) .{0,30}nicht mehr|"
    r"ya no (?:vale|aplica|se aplica|sirve|corresponde)|non (?:vale|si applica|riguarda) più|"
    r"não (?:vale|se aplica|serve) mais|(?:geldt|past) .{0,30}niet meer|nie dotyczy już|już nie dotyczy)\b",
    r"\b(?:bezcelowe|bezcelowy|bezużyteczne|niepotrzebne|sinnlos|zwecklos|nutteloos|inutile|inutili)\b",
    # "...; that is not our advice": the answer disowns what it reports, in every language
    r"\bnot (?:our|my) (?:advice|recommendation|suggestion)\b",
    r"\bn'est pas (?:notre|mon) (?:avis|conseil|recommandation)\b",
    r"\bnicht (?:unsere|meine) (?:empfehlung|meinung)\b|\bnicht unser (?:rat|tipp)\b",
    r"\bno es (?:nuestra|mi) (?:recomendación|opinión)\b|\bno es (?:nuestro|mi) consejo\b",
    r"\bnon è il (?:nostro|mio) (?:consiglio|parere)\b|\bnon è la (?:nostra|mia) raccomandazione\b",
    r"\bnão é a (?:nossa|minha) (?:recomendação|opinião)\b|\bnão é o (?:nosso|meu) conselho\b",
    r"\b(?:is|zijn) niet (?:ons|mijn) advies\b|\bniet onze aanbeveling\b",
    r"\bnie jest (?:nasza|moja) (?:rada|rekomendacja)\b|\bnie jest (?:naszym|moim) zaleceniem\b",
)
# No negation just before an endorsement, in it, or just after it (fixed-width look-behinds, one a form).
_OWNED = (
    r"\b(?<!not )(?<!n't )(?<!never )(?<!ne )(?<!ne le )(?<!ne la )(?<!ne vous )(?<!nicht )(?<!no )"
    r"(?<!no lo )(?<!no le )(?<!non )(?<!non lo )(?<!non la )(?<!non le )(?<!não )(?<!não o )(?<!não a )"
    r"(?<!não lhe )(?<!niet )(?<!nie )"
)
_SAME_BREATH = r"(?:(?!\b(?:not|never|pas|jamais|nicht|nie|no|nunca|non|mai|não|niet|nooit|nigdy)\b).){0,25}?"
_UNDENIED = r"(?! (?:pas|nicht|niet|not)\b)"
_ENDORSE_MORE = _cues(
    # "we back every word", "we stand behind it", "we confirm it", "we take that advice on board", and the
    # other languages' "lo confermiamo", "nous le confirmons", "wir bestätigen das", "Dat advies nemen wij
    # graag over": the answer makes a quoted or reported view its own; never negated ("non lo facciamo
    # nostro", "não o subscrevemos", "nous ne le confirmons pas", "we don't recommend doing so").
    _OWNED
    + r"(?:we (?:back|second|endorse) (?:every word|it|that|this|them|their advice|his advice|her advice)|"
    r"we (?:stand|are) (?:fully )?behind (?:it|that|this|them|every word)|"
    r"we (?:can )?confirm (?:it|that|this)"
    r"(?! \w+ (?:is|was|has|had|will|would|isn't|wasn't)\b)|"
    r"we (?:take|adopt|share) (?:that|this|their|his|her|the same) (?:advice|view|opinion|recommendation)|"
    r"(?:nous )?(?:le|la) confirmons|wir bestätigen (?:das|es|dies)|(?:lo|la) confirmamos|"
    r"(?:noi )?(?:lo|la) confermiamo|confirmamo-lo|(?:dat|dit) bevestigen (?:wij|we)|"
    r"wij bevestigen (?:dat|dit|het)|potwierdzamy to|(?:nemen|neem) (?:wij|we|ik) (?:graag |volledig )?over|"
    r"nous faisons (?:nôtre|notre)|"
    r"wir (?:übernehmen|teilen) (?:diesen|den|seinen|ihren) (?:rat|tipp|hinweis)|"
    r"wir schlie(?:ss|ß)en uns (?:dem |dieser empfehlung |diesem rat )?an|(?:lo )?hacemos nuestro|"
    r"(?:lo )?facciamo nostro|subscrevemos|podpisujemy się|nous partageons (?:son|leur|cet) avis|"
    r"compartimos (?:su|esa|esta) opinión|condividiamo (?:il suo|questo|quel) parere)\b" + _UNDENIED,
    # "we advise you to do it / the same", in every language: a first-party recommendation of what was said
    _OWNED
    + r"(?:recommend|advise|suggest|urge)\b"
    + _SAME_BREATH
    + r"\b(?:the same|doing so|to do (?:it|so|that|the same))\b",
    _OWNED + r"(?:conseillons|recommandons|recomendamos|aconsejamos|consigliamo|raccomandiamo|aconselhamos|"
    r"adviseren|raden|zalecamy|polecamy|radzimy|empfehlen|raten)\b" + _SAME_BREATH + r"\b(?:de le faire|"
    r"le faire|la même chose|de même|hacerlo|lo mismo|farlo|lo stesso|la stessa cosa|fazê-lo|fazer o mesmo|"
    r"o mesmo|hetzelfde|het (?:ook )?te doen|dat te doen|to samo|to zrobić|es zu tun|das zu tun|dasselbe|"
    r"das gleiche|ebenso)\b" + _UNDENIED,
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
    también anche también ook też auch you'd you'll mehr ya our my notre mon unsere meine unser nuestra
    nuestro mi nostro nostra mio mia nossa nosso minha meu ons mijn onze nasza moja naszym moim
    we confirmons bestätigen confirmamos confermiamo confirmamo bevestigen potwierdzamy nemen neem
    faisons übernehmen teilen schließen schliessen hacemos facciamo subscrevemos podpisujemy partageons
    compartimos condividiamo conseillons recommandons aconsejamos consigliamo raccomandiamo aconselhamos
    adviseren raden zalecamy polecamy radzimy empfehlen raten"""
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
    nic zbędne perché porque que raten rate raden raad ab af but mais aber pero ma mas maar ale doch
    sens sentido senso sinn zin sensu nichts da something change changera ändert cambiará cambierà mudar
    verandert zmieni warranty garantie garantía garanzia garantia
    gwarancję gwarancji gwarancja intérêt go allez-y vas-y nur adelante vada vai vá ga śmiało
    arnaque escroquerie hameçonnage betrug betrugsversuch estafa fraude timo truffa golpe oplichting nep
    oszustwo oszustwem wyłudzenie
    déconseillons déconseille sconsigliamo sconsiglio desaconsejo ontraden ontraad recomendamos recomiendo
    recomendo consigliamo consiglio raccomandiamo recommandons recommande conseillons conseille polecamy
    zalecamy radzimy empfehlen adviseren odradzam
    waarom dlaczego raison recht razón ragione razão gelijk rację
    disregard tenez tiens ignorieren caso retta ligue liguem negeer zignoruj zignorujcie zignorować
    ignoruj ignorować isn't isnt wasn't wasnt was burla esquema phishingu"""
)
