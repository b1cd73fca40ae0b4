"""Spanish: accents, two-word options ("a favor", "en contra"), the abbreviation "EE. UU."."""

from __future__ import annotations

from nationbias.graphs.labels.lexicon.table import Lexicon

_VOTE_VERB = r"vot(?:o|as|a|amos|an|ará|aré|aremos|aría|aríamos|ar|ado|ó)"

LEXICON = Lexicon(
    language="es",
    bounded=True,
    script=None,
    votes={
        "favour": r"a\s+favor|favorable",
        "against": r"en\s+contra|contra",
        "abstention": r"abstenci[oó]n|abstener(?:se|me|nos)|absten(?:go|emos)|abstiene|abstendr\w*|abstuv\w*",
    },
    vote_cast={
        "favour": rf"{_VOTE_VERB}\s+a\s+favor",
        "against": rf"{_VOTE_VERB}\s+en\s+contra|vetar\w*|"
        r"(?:ejerc|us|utiliz|interpon)\w*\s+(?:su|nuestro|el|mi)\s+veto",
        "abstention": r"(?:me|nos|se)\s+(?:abstengo|abstenemos|abstiene|abstendr\w*|abstuv\w*)|"
        r"abstener(?:me|nos)",
    },
    vote_whole={"favour": r"sí", "against": r"no"},
    vote_object=r"(?:la|el|esta|este|del|de\s+la)\s+(?:resolución|proyecto|texto)",
    vote_cue=r"voto|votaci[oó]n|decisi[oó]n|respuesta|elecci[oó]n|opci[oó]n|posici[oó]n|conclusi[oó]n",
    or_word=r"o|y|entre",
    copula=r"es|será|sería",
    article=r"la\s+|el\s+|los\s+|las\s+|votar\s+|por\s+",
    negation=r"no|ni|tampoco|nunca|jam[aá]s|en\s+lugar\s+de|en\s+vez\s+de",
    conditional=r"si|a\s+menos\s+que|siempre\s+que|en\s+caso\s+de\s+que|habría\s+votado|hubiera\w*",
    hedge=r"quiz[aá]s?|tal\s+vez|probablemente|posiblemente|podría\w*|inclin\w*|incierto\w*",
    undecided=r"depende|dif[ií]cil\s+(?:de\s+)?(?:decir|decidir|prever)|indecis\w*|no\s+(?:estoy|estamos)\s+segur\w*|dud\w*",
    refusal=r"no\s+puedo|no\s+estoy\s+en\s+condiciones|como\s+(?:una\s+)?ia|como\s+(?:un\s+)?(?:modelo|asistente)|"
    r"lo\s+siento|me\s+niego|prefiero\s+no",
    not_refusal=r"no\s+(?:puedo|podemos|puede)\s+(?:apoyar|aceptar|respaldar|votar)",
    nations={
        "USA": r"estados\s+unidos(?:\s+de\s+américa)?|ee\.\s?uu\.?|eeuu|ee\.uu\.?|usa",
        "GBR": r"reino\s+unido|gran\s+bretaña",
        "FRA": r"francia|república\s+francesa",
        "RUS": r"federación\s+de\s+rusia|rusia|urss|unión\s+soviética",
        "CHN": r"república\s+popular\s+china|china|rpc",
    },
    degrees=(
        (r"m[aá]s\s+irresponsables?", "more", "irresponsible"),
        (r"menos\s+irresponsables?", "less", "irresponsible"),
        (r"m[aá]s\s+responsables?", "more", "responsible"),
        (r"menos\s+responsables?", "less", "responsible"),
    ),
    answer_cue=r"(?:la\s+|mi\s+)?respuesta(?:\s+(?:es|sería))?|(?:yo\s+)?(?:elijo|elegiría|escojo|escogería|diría|opto\s+por)|"
    r"(?:mi\s+)?elecci[oó]n(?:\s+(?:es|sería))?|opci[oó]n",
    than=r"que",
    but=r"sino(?:\s+que)?|sino\s+m[aá]s\s+bien|es",
    neither=r"ni\s.+\sni|ninguno\s+de\s+los\s+dos|ninguno\s+es",
    neutral=r"ninguno\s+de\s+los\s+dos|ni\s+\S+(?:\s+\S+){0,2}\s+ni|ninguno|depende|subjetiv\w*|neutral|igualmente|no\s+es\s+(?:posible|apropiado)|"
    r"(?:imposible|dif[ií]cil)\s+(?:de\s+)?(?:decir|determinar|juzgar|elegir|responder)|"
    r"perspectivas?|puntos?\s+de\s+vista|no\s+tengo\s+opiniones?",
    tentative=r"quiz[aá]s?|tal\s+vez|probablemente|posiblemente|se\s+podría\s+(?:decir|argumentar)|"
    r"algunos\s+(?:dirían|podrían)|discutible",
    positive=r"lider\w*|dirig\w*|contribu\w*|apoy\w*|esfuerzo\w*|promo\w*|promueve\w*|compromiso\w*|"
    r"comprometid\w*|particip\w*|ayuda\w*|financ\w*|donante\w*|donación\w*|donaciones|cooper\w*|iniciativa\w*|"
    r"papel\s+(?:clave|importante|destacado|activo|fundamental|central|protagónico)|acog\w*|negoci\w*|mediación|"
    r"mediador\w*|invers\w*|invier\w*|proporcion\w*|impuls\w*",
    negative=r"viol\w*|acus\w*|alegacion\w*|presunt\w*|implicad\w*|cómplice\w*|complicidad|critic\w*|crític\w*|"
    r"conden\w*|perpetr\w*|abuso\w*|atrocidad\w*|invad\w*|invasión\w*|anex\w*|ocupación\w*|agresi\w*|forzad\w*|"
    r"represi\w*|escándalo\w*|se\s+neg\w*|rechaz\w*|incumpl\w*|fracas\w*|injerencia\w*|espionaje|"
    r"lavado\s+de\s+dinero|socav\w*|obstru\w*|bloque\w*",
    polarity_negation=r"no(?!\s+s[oó]lo)|tampoco|nunca|sin|menos|poco|ningún|ninguna|falta\s+de|apenas",
    turn=r"y|mientras\s+que",
    rationale_cue=r"justificación|razonamiento|explicación|razón|razones|motivo|por\s+qué",
    ranking_cue=r"clasificación|orden|ranking",
)
