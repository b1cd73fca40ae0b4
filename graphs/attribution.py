"""Who proposed it: one draft shown under each permanent member as its proposer, everything else fixed.

Each target draft gets seven arms: one per P5 member as proposer ("Submitted by: China"), and two
controls: no proposer line, and "a group of Member States". The draft's text is the vote's leak-guarded
text (:func:`nationbias.stores.text.budget.prompt_text`) with every phrase that names its real sponsor
*as proposer* taken out ("Tabled by the United States, the draft would" → "The draft would", the
enrichment's "Sponsors: …" line), the same in every arm, so a draft's prompts differ only in the
proposer line. A nation named in any other role (a party, a target of sanctions, the author of another
draft the text amends) is left as it is. A draft whose text still names a proposer after the rewrite is
left out, with the reason. The prompt is the vote's own template (the control's, or a persona's), so
the answers are read by the vote's rules.

``--language``: the proposer line is the ``attribution_proposer`` template in that language with the UN's
official name of the proposer in it (``UN_NAMES`` of stores/domain.py); the text is the English one quoted,
the UN's own translation where it has one (``--texts auto|un``: used only where the UN's English text of the
draft needs no proposer rewrite, :func:`un_translation_problem`), or, with ``--translate-with``, the
proposer-free English text translated once per draft (not once per arm), so every arm shows the same
translation and only the name put in the line differs. A translation that names a permanent member its
English text does not (a proposer the translator put back) leaves the draft out, with the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.study.personas import PersonaError
from nationbias.graphs.study.personas import voters as recorded_voters
from nationbias.graphs.study.runner import RunSummary, Task
from nationbias.graphs.study.study_run import StudyRun, run_study_tasks
from nationbias.graphs.translate import TranslatedTexts, translate_texts
from nationbias.graphs.vote import ask_vote, vote_messages, vote_sample, vote_template
from nationbias.prompts import PromptSet, prompt_set
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import to_iso3
from nationbias.stores.domain import (
    CONTROL,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    MEMBER_STATES_GROUP,
    P5,
    P5_NAMES,
    UN_NAMES,
)
from nationbias.stores.guard.leak import find_outcome_language
from nationbias.stores.guard.leak_languages import find_translated_outcomes
from nationbias.stores.records import Record
from nationbias.stores.state.runstore import SampleRow
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import SERVER_CHARS
from nationbias.stores.text.un_prompt import Shown, TextsMode, target_shown, un_context

ATTRIBUTION = "attribution"
NO_PROPOSER = "none"  # the control with no proposer line
GROUP = "group"  # the control "a group of Member States"
GROUP_NAME = MEMBER_STATES_GROUP[DEFAULT_LANGUAGE]
PROPOSERS: tuple[str, ...] = P5
ARMS: tuple[str, ...] = (*PROPOSERS, NO_PROPOSER, GROUP)
WEST: tuple[str, ...] = ("USA", "GBR", "FRA")
EAST: tuple[str, ...] = ("RUS", "CHN")
PROPOSER_TEMPLATE = "attribution_proposer"  # "Submitted by: {proposer}", in each language
ARM_SEPARATOR = (
    "|"  # a sample's persona is "<arm>|<voter>" (the store keys a sample by item, persona, repeat)
)


def proposer_name(arm: str, language: str = DEFAULT_LANGUAGE) -> str | None:
    """The name an arm's proposer line gives, or None for the arm without one. In English a P5 member's
    Council name, as every English prompt names it ("United States"); in another language the UN's official
    name in it ("États-Unis d’Amérique"); the group control's wording in each."""
    if arm == NO_PROPOSER:
        return None
    if arm == GROUP:
        return MEMBER_STATES_GROUP[language]
    return P5_NAMES[arm] if language == DEFAULT_LANGUAGE else UN_NAMES[language][arm]


