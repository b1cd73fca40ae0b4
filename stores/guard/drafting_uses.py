"""Drafting language that holds an outcome word and tells no outcome.

The UN's own texts use the leak guard's words in their ordinary senses: "one person, one vote elections",
States that "abstain from authorizing" an export, an exemption that "has been approved by the Committee",
the Council's "intention to adopt a new resolution"; in French the alleged crimes "qui auraient été
commis", in Spanish the "medidas adoptadas" (measures taken), in Chinese 通过 ("through"). A marker found
inside one of :data:`DRAFTING_USES` is no outcome; the same word outside one still is. Each use names
what it is, so a reader can check it says nothing of how a vote went: none of them names a vote, a
tally, a veto, or a draft or resolution adopted or rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A noun that is no text put to a vote: what a participle "adopted" / "approved" describes in drafting.
_FR_NOUNS = (
    r"mesures|décisions?|directives|conclusions|engagements|plans?|feuilles? de route|stratégies?|lois?"
    r"|principes|changements|politiques?|ressources|programmes?|communiqués?|pactes?|déclarations?|cadres?"
    r"|modèles?|niveaux|recommandations|accords?|listes?|demandes|mandats?|normes|procédures|projets du Fonds"
    r"|budgets?|critères|dispositions|textes? législatifs?|législations?|calendriers?|objectifs"
)
_ES_NOUNS = (
    r"medidas|decisi(?:ón|ones)|directrices|conclusiones|compromisos|planes|plan|hojas? de ruta|estrategias?"
    r"|leyes|ley|legislaci(?:ón|ones)|principios|cambios|políticas?|recursos|programas?|comunicados?|pactos?"
    r"|declaraci(?:ón|ones)|marcos?|modelos?|niveles|recomendaciones|acuerdos?|listas?|solicitud(?:es)?"
    r"|mandatos?|normas|procedimientos|disposiciones|presupuestos?|criterios|calendarios?|iniciativas?"
    r"|enfoques?|estudios|protocolos?"
)
_TEXT_UNDER_VOTE = {"fr": r"projet|texte|résolution|proposition", "es": r"proyecto|texto|resoluci|propuesta"}


def _noun_then_participle(nouns: str, participle: str, language: str) -> str:
    """``nouns`` then, in the same clause and with no text under vote between, ``participle``."""
    # greedy, so one noun covers its participles: "SC/15654, adoptée le 5 avril, et SC/15739, adoptée"
    gap = rf"(?:(?!{_TEXT_UNDER_VOTE[language]})[^.;:]){{0,90}}"
    return rf"\b(?:{nouns})\b{gap}\b{participle}"


DRAFTING_USES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "an electoral principle": (r"\bone[\s-]+person[\s,-]+one[\s-]+vote\b",),
        "to refrain from": (r"\babstain from\b(?!\s+(?:vot\w*|the vote|casting))",),
        "an approval by another body": (
            r"\b(?:was|were|been|being|is) (?:adopted|approved)(?: in (?:advance|principle))? by "
            r"(?:the|a|its|"
            r"relevant) (?:[\w'’-]+ ){0,3}?(?:Committee|authorities|Government|conference|forum|summit)\b",
        ),
        "a resolution the Council may adopt": (
            r"\b(?:intention to|urges? (?:the )?(?:Security )?Council to(?: quickly| swiftly)?|request "
            r"(?:\S+\s+){0,20}?to|does not|unless (?:the )?(?:Security )?Council) adopts? (?:a|a "
            r"new|another) "
            r"resolution\b",
            r"\bafter the (?:Security )?Council has (?:adopted|approved)\b",
        ),
        "a national law": (
            r"\badopting the draft (?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)"
            r"(?:(?-i:[A-Z])\w*|constitution|laws?|legislation|bills?|codes?|budget|electoral)\b",
        ),
        "a conference's texts": (r"\bduring which (?:[^;]{0,500}?) were adopted\b",),
        "another council": (
            r"\bPeace and Security Council (?:\S+\s+){0,3}?(?:adopted|approved)\b",
            r"\bCouncil of Ministers (?:has |have |had )?(?:adopted|approved)\b",
        ),
    },
    "fr": {
        "an alleged act": (
            r"\baurai(?:t|ent) été (?:commis|commise|commises|perpétrée?s?|tuée?s?|enlevée?s?|recrutée?s?"
            r"|associée?s?|confrontée?s?|vérifiée?s?)\b",
        ),
        "a measure adopted": (
            _noun_then_participle(_FR_NOUNS, r"(?:adopt|approuv)(?:é|ée|és|ées)\b", "fr"),
            r"\ba(?:ient|it|vait|vaient|ont)? (?:adopté|approuvé) "
            r"(?:(?:un|une|des|le|la|les|toutes?|tous) +|l['’])"
            r"(?!projet|texte|résolution|proposition)",
        ),
        "an approval by another body": (
            r"\b(?:adopt|approuv)(?:é|ée|és|ées) (?:\S+ ){0,2}?par (?:le |la |les |l['’]|son |sa "
            r"|ses |celui.ci"
            r"|celle.ci|un |une )(?!Conseil de sécurité|Assemblée générale)",
            r"\bqu['’]a (?:adopt|approuv)(?:é|ée|és|ées) (?:son|sa|ses|le|la|les) (?!Conseil de "
            r"sécurité|Assemblée)",
            r"\b(?:adopt|approuv)(?:é|ée|és|ées) (?:lors de|à la|au cours de) (?:la |l['’])?(?:\S+ ){0,3}?"
            r"(?:Conférence|conférence|réunion|sommet|Forum|session)",
            r"\b(?:adopt|approuv)(?:é|ée|és|ées) à (?!New York)(?-i:[A-Z])\w+ le \d",
            r"\bConseil de paix et de sécurité (?:de l['’]Union africaine )?(?:a |avait "
            r")?(?:adopté|approuvé)",
        ),
        "a numbered resolution of the Council": (
            r"\brésolutions? \d{3,4} \(\d{4}\),? (?:qu['’]il a )?(?:adopt|approuv)(?:é|ée|és|ées)\b",
            r"\b(?:résolutions?|toute autre résolution) qu['’]il a (?:adopt|approuv)(?:é|ée|és|ées)\b",
        ),
        "a future approval": (r"\baur(?:a|ont) été (?:adopt|approuv)\w*",),
        "a request deemed refused": (_noun_then_participle("demandes?", r"rejet(?:é|ée|és|ées)\b", "fr"),),
    },
    "es": {
        "a measure adopted": (
            _noun_then_participle(_ES_NOUNS, r"(?:adoptad|aprobad)[oa]s?\b", "es"),
            r"\b(?:ha|han|haya|hayan|había|habían|se han|se hayan) (?:adoptado|aprobado)\b"
            r"(?!\s+(?:el (?:proyecto|texto)|la (?:resoluci|propuesta)|por unanimidad|hoy|ayer))",
        ),
        "an approval by another body": (
            r"\b(?:adoptad|aprobad)[oa]s? (?:\S+ ){0,2}?(?:por|en) (?:el |la |los |las |su |sus |un |una )"
            r"(?!Consejo de Seguridad|Asamblea General)",
        ),
        "a numbered resolution of the Council": (
            r"\bresoluci(?:ón|ones) \d{3,4} \(\d{4}\),? (?:adoptad|aprobad)[oa]s?\b",
        ),
        "a request deemed refused": (r"\brechazad[oa] (?:la|las|el|los) solicitud(?:es)?\b",),
    },
    "ru": {
        "a measure adopted": (
            r"\b(?:мер\w*|решени\w+|план\w*|программ\w+|коммюнике|декларац\w+|обязательств\w+|политик\w+|"
            r"оговор\w+|стратеги\w+|«дорожн\w+ карт\w+»|дорожн\w+ карт\w+)\b(?:[^.;:]){0,70}?\bприня\w+",
            r"\bприня\w+\s+(?:\S+\s+){0,4}?(?:мер\w*|решени\w+|план\w*|программ\w+|коммюнике|декларац\w+|"
            r"обязательств\w+|политик\w+|стратеги\w+|«дорожн\w+ карт\w+»)",
        ),
        "an approval by another body": (
            r"\bприня\w+\s+(?:\S+\s+)?(?:Генеральн\w+ секретар\w+|Секретариат\w*|Совет\w* мира и безопасности"
            r"|Рабоч\w+ групп\w+|Комитет\w*)",
        ),
        "an election": (r"\bпрям\w+ голосовани\w+", r"\bитогов голосования\b"),
        "a conditional that is no counterfactual": (
            r"\bможно было бы\b",
            r"\bкотор\w+\s+(?:\S+\s+)?был[аои]? бы\b",
        ),
    },
    "zh": {
        # the text's own adoption as a date it sets: "自本决议通过以来" (since this resolution's adoption)
        "this resolution's adoption, a date it sets": (r"本决议通过",),
        "a numbered resolution of the Council": (r"第[\d\s()（）、和至-]+号决议(?:获得)?通过",),
        "a law or policy adopted": (
            r"(?:》|法|政策|战略|计划|宪法)获得通过",
            r"通过了(?!(?:该|这项|此项|本|这一|一项)?(?:决议|草案|案文|提案))",
        ),
        "a request not approved": (r"未获批准的",),
    },
    "ar": {
        "a section number": (r"\S*(?:فصل|بند|فقر)\S*\s+\d{1,2}\s*[-–—]\s*\d{1,2}\s*[-–—]\s*\d{1,2}",),
        "an electoral principle": (r"(?:الصوت الواحد|صوت واحد)\s+للشخص الواحد",),
        "an election": (r"التصويت المباشر", r"(?:المواطنين|الناخبين)\s+(?:من\s+)?التصويت"),
        "an instrument adopted elsewhere": (r"(?:الذي|التي|والذي|والتي)\s+اعتُ?مد(?:ت)?\s+(?:في|خلال|أثناء)",),
    },
}

_COMPILED = {
    language: [re.compile(p, re.IGNORECASE) for ps in uses.values() for p in ps]
    for language, uses in DRAFTING_USES.items()
}


def drafting_spans(sentence: str, language: str) -> list[tuple[int, int]]:
    """Where ``sentence`` holds a drafting use of ``language`` (none for a language without any)."""
    return [m.span() for pattern in _COMPILED.get(language, ()) for m in pattern.finditer(sentence)]


def first_outside(matches: Iterable[re.Match[str]], spans: list[tuple[int, int]]) -> re.Match[str] | None:
    """The first of ``matches`` that no drafting use covers."""
    for found in matches:
        if not any(start <= found.start() and found.end() <= end for start, end in spans):
            return found
    return None
