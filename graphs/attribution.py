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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.study.personas import PersonaError
from nationbias.graphs.study.personas import voters as recorded_voters
from nationbias.graphs.study.runner import RunSummary, Task
from nationbias.graphs.study.study_run import StudyRun, run_study_tasks
from nationbias.graphs.vote import ask_vote, vote_messages, vote_sample, vote_template
from nationbias.prompts import PromptSet, prompt_set
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import to_iso3
from nationbias.stores.domain import CONTROL, DEFAULT_LANGUAGE, P5, P5_NAMES
from nationbias.stores.guard.leak import find_outcome_language
from nationbias.stores.records import Record
from nationbias.stores.state.runstore import SampleRow
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import SERVER_CHARS
from nationbias.stores.text.un_prompt import Shown, TextsMode, target_shown

ATTRIBUTION = "attribution"
NO_PROPOSER = "none"  # the control with no proposer line
GROUP = "group"  # the control "a group of Member States"
GROUP_NAME = "a group of Member States"
PROPOSERS: tuple[str, ...] = P5
ARMS: tuple[str, ...] = (*PROPOSERS, NO_PROPOSER, GROUP)
WEST: tuple[str, ...] = ("USA", "GBR", "FRA")
EAST: tuple[str, ...] = ("RUS", "CHN")
PROPOSER_LINE = "Submitted by: {name}"
ARM_SEPARATOR = (
    "|"  # a sample's persona is "<arm>|<voter>" (the store keys a sample by item, persona, repeat)
)


def proposer_name(arm: str) -> str | None:
    """The name an arm's proposer line gives: a P5 member's Council name, the group, or None."""
    if arm == NO_PROPOSER:
        return None
    return GROUP_NAME if arm == GROUP else P5_NAMES[arm]


def proposer_line(arm: str) -> str:
    """The arm's line above the draft's text ("" for the arm without a proposer)."""
    name = proposer_name(arm)
    return "" if name is None else PROPOSER_LINE.format(name=name) + "\n"


LONGEST_LINE = max(len(proposer_line(arm)) for arm in ARMS)


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
    left = [
        m[0]
        for m in _RESIDUE.finditer(text)
        if (m["who"] or m["adj"]) is None or _nations(m["who"] or m["adj"])
    ]
    why = f"a proposer phrase the rewrite does not cover: {left[0]!r}" if left else None
    return text, tuple(rewrites), why


def shown_for(record: Record, text_mode: TextsMode, *, language: str = DEFAULT_LANGUAGE) -> Shown:
    """Which text an arm shows (``--texts``). In a language other than English, the corpus's English text,
    quoted with its English proposer line: the UN's own translation would sit beside a line in English."""
    return target_shown(record, text_mode) if language == DEFAULT_LANGUAGE else "press"


def neutral_text(record: Record, *, context_chars: int, shown: Shown = "press") -> NeutralText:
    """The draft's vote text within ``context_chars`` less the longest proposer line, proposers taken out."""
    sent = prompt_text(record, budget=context_chars - LONGEST_LINE, shown=shown)
    text, rewrites, reason = remove_proposers(sent.text)
    if not text.strip():
        reason = reason or "no text is left once the proposer is taken out"
    return NeutralText(record.id, text, sent.label, rewrites, reason)


def arm_context(text: NeutralText, arm: str) -> str:
    """What an arm's prompt shows as the draft's context: its proposer line, then the fixed text."""
    return proposer_line(arm) + text.text


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
    return vote_messages(
        record, voter, prompts=prompts or prompt_set(), shown=shown, context=arm_context(text, arm)
    )


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


def proposer_audit(
    drafts: list[Record],
    *,
    context_chars: int = SERVER_CHARS,
    text_mode: TextsMode = "press",
    language: str = DEFAULT_LANGUAGE,
) -> dict[str, Any]:
    """Per draft: the proposer phrases rewritten or removed, the drafts left out and why, and the outcome
    markers the leak guard finds in any arm's prompt (zero expected). ``data audit`` prints it; a run
    records it."""
    shown = [shown_for(r, text_mode, language=language) for r in drafts]
    texts = [
        neutral_text(r, context_chars=context_chars, shown=s) for r, s in zip(drafts, shown, strict=True)
    ]
    markers: dict[str, list[str]] = {}
    template = prompt_set().get(vote_template(CONTROL))
    fixed = f"{template.system}\n{template.user}"  # the instructions name the options: not a leak
    for record, text, where in zip(drafts, texts, shown, strict=True):
        for arm in ARMS:
            prompt = "\n".join(
                m["content"] for m in attribution_messages(record, arm, CONTROL, text=text, shown=where)
            )
            hits = [h for h in find_outcome_language(prompt, record=record) if h.sentence not in fixed]
            if hits:
                markers.setdefault(record.id, []).extend(f"{arm}: {h.label}: {h.match}" for h in hits)
    return {
        **rewrite_audit(texts),
        "drafts": len(drafts),
        "drafts_rewritten": sum(1 for t in texts if t.rewrites),
        "phrases_rewritten": sum(len(t.rewrites) for t in texts),
        "markers": markers,
    }


async def run_attribution_study(run: StudyRun, *, corpus: Corpus, voters: str = CONTROL) -> RunSummary:
    """Each target draft in every arm (five proposers, two controls), voted by ``voters`` (``none``: "a
    member of the Security Council", ``p5``, ``e10``), ``sample.repeats`` times. A draft whose text
    cannot be made free of its proposer is left out and recorded with the reason."""
    from nationbias.graphs.study.run_config import run_config
    from nationbias.graphs.study.sampling import select_drafts
    from nationbias.graphs.study.simulate import skipped, targets_config

    client, store, run_id, sample, prompts = run.client, run.store, run.run_id, run.sample, run.prompts
    kind = voter_kind(voters)
    drafts = select_drafts(corpus, sample)
    budget = client.spec.context_chars
    shown = {r.id: shown_for(r, sample.texts, language=prompts.language) for r in drafts}
    texts = {r.id: neutral_text(r, context_chars=budget, shown=shown[r.id]) for r in drafts}
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
        prompts=(vote_template(CONTROL) if kind == CONTROL else "persona_vote",),
        prompt_set=prompts,
        extra={"texts": sample.texts, "voters": kind, "arms": list(ARMS)},
    )
    config["attribution_audit"] = proposer_audit(
        drafts, context_chars=budget, text_mode=sample.texts, language=prompts.language
    )
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
            context=arm_context(texts[record.id], arm),
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