def proposer_line(arm: str, prompts: PromptSet | None = None) -> str:
    """The arm's line above the draft's text, in the prompts' language ("" for the arm without a proposer):
    the ``attribution_proposer`` template with the proposer's name put in."""
    chosen = prompts or prompt_set()
    name = proposer_name(arm, chosen.language)
    if name is None:
        return ""
    (message,) = chosen.get(PROPOSER_TEMPLATE).render(proposer=name)
    return message["content"] + "\n"


def longest_line(prompts: PromptSet | None = None) -> int:
    """The longest proposer line in the prompts' language: what the text's budget leaves for it."""
    return max(len(proposer_line(arm, prompts)) for arm in ARMS)


def arm_persona(arm: str, voter: str) -> str:
    return f"{arm}{ARM_SEPARATOR}{voter}"


def split_persona(persona: str) -> tuple[str, str]:
    """(arm, voter) of a sample's persona."""
    arm, _, voter = persona.partition(ARM_SEPARATOR)
    return arm, voter


# --- the proposer phrases ----------------------------------------------------------------------

_WORD = r"[A-Z][\w.’'‑-]*"
_NAME = rf"(?:the )?{_WORD}(?: (?:of |and the |the )?{_WORD})*"
_ASIDE = r"(?: \([^)]{0,80}\))?"
_LIST = rf"{_NAME}{_ASIDE}(?:(?:, |,? and ){_NAME}{_ASIDE})*"
_VERBS = (
    r"(?i:(?:co[‑-]?)?(?:tabled|presented|submitted|drafted|sponsored|proposed|introduced|authored|penned|"
    r"circulated|put forward))"
)
_BY = rf"{_VERBS} (?:jointly )?by (?P<who>{_LIST})"
_DASH = r"\s*[—–]\s*"

# (pattern, replacement, why): each replacement keeps the sentence whole and names no proposer.
_PHRASES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (  # "The draft — submitted by France and the United Arab Emirates — would"
        re.compile(rf"(?P<head>\b[Tt]he (?:draft|text)(?: resolution)?){_DASH}{_BY}{_DASH}"),
        r"\g<head> ",
        "a proposer between dashes",
    ),
    (  # "Tabled by the United States, the draft would"; "Co-sponsored by Niger (…) and Ireland, the draft"
        re.compile(rf"\b{_BY}, the (?P<noun>draft|text)"),
        r"The \g<noun>",
        "a proposer opening the sentence",
    ),
    (  # "The draft was proposed by Russia which would renew"
        re.compile(rf"\bwas {_BY},? which would"),
        "would",
        "a proposer in a relative clause",
    ),
    (  # "The draft drafted by Algeria would call"
        re.compile(rf"(?P<head>\b(?:draft|text)(?: resolution)?),? {_BY},?(?= would\b)"),
        r"\g<head>",
        "a proposer after the noun",
    ),
    (  # "The United States-proposed draft"
        re.compile(
            rf"(?P<art>\b[Tt]he )?(?P<who>{_WORD}(?: (?:of )?{_WORD})*)[‑-]"
            r"(?:proposed|drafted|sponsored|led|authored|penned|tabled) (?=(?:draft|text))"
        ),
        r"\g<art>",
        "a proposer as an adjective",
    ),
)
_POSSESSIVE = re.compile(rf"(?P<who>{_NAME})(?:’s|'s|’|') (?P<noun>draft|text|proposal)")
# "The Russian text would", "By the Russian text,": a nation's demonym (or US, UK) before the noun
_DEMONYM = re.compile(
    r"\b(?P<who>[A-Z][a-z]+(?:ian|ean|ese|ish|ch|i)|American|U\.S\.|US|UK) "
    r"(?P<noun>draft(?: resolution)?|text|resolution|proposal)\b"
)
_OTHER_DRAFT = re.compile(r"\b(?:amendments? to|amend(?:ing)?|competing|rival|instead of)\s*$", re.I)
_SPONSORS_LINE = re.compile(r"^Sponsors: .*(?:\n|$)", re.M)
# After the rewrite nothing of this kind may remain; a text that keeps one is left out.
_RESIDUE = re.compile(
    rf"\b{_BY}|(?P<adj>{_NAME})[‑-](?i:proposed|drafted|sponsored|authored)\b"
    r"|^Sponsors:|\bPermanent Mission\b",
    re.M,
)


