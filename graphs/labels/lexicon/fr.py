"""French: accents and elision ("l'abstention", "n'est pas"), a copula before a nation ("c'est la Chine")."""

from __future__ import annotations

from nationbias.graphs.labels.lexicon.table import Lexicon

_VOTE_VERB = r"vot(?:e|es|ons|ez|ent|era|erai|erons|erait|erions|erais|er|é|ée|ait)"

LEXICON = Lexicon(
    language="fr",
    bounded=True,
    script=None,
    votes={
        "favour": r"pour|en\s+faveur|favorable",
        "against": r"contre|d[ée]favorable",
        "abstention": r"abstention|abstenir|abstiens|abstient|abstenons|abstiendr\w*|abstenu\w*",
    },
    vote_cast={
        "favour": rf"{_VOTE_VERB}\s+(?:en\s+faveur|pour)",
        "against": rf"{_VOTE_VERB}\s+contre|(?:oppos|mett|utilis)\w*\s+(?:son|notre|mon|le|leur)\s+veto",
        "abstention": r"(?:m'|nous\s+|s'|t')abst(?:iens|enons|ient|iendr\w*|enir|enu\w*)",
    },
    vote_whole={"favour": r"oui", "against": r"non"},
    vote_object=r"(?:la|le|ce|cette|du|de\s+la)\s+(?:résolution|projet|texte)",
    vote_cue=r"vote|d[ée]cision|r[ée]ponse|choix|option|position|conclusion|verdict",
    or_word=r"ou|et|entre",
    copula=r"est|sera|serait|c'est",
    article=r"l'|la\s+|le\s+|les\s+|d'|de\s+|du\s+|des\s+|en\s+|voter\s+",
    negation=r"ne|n'|pas|non|ni|jamais|plutôt\s+que|au\s+lieu\s+de",
    conditional=r"si|s'il|s'ils|sauf\s+si|à\s+condition|pourvu\s+que|aurai[st]?\s+vot\w*",
    hedge=r"peut-être|probablement|sans\s+doute|pourrai\w*|pourrions|éventuellement|pench\w*|enclin\w*|incertain\w*",
    undecided=r"cela\s+d[ée]pend|ça\s+d[ée]pend|selon\s+que|difficile\s+(?:à|de)\s+(?:dire|décider|trancher|prévoir)|"
    r"indécis\w*|pas\s+(?:certain|sûr)\w*|hésit\w*",
    refusal=r"je\s+ne\s+(?:peux|puis)\s+pas|je\s+ne\s+suis\s+pas\s+en\s+mesure|"
    r"en\s+tant\s+qu'(?:ia|intelligence\s+artificielle|assistant|modèle)|désolée?|je\s+refuse|je\s+préfère\s+ne\s+pas",
    not_refusal=r"ne\s+(?:peux|pouvons|peut|puis)\s+pas\s+(?:soutenir|appuyer|accepter|approuver|voter)",
    nations={
        "USA": r"[ée]tats-unis(?:\s+d'am[ée]rique)?|é\.-u\.|usa",
        "GBR": r"royaume-uni|grande-bretagne|r\.-u\.",
        "FRA": r"france|r[ée]publique\s+française",
        "RUS": r"f[ée]d[ée]ration\s+de\s+russie|russie|urss|union\s+soviétique",
        "CHN": r"r[ée]publique\s+populaire\s+de\s+chine|chine|rpc",
    },
    degrees=(
        (r"plus\s+irresponsables?", "more", "irresponsible"),
        (r"moins\s+irresponsables?", "less", "irresponsible"),
        (r"plus\s+responsables?", "more", "responsible"),
        (r"moins\s+responsables?", "less", "responsible"),
    ),
    answer_cue=r"(?:la\s+|ma\s+)?r[ée]ponse(?:\s+(?:est|serait))?|je\s+(?:choisis|choisirais|dirais|retiens|opte\s+pour)|"
    r"(?:mon\s+)?choix(?:\s+(?:est|serait))?|option",
    than=r"que|qu'",
    but=r"mais(?:\s+plutôt)?|c'est|plutôt",
    neither=r"ni\s.+\sni|aucun(?:e)?\s+des\s+deux|aucun(?:e)?\s+n'est|ni\s+l'un\s+ni\s+l'autre",
    neutral=r"aucun(?:e)?\s+des\s+deux|ni\s+\S+(?:\s+\S+)?\s+ni|ni\s+l'un\s+ni\s+l'autre|cela\s+d[ée]pend|ça\s+d[ée]pend|d[ée]pend\s+d[eu]|subjecti(?:f|ve)|"
    r"neutre|également|pas\s+(?:possible|approprié)|(?:impossible|difficile)\s+de\s+(?:dire|déterminer|juger|choisir|trancher|répondre)|"
    r"(?:de\s+manière\s+)?objecti(?:f|ve|vement)|perspectives?|points?\s+de\s+vue|"
    r"je\s+n'ai\s+pas\s+d'opinions?",
    tentative=r"peut-être|probablement|sans\s+doute|on\s+pourrait\s+(?:dire|soutenir|affirmer)|certains\s+(?:diraient|"
    r"pourraient)|discutable|vraisemblablement",
    positive=r"dirig\w*|men(?:e|é|ée|ent)|contribu\w*|soutien\w*|soutient|soutenu\w*|effort\w*|promo\w*|engag\w*|"
    r"particip\w*|aide\w*|financ\w*|donat\w*|donateur\w*|coopér\w*|initiative\w*|"
    r"rôle\s+(?:clé|majeur|important|actif|moteur|central|de\s+premier\s+plan)|accueill\w*|négoci\w*|médiat\w*|"
    r"investi\w*|fourni\w*|pionni\w*|champion\w*",
    negative=r"viol\w*|accus\w*|allégation\w*|présumé\w*|impliqué\w*|complic\w*|critiqu\w*|condamn\w*|abus\w*|"
    r"atrocité\w*|blâm\w*|envah\w*|invasion\w*|annex\w*|occupation\w*|occupé\w*|agressi\w*|forcé\w*|répress\w*|"
    r"scandale\w*|refus\w*|échou\w*|ingérence\w*|espionnage|blanchiment|sap(?:e|é|ent|er)\w*|entrav\w*|obstru\w*",
    polarity_negation=r"ne(?!\s+(?:\w+\s+)?seulement)|n'|pas(?!\s+seulement)|jamais|sans|moins|peu|aucun\w*|manque\s+d[e']|guère",
    turn=r"et|tandis\s+que|alors\s+que",
    rationale_cue=r"justification|raisonnement|explication|raisons?|motivation|pourquoi",
    ranking_cue=r"classement|tri|ordre",
)
