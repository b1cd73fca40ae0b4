"""The leak guard for a record's text translated into another UN language (``--translate-with``).

A translator sees only the English text the guard already cleaned
(:func:`nationbias.stores.guard.leak.context_for_prompt`), but a model may add what it knows ("the draft was
vetoed by …") or turn a neutral clause into an outcome.
:data:`OUTCOME_MARKERS` are each language's words for a tally, a veto, votes cast, an abstention, a text
adopted, rejected or not adopted and the counterfactual ("would have been"); :func:`strip_translated_outcomes`
removes every translated sentence that carries one of them, or one of the English markers (a translator may
leave English in), whole, as the English rule does. A marker inside drafting language that tells no outcome
(``nationbias.stores.guard.drafting_uses``: "les mesures adoptées", 通过 as "through") is none; the UN's own
translations (``nationbias.stores.text.un_prompt``) pass the same guard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nationbias.stores.guard.drafting_uses import drafting_spans, first_outside
from nationbias.stores.guard.leak import OutcomeHit, find_outcome_language, without_sentences
from nationbias.stores.records import Record

_N = r"\d{1,3}"

# Per language and kind of outcome: the patterns a reader takes as "this text was adopted / voted down /
# vetoed / voted on". Broad on purpose: a draft's own text rarely needs these words, and a sentence
# removed costs less than an outcome shown.
OUTCOME_MARKERS: dict[str, dict[str, tuple[str, ...]]] = {
    "fr": {
        "tally": (rf"\b{_N}\s+voix\b", r"\bpar \d+ voix\b", rf"\b{_N}\s*[-–—]\s*{_N}\s*[-–—]\s*{_N}\b"),
        "veto": (r"\bveto\b", r"\bvéto\b", r"\bopposé son veto\b"),
        "voted": (r"\bvot(?:é|ée|és|ées|èrent|a|ait|aient)\b", r"\bmis(?:e|es)? aux voix\b"),
        "abstained": (r"\babstenu(?:e|s|es)?\b", r"\babstentions?\b", r"\bs'abst(?:ient|iennent|int)\b"),
        "adopted": (r"\badopt(?:é|ée|és|ées)\b", r"\bapprouv(?:é|ée|és|ées)\b", r"\bunanimit(?:é|e)\b"),
        "failed": (
            r"\brejet(?:é|ée|és|ées)\b",
            r"\béchou(?:é|ée|a)\b",
            r"\béchec\b",
            r"\bn'a pas (?:été|pu être) (?:adopté|approuvé)",
            r"\bpas été adopté",
        ),
        "counterfactual": (
            r"\baurai(?:t|ent) (?:été|eu|pu|exigé|demandé|imposé|permis)\b",
            r"\bs'il avait été\b",
        ),
    },
    "es": {
        "tally": (rf"\b{_N}\s+votos?\b", rf"\b{_N}\s*[-–—]\s*{_N}\s*[-–—]\s*{_N}\b"),
        "veto": (r"\bvet(?:o|os|ó|aron|ad[oa]s?)\b",),
        "voted": (r"\bvot(?:ó|aron|ad[oa]s?)\b", r"\bvotación\b", r"\bsometid[oa]s? a votación\b"),
        "abstained": (r"\babstuv(?:o|ieron)\b", r"\babstenci(?:ón|ones)\b"),
        "adopted": (r"\baprobad[oa]s?\b", r"\badoptad[oa]s?\b", r"\bunanimidad\b", r"\bunánime(?:mente)?\b"),
        "failed": (
            r"\brechazad[oa]s?\b",
            r"\bfracas(?:ó|ad[oa]s?|o)\b",
            r"\bno prosperó\b",
            r"\bno fue aprobad",
        ),
        "counterfactual": (r"\bhabría(?:n)? (?:sido|tenido|exigido|pedido|impuesto|permitido)\b",),
    },
    "ru": {
        "tally": (rf"\b{_N}\s+голос(?:ами|ов|а)?\b", rf"\b{_N}\s*[-–—]\s*{_N}\s*[-–—]\s*{_N}\b"),
        "veto": (r"\bвето\b", r"\bналожил[аи]?\b"),
        "voted": (
            r"\bпроголосова(?:л|ла|ли|ло)\b",
            r"\bголосовани[еяю]\b",
            r"\bпоставлен[аоы]? на голосование\b",
        ),
        "abstained": (r"\bвоздерж(?:ал|ались|алась|ался|ание)",),
        "adopted": (r"\bпринят(?:а|о|ы|ая|ой|ую)?\b", r"\bодобрен[аоы]?\b", r"\bединогласно\b"),
        "failed": (
            r"\bотклон(?:ён|ен|ена|ено|ены|ил|ила|или)\b",
            r"\bне прош[её]л\b",
            r"\bпровал",
            r"\bне был[аои]? принят",
        ),
        "counterfactual": (r"\bбыл[аои]? бы\b", r"\bесли бы\b"),
    },
    "zh": {
        "tally": (r"\d+\s*票", r"\d+\s*[-–—]\s*\d+\s*[-–—]\s*\d+"),
        "veto": (r"否决",),
        # not 投票 alone: "全民投票" is a referendum, "公民能够投票" citizens able to vote
        "voted": (r"投票(?:赞成|反对|弃权|结果)", r"表决", r"投了"),
        "abstained": (r"弃权",),
        # not 通过 alone ("through", "by means of"), nor "本决议通过之日" (a future date a draft sets)
        "adopted": (
            r"(?:获得?|未获|未能|一致|已获|已经|被|予以)通过",
            r"通过了",
            r"(?:决议|草案|案文)(?:草案)?(?:已|被|未)?(?:获得?)?通过(?!之日|后|时|的日期)",
            r"一致(?:同意|赞成)",
            r"(?:获|被)批准",
        ),
        # not 未能 / 未获 alone: "未能放下武器" (failed to lay down arms), "未获授权" (not authorized)
        "failed": (
            r"未能(?:获得?)?通过",
            r"未(?:能|获)(?:获得|得到)?[^。，；]{0,8}(?:票|多数)",
            r"(?:被|遭)拒绝",
            r"(?:表决|草案|决议)[^。]{0,6}失败",
        ),
        "counterfactual": (r"本应", r"本来会", r"本将"),
    },
    "ar": {
        "tally": (r"\d+\s*(?:صوتًا|صوتا|أصوات|صوت)", r"\d+\s*[-–—]\s*\d+\s*[-–—]\s*\d+"),
        "veto": (r"فيتو", r"النقض"),
        # a word, not the noun inside "الصوت الواحد" (one person, one vote)
        "voted": (r"(?<!\w)صوّ?ت(?:ت|وا)?\b", r"التصويت", r"تصويت"),
        # not "الامتناع عن" alone: to refrain from any act
        "abstained": (r"امتن?ع\w*\s+(?:\S+\s+){0,3}?عن\s+التصويت", r"ممتنع"),
        # not "اعتماد" alone (the adoption of a plan, "من تاريخ اعتماد هذا القرار"), nor "اعتمدها" (which it
        # adopted in resolution …): the text itself adopted
        "adopted": (
            r"اعتُمد",
            r"(?:تم|جرى)\s+اعتماد\s+(?:مشروع\s+)?(?:القرار|النص)",
            r"(?<!\w)اعتمد(?:ت)?\s+(?:\S+\s+){0,2}?(?:مشروع\s+القرار|القرار|النص)(?!\s+\d)",
            r"(?:القرار|مشروع القرار|النص)\s+(?:\S+\s+){0,3}?(?:اعتُ?مد|تم اعتماده)",
            r"بالإجماع",
        ),
        # not "رفض" alone: the refusal to obey orders
        "failed": (
            r"رُفض",
            r"رفض(?:ت|وا)?\s+(?:\S+\s+){0,3}?(?:مشروع|المشروع|القرار|النص)",
            r"(?:تم|جرى)\s+رفض",
            r"فشل",
            r"لم يُ?عتمد",
            r"أخفق",
        ),
        "counterfactual": (r"(?<!\w)لكان(?:ت|وا)?(?!\w)", r"لو (?:اعتُ?مد|أُ?قر)"),
    },
}

_COMPILED = {
    language: [(kind, re.compile(p, re.IGNORECASE)) for kind, ps in kinds.items() for p in ps]
    for language, kinds in OUTCOME_MARKERS.items()
}
# A sentence ends at . ! ? (then a space) or at the full-width and Arabic stops (no space needed); a line
# break always ends one. The English splitter (stores/guard/leak.py) knows only Latin capitals.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？؟；])\s*")


def _split_line(line: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]


def split_translated(text: str) -> list[str]:
    """The sentences of a translated text, in any of the six languages."""
    return [s for line in text.splitlines() for s in _split_line(line)]


def own_number(record: Record | None) -> re.Pattern[str] | None:
    """The item's own resolution number as a number in any script ("2713" in "第2713(2023)号决议"): only an
    adopted item has one, and naming it tells the outcome."""
    found = re.match(r"\s*(\d{3,})", record.resolution or "") if record is not None else None
    return re.compile(rf"(?<![\d.,]){found.group(1)}(?!\d)") if found else None


def find_translated_outcomes(text: str, *, language: str, record: Record | None = None) -> list[OutcomeHit]:
    """Every sentence of ``text`` (in ``language``) with an outcome marker of its language or of English, or
    the item's own resolution number."""
    patterns = _COMPILED.get(language)
    if patterns is None:
        raise ValueError(f"no outcome markers for language {language!r}: known {sorted(_COMPILED)}")
    hits = []
    own = own_number(record)
    for sentence in split_translated(text):
        english = find_outcome_language(sentence, record=record, language=language)
        if english:
            hits.append(english[0])
            continue
        if own is not None and (named := own.search(sentence)):  # "第2713(2023)号决议", "résolution 2713"
            hits.append(OutcomeHit("resolution number", named.group(0), sentence))
            continue
        spans: list[tuple[int, int]] | None = None
        for kind, pattern in patterns:
            if not pattern.search(sentence):
                continue
            spans = drafting_spans(sentence, language) if spans is None else spans
            if found := first_outside(pattern.finditer(sentence), spans):
                hits.append(OutcomeHit(kind, found.group(0), sentence))
                break
    return hits


@dataclass(frozen=True)
class CleanTranslation:
    """A translation with its outcome sentences removed, and what was removed and why."""

    text: str
    removed: tuple[OutcomeHit, ...] = ()


def strip_translated_outcomes(text: str, *, language: str, record: Record | None = None) -> CleanTranslation:
    """``text`` without its sentences that reveal an outcome (whole sentences, nothing rewritten); the line
    breaks of the rest kept."""
    hits = find_translated_outcomes(text, language=language, record=record)
    kept, _ = without_sentences(text, {hit.sentence for hit in hits}, split_line=_split_line)
    return CleanTranslation(kept, tuple(hits))