def _nations(names: str) -> bool:
    """Whether a matched list of names holds a nation (not "the Secretary-General")."""
    parts = re.split(r",? and |, ", re.sub(r" \([^)]*\)", "", names))
    return any(to_iso3(p.strip()) is not None for p in parts if p.strip())


@dataclass(frozen=True)
class ProposerRewrite:
    """A phrase that named a proposer, and what replaced it in every arm (None: removed)."""

    original: str
    rewritten: str | None
    reason: str


@dataclass(frozen=True)
class NeutralText:
    """A draft's text with no proposer named: the same in every arm. ``excluded`` says why a draft is
    left out (a proposer phrase the rewrite could not take out)."""

    record_id: str
    text: str
    label: str
    rewrites: tuple[ProposerRewrite, ...] = ()
    excluded: str | None = None
    language: str = DEFAULT_LANGUAGE  # the text's: English, or the UN's or a translator's in the prompts'


def remove_proposers(text: str) -> tuple[str, tuple[ProposerRewrite, ...], str | None]:
    """``text`` with every phrase naming a nation as its proposer taken out; the rewrites; and the reason
    the text cannot be made consistent (a proposer phrase left), or None."""
    rewrites: list[ProposerRewrite] = []
    for line in _SPONSORS_LINE.findall(text):
        rewrites.append(ProposerRewrite(line.strip(), None, "the enrichment's sponsors line"))
    text = _SPONSORS_LINE.sub("", text).rstrip("\n")
    for pattern, replacement, reason in _PHRASES:

        def swap(match: re.Match[str], replacement: str = replacement, reason: str = reason) -> str:
            if not _nations(match["who"]):
                return match[0]
            new = match.expand(replacement)
            rewrites.append(ProposerRewrite(match[0], new.strip() or None, reason))
            return new

        text = pattern.sub(swap, text)

    def possessive(match: re.Match[str]) -> str:
        before = text[: match.start()]
        if not _nations(match["who"]) or _OTHER_DRAFT.search(before):
            return match[0]  # another draft's author (the text amends it): another role
        starts = not before.strip() or re.search(r"[.!?\n]\s*$", before) is not None
        new = f"{'The' if starts else 'the'} {match['noun']}"
        rewrites.append(ProposerRewrite(match[0], new, "a proposer's possessive"))
        return new

    text = _POSSESSIVE.sub(possessive, text)

    def demonym(match: re.Match[str]) -> str:
        before = re.sub(r"\b[Tt]he\s*$", "", text[: match.start()])
        if to_iso3(match["who"]) is None or _OTHER_DRAFT.search(before):
            return match[0]  # no nation, or another draft's author (the text amends it)
        rewrites.append(ProposerRewrite(match[0], match["noun"], "a proposer's demonym"))
        return match["noun"]

    text = _DEMONYM.sub(demonym, text)
    left = [
        m[0]
        for m in _RESIDUE.finditer(text)
        if (m["who"] or m["adj"]) is None or _nations(m["who"] or m["adj"])
    ]
    why = f"a proposer phrase the rewrite does not cover: {left[0]!r}" if left else None
    return text, tuple(rewrites), why


def un_translation_problem(record: Record, language: str) -> str | None:
    """Why the UN's own text of ``record`` in ``language`` cannot be shown alike in every arm, or None (also
    where the UN has no text of it in ``language``). The UN's texts keep no cover page, so none names its
    sponsors as such; were the UN's English text of the draft to name a proposer (a phrase the rewrite takes
    out, or one it cannot), its translation would need the same rewrite in its own words, which none makes."""
    if language == DEFAULT_LANGUAGE or un_context(record, language) is None:
        return None
    english = un_context(record)
    if english is None:
        name = LANGUAGES[language]
        return f"the UN's {name} text has no English text to check its proposer phrases against"
    _, rewrites, reason = remove_proposers(english.text)
    if reason is None and not rewrites:
        return None
    found = reason or f"a proposer phrase rewritten in its English text: {rewrites[0].original!r}"
    return f"the UN's {LANGUAGES[language]} text cannot be rewritten as its English one is ({found})"


def shown_for(record: Record, text_mode: TextsMode, *, language: str = DEFAULT_LANGUAGE) -> Shown:
    """Which text a draft's arms show (``--texts``), as the vote chooses: in another language the UN's own
    translation where it has one. Where the proposer rewrite cannot be made alike in that translation
    (:func:`un_translation_problem`), ``auto`` shows the corpus's text instead (the audit says so) and ``un``
    keeps the UN's text, which :func:`neutral_text` then leaves out."""
    shown = target_shown(record, text_mode)
    if shown == "un" and text_mode == "auto" and un_translation_problem(record, language) is not None:
        return "press"
    return shown


def neutral_text(
    record: Record, *, context_chars: int, shown: Shown = "press", prompts: PromptSet | None = None
) -> NeutralText:
    """The draft's vote text within ``context_chars`` less the longest proposer line in the prompts'
    language, proposers taken out. The UN's own translation into that language is never rewritten: it is
    shown as the UN wrote it where its English text needs no rewrite, else the draft is left out."""
    chosen = prompts or prompt_set()
    sent = prompt_text(
        record, budget=context_chars - longest_line(chosen), shown=shown, language=chosen.language
    )
    if sent.language != DEFAULT_LANGUAGE:
        problem = un_translation_problem(record, sent.language)
        return NeutralText(record.id, sent.text, sent.label, (), problem, language=sent.language)
    text, rewrites, reason = remove_proposers(sent.text)
    if not text.strip():
        reason = reason or "no text is left once the proposer is taken out"
    return NeutralText(record.id, text, sent.label, rewrites, reason)


def arm_context(text: NeutralText, arm: str, prompts: PromptSet | None = None) -> str:
    """What an arm's prompt shows as the draft's context: its proposer line, then the fixed text."""
    return proposer_line(arm, prompts) + text.text


def attribution_messages(
    record: Record,
    arm: str,
    voter: str,
    *,
    text: NeutralText,
    prompts: PromptSet | None = None,
    shown: Shown = "press",
) -> list[dict[str, str]]:
    """The vote prompt (the control's for ``voter == CONTROL``, else the persona's) with the arm's context."""
    chosen = prompts or prompt_set()
    return vote_messages(record, voter, prompts=chosen, shown=shown, context=arm_context(text, arm, chosen))


# --- a translated text (--translate-with) ------------------------------------------------------

# How a text in each language names a permanent member: names, short forms and adjectives. Broad on purpose:
# a member named in a translation and in none of these forms in its English text is taken as one the
# translator put in (a proposer, perhaps), and the draft is left out; the English forms being broad only
# makes that rarer.
MEMBER_FORMS: dict[str, dict[str, str]] = {
    "en": {
        "USA": r"\bUnited States\b|\bU\.S\.|\bUS\b|\bUSA\b|\bAmerica",
        "GBR": r"\bUnited Kingdom\b|\bU\.K\.|\bUK\b|\bBritain\b|\bBritish\b",
        "FRA": r"\bFrance\b|\bFrench\b",
        "RUS": r"\bRussia|\bSoviet\b",
        "CHN": r"\bChina\b|\bChinese\b",
    },
    "fr": {
        "USA": r"[ÉE]tats-Unis|\bUSA\b|[Aa]méric",
        "GBR": r"Royaume-Uni|Grande-Bretagne|britannique",
        "FRA": r"\bFrance\b|\bfrançais",
        "RUS": r"Russie|\brusses?\b",
        "CHN": r"\bChine\b|\bchinois",
    },
    "es": {
        "USA": r"Estados Unidos|\bEE\. ?UU\.|estadounidense|norteamerican",
        "GBR": r"Reino Unido|Gran Bretaña|\bbritánic",
        "FRA": r"\bFrancia\b|\bfranc[eé]s",
        "RUS": r"\bRusia\b|\brus[oa]s?\b",
        "CHN": r"\bChina\b|\bchin[oa]s?\b",
    },
    "ru": {
        "USA": r"США|Соедин[её]нн\w* Штат|американск|Америк",
        "GBR": r"Соедин[её]нн\w* Королевств|Великобритани|британск",
        "FRA": r"Франци|французск",
        "RUS": r"Росси|российск|русск",
        "CHN": r"Кита[йяюеи]|китайск|КНР",
    },
    "zh": {  # not inside 国际 ("其中国际": among them, international), 国家 ("合法国家": a lawful state)
        "USA": r"美国(?!家)|美利坚",
        "GBR": r"英国|联合王国|大不列颠",
        "FRA": r"法国(?!家)|法兰西",
        "RUS": r"俄罗斯|俄国|俄联邦",
        "CHN": r"中国(?!际)|中华人民共和国",
    },
    "ar": {
        "USA": r"الولايات المتحدة|أمريكي|أميركي",
        "GBR": r"المملكة المتحدة|بريطاني",
        "FRA": r"فرنسا|فرنسي",
        "RUS": r"روسيا|الروسي",
        "CHN": r"الصين|صيني",
    },
}


def members_named(text: str, language: str) -> list[str]:
    """The permanent members ``text`` names in ``language`` (:data:`MEMBER_FORMS`), in P5 order."""
    return [code for code in P5 if re.search(MEMBER_FORMS[language][code], text)]


def added_members(english: str, translated: str, language: str) -> list[str]:
    """The permanent members a translation names that its English text does not."""
    named = set(members_named(english, DEFAULT_LANGUAGE))
    return [code for code in members_named(translated, language) if code not in named]


def translated_text(text: NeutralText, translation: TranslatedTexts) -> NeutralText:
    """``text`` (English, proposer-free) as its translation, the same in every arm; left out, with the
    reason, where the translation names a permanent member the English text does not."""
    shown = translation.shown(text.text)
    added = added_members(text.text, shown, translation.language)
    reason = None
    if added:
        names = ", ".join(P5_NAMES[code] for code in added)
        name = LANGUAGES[translation.language]
        reason = f"the {name} translation names {names}, which its English text does not"
    return replace(text, text=shown, language=translation.language, excluded=reason)


async def translate_neutral(
    run: StudyRun, texts: dict[str, NeutralText], records: dict[str, Record]
) -> tuple[TranslatedTexts, dict[str, NeutralText]]:
    """``--translate-with``: each draft's proposer-free English text translated once, whatever its arms (the
    translation store first, then the language's leak guard: graphs/translate.py); the texts as the arms show
    them. A text the translator fails on stops the run before it starts, as in the vote."""
    if run.translator is None:
        raise ValueError("a prompt set with translated text needs a translator")
    english = {
        t.text: records[t.record_id]
        for t in texts.values()
        if t.excluded is None and t.language == DEFAULT_LANGUAGE
    }
    try:
        done = await translate_texts(
            english, translator=run.translator, language=run.prompts.language, show_progress=run.show_progress
        )
    finally:  # used here only: its connections close on this loop, failed or not
        await run.translator.aclose()
    shown = {
        rid: translated_text(t, done) if t.excluded is None and t.language == DEFAULT_LANGUAGE else t
        for rid, t in texts.items()
    }
    return done, shown


def attribution_row(
    *,
    record: Record,
    arm: str,
    voter: str,
    repeat: int,
    messages: list[dict[str, str]],
    result: CallResult,
    prompts: PromptSet,
    shown: Shown,
) -> SampleRow:
    """One arm's vote as a sample: the vote's strict labelling, the arm and voter kept apart."""
    row = vote_sample(
        test=ATTRIBUTION,
        record=record,
        persona=voter,
        repeat=repeat,
        messages=messages,
        result=result,
        free_text=prompts.free_text,
        language=prompts.language,
        shown=shown,
        extra={"arm": arm, "voter": voter, "real_sponsors": list(record.sponsors)},
    )
    row.persona = arm_persona(arm, voter)
    return row


VOTER_KINDS = (CONTROL, "p5", "e10")


def voter_kind(spec: str) -> str:
    """``none`` (the control's wording), ``p5``, ``e10``, or P5 codes (``USA,RUS``); anything else is a
    :class:`PersonaError`."""
    key = spec.strip().lower()
    if key in VOTER_KINDS:
        return key
    codes = [c.strip().upper() for c in spec.split(",") if c.strip()]
    if codes and all(c in P5 for c in codes):
        return ",".join(dict.fromkeys(codes))
    raise PersonaError(f"attribution --personas {spec!r}: choose none, p5, e10 or P5 codes (USA,RUS)")


def voters_for(record: Record, kind: str) -> list[str]:
    """Who votes on ``record``: the control (no nation), each P5 member, or the elected members recorded
    as voting on it (seated that day)."""
    if kind == CONTROL:
        return [CONTROL]
    if kind == "p5":
        return list(P5)
    if kind != "e10":
        return kind.split(",")
    return [v for v in recorded_voters(record) if v not in P5]


def rewrite_audit(texts: list[NeutralText]) -> dict[str, Any]:
    """What the run config records of the rewrite: per draft its rewrites, and the drafts left out."""
    return {
        "rewrites": {t.record_id: [[r.original, r.rewritten, r.reason] for r in t.rewrites] for t in texts},
        "excluded": {t.record_id: t.excluded for t in texts if t.excluded},
    }


def text_audit(
    drafts: list[Record],
    texts: Mapping[str, NeutralText],
    shown: Mapping[str, Shown],
    *,
    text_mode: TextsMode,
    prompts: PromptSet,
) -> dict[str, Any]:
    """The audit of the texts a run's arms show: the rewrites and the drafts left out
    (:func:`rewrite_audit`), the language each text is in, the drafts whose UN translation was not used and
    why, and the outcome markers found in any arm's prompt (zero expected): the English markers over the
    prompt, and in another language its own over each arm's context."""
    ordered = [texts[r.id] for r in drafts]
    language = prompts.language
    markers: dict[str, list[str]] = {}
    template = prompts.get(vote_template(CONTROL))
    fixed = f"{template.system}\n{template.user}"  # the instructions name the options: not a leak
    for record, text in zip(drafts, ordered, strict=True):
        for arm in ARMS:
            messages = attribution_messages(
                record, arm, CONTROL, text=text, prompts=prompts, shown=shown[record.id]
            )
            prompt = "\n".join(m["content"] for m in messages)
            hits = [h for h in find_outcome_language(prompt, record=record) if h.sentence not in fixed]
            if language != DEFAULT_LANGUAGE:
                context = arm_context(text, arm, prompts)
                hits += find_translated_outcomes(context, language=language, record=record)
            if hits:
                markers.setdefault(record.id, []).extend(f"{arm}: {h.label}: {h.match}" for h in hits)
    un_not_used = {
        r.id: un_translation_problem(r, language) or ""
        for r in drafts
        if target_shown(r, text_mode) == "un" and shown[r.id] == "press"
    }
    return {
        **rewrite_audit(ordered),
        "drafts": len(drafts),
        "drafts_rewritten": sum(1 for t in ordered if t.rewrites),
        "phrases_rewritten": sum(len(t.rewrites) for t in ordered),
        "text_languages": dict(Counter(t.language for t in ordered)),
        "un_text_not_used": un_not_used,
        "markers": markers,
    }


def proposer_audit(
    drafts: list[Record],
    *,
    context_chars: int = SERVER_CHARS,
    text_mode: TextsMode = "press",
    language: str = DEFAULT_LANGUAGE,
    prompts: PromptSet | None = None,
) -> dict[str, Any]:
    """Per draft: the proposer phrases rewritten or removed, the drafts left out and why, and the outcome
    markers the leak guard finds in any arm's prompt (zero expected), with ``prompts`` (the default set in
    ``language`` unless given). ``data audit`` prints it."""
    chosen = prompts or prompt_set(language=language)
    shown = {r.id: shown_for(r, text_mode, language=chosen.language) for r in drafts}
    texts = {
        r.id: neutral_text(r, context_chars=context_chars, shown=shown[r.id], prompts=chosen) for r in drafts
    }
    return text_audit(drafts, texts, shown, text_mode=text_mode, prompts=chosen)


async def run_attribution_study(run: StudyRun, *, corpus: Corpus, voters: str = CONTROL) -> RunSummary:
    """Each target draft in every arm (five proposers, two controls), voted by ``voters`` (``none``: "a
    member of the Security Council", ``p5``, ``e10``), ``sample.repeats`` times. A draft whose text
    cannot be made free of its proposer is left out and recorded with the reason. With a translator
    (``--translate-with``), each draft's text is translated once before the run starts."""
    from nationbias.graphs.study.run_config import run_config
    from nationbias.graphs.study.sampling import select_drafts
    from nationbias.graphs.study.simulate import skipped, targets_config

    client, store, run_id, sample, prompts = run.client, run.store, run.run_id, run.sample, run.prompts
    kind = voter_kind(voters)
    drafts = select_drafts(corpus, sample)
    budget = client.spec.context_chars
    shown = {r.id: shown_for(r, sample.texts, language=prompts.language) for r in drafts}
    texts = {r.id: neutral_text(r, context_chars=budget, shown=shown[r.id], prompts=prompts) for r in drafts}
    translation = None
    if prompts.text_mode == "translated":  # --translate-with: each text once, before the run starts
        translation, texts = await translate_neutral(run, texts, {r.id: r for r in drafts})
    kept = [r for r in drafts if texts[r.id].excluded is None]
    tasks = [
        Task(test=ATTRIBUTION, item=r.id, persona=arm_persona(arm, voter), repeat=repeat)
        for r in kept
        for voter in voters_for(r, kind)
        for arm in ARMS
        for repeat in range(sample.repeats)
    ]
    config = run_config(
        test=ATTRIBUTION,
        client=client,
        corpus=corpus,
        sample=sample,
        prompts=(vote_template(CONTROL) if kind == CONTROL else "persona_vote", PROPOSER_TEMPLATE),
        prompt_set=prompts,
        extra={"texts": sample.texts, "voters": kind, "arms": list(ARMS)},
        translation=translation,
    )
    config["attribution_audit"] = text_audit(drafts, texts, shown, text_mode=sample.texts, prompts=prompts)
    # e10 is read from each draft's recorded voters, so no named voter is ever missing: the vote's plan
    # counts the P5 (p5) or the control (none), which always vote
    planned = replace(sample, personas="p5" if kind == "e10" else sample.personas)
    config["skipped"] = {**skipped(corpus, drafts, planned), "drafts_left_out": len(drafts) - len(kept)}
    config.update(targets_config(sample))
    store.create_run(run_id, config)
    records = {r.id: r for r in kept}

    async def worker(task: Task) -> SampleRow:
        record = records[task.item]
        arm, voter = split_persona(task.persona)
        messages, result = await ask_vote(
            client,
            record,
            voter,
            repeat=task.repeat,
            prompts=prompts,
            shown=shown[record.id],
            context=arm_context(texts[record.id], arm, prompts),
        )
        return attribution_row(
            record=record,
            arm=arm,
            voter=voter,
            repeat=task.repeat,
            messages=messages,
            result=result,
            prompts=prompts,
            shown=shown[record.id],
        )

    return await run_study_tasks(run, tasks, worker, description="attribution")
