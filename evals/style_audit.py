"""A style-only classifier: can the way a text is written tell an adopted text from a failed one?

A list of outcome words catches what someone thought of; a classifier finds the cue nobody listed.
Every text is taken as the model reads it: the prompt is built by the real code path
(:func:`nationbias.graphs.vote.vote_messages`, the rehearsal template a precedent is shown with) and the part
that changes from text to text is cut out of it: the "context of …" line with the text's label and
kind, and the text itself. Failed texts are the non-adopted drafts (the targets, which are also the
failed precedents); adopted texts are every adopted item a run can show as a precedent.

Features (style only, no topic words; each a rate per word unless said otherwise):

- **function words**: the rate of each of ~130 English function words (articles, pronouns,
  prepositions, conjunctions, auxiliaries, modals, quantifiers, negation);
- **tense and aspect**: "would" + a bare verb, "would have", "will"/"shall", other modals, past
  forms (a verb form that is a past tense or participle and not its own base, by ``lemminflect``),
  a perfect ("has/have/had" + participle), a passive ("was/were/been/being" + participle), -ing forms;
- **time words**: when the press says something happened: "today", "yesterday", "tomorrow",
  weekdays, "this morning/afternoon/evening", "last/next week/month/year", "now", "recently",
  "earlier", "later", "ago". Dates and years are left out: "until 30 June 2022" is what a mandate
  renewal is about (topic), in a draft's voice as in the press's;
- **label form** (0/1 each, read from the "context of …" line): a quoted draft symbol, an ``S/RES``
  symbol, the word "resolution" before a number, a bare quoted number, a year in parentheses, a
  neutral identifier.

Left out on purpose: length, punctuation and layout (a title-only fallback has lines without a
full stop whatever became of its text), and every content word.

The classifier is a logistic regression on standardised features, scored by ROC AUC in stratified
5-fold cross-validation repeated 10 times (seed 0). An AUC near 0.5 means the style gives nothing
away. The same classifier on the texts before the rewrite (raw press contexts and the old labels)
is the control that shows the check can fail.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nationbias.graphs.history import NO_HISTORY
from nationbias.graphs.vote import MAX_CONTEXT_CHARS, clip, vote_messages
from nationbias.prompts import PromptSet, prompt_set
from nationbias.stores.config.paths import home
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import TEXTS_MODES
from nationbias.stores.guard.leak import fallback_text
from nationbias.stores.guard.neutral import base_form
from nationbias.stores.records import Record
from nationbias.stores.text.cut import BUDGETS, fit_draft
from nationbias.stores.text.un_prompt import Shown, TextsMode, un_context, un_operative, with_un_text

CONTROL_AUC = 0.75  # at least this on the texts before the rewrite
GATED_SETS = ("structured", "paper-symbols")
REPORTED_SETS = ("paper",)

_FUNCTION_WORD_TEXT = """
a an the this that these those it its they them their he she his her we our us you your i my me who
whom whose which what where when why how of in on at by for with from to into onto upon about above
below over under between among through during before after since until against within without across
along around toward towards via per than as and or nor but yet so if unless whether while although
though because also further not no only all any both each every either neither some such other
another more most less many much few own same is are was were be been being am has have had having
do does did can could may might must shall should will would there here then thus therefore however
including
"""
FUNCTION_WORDS: tuple[str, ...] = tuple(_FUNCTION_WORD_TEXT.split())
_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_TIME_WORDS = ("today", "yesterday", "tomorrow", "tonight", "now", "recently", "earlier", "later", "ago")
_TIME_PHRASES = (
    r"\bthis (?:morning|afternoon|evening|week)\b",
    r"\b(?:last|next|this) (?:week|month|year)\b",
    r"\bon (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
)
_MODALS = ("may", "might", "must", "should", "could", "can")
_PARTICIPLE_AUX = ("was", "were", "been", "being")
_PERFECT_AUX = ("has", "have", "had")
_LABEL_FORMS: tuple[tuple[str, str], ...] = (
    ("label: quoted draft symbol", r"[\"“]S/\d{4}/\d+[\"”]"),
    ("label: S/RES symbol", r"S/RES/"),
    ("label: 'resolution' and a number", r"\bresolution\s+[\"“]?\d"),
    ("label: quoted bare number", r"[\"“]\d+[\"”]"),
    ("label: year in parentheses", r"\(\d{4}\)"),
    ("label: neutral identifier", r"\bdraft of \d{4}-\d{2}-\d{2}"),
)


def _is_past(word: str) -> bool:
    base = base_form(word)
    return base is not None and base != word


def style_features(segment: str) -> dict[str, float]:
    """The style features of one sent segment (its "context of …" line first, then the text)."""
    label_line = segment.partition("\n")[0]
    words = [w.lower() for w in _WORD.findall(segment)]
    n = max(len(words), 1)
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    features = {f"fw: {w}": counts.get(w, 0) / n for w in FUNCTION_WORDS}
    pairs = list(itertools.pairwise(words))
    past = [_is_past(w) for w in words]
    features.update(
        {
            "tense: would + bare verb": sum(
                1 for a, b in pairs if a == "would" and b != "have" and base_form(b) is None
            )
            / n,
            "tense: would have": sum(1 for a, b in pairs if a == "would" and b == "have") / n,
            "tense: will / shall": (counts.get("will", 0) + counts.get("shall", 0)) / n,
            "tense: other modals": sum(counts.get(m, 0) for m in _MODALS) / n,
            "tense: past forms": sum(past) / n,
            "aspect: perfect": sum(1 for i, (a, _) in enumerate(pairs) if a in _PERFECT_AUX and past[i + 1])
            / n,
            "voice: passive": sum(1 for i, (a, _) in enumerate(pairs) if a in _PARTICIPLE_AUX and past[i + 1])
            / n,
            "aspect: -ing forms": sum(1 for w in words if w.endswith("ing") and len(w) > 5) / n,
            "time: words": sum(counts.get(w, 0) for w in _TIME_WORDS) / n,
            "time: weekdays": sum(counts.get(w, 0) for w in _WEEKDAYS) / n,
            "time: phrases": sum(len(re.findall(p, segment, re.I)) for p in _TIME_PHRASES) / n,
        }
    )
    features.update({name: float(bool(re.search(p, label_line))) for name, p in _LABEL_FORMS})
    return features


def sent_segment(
    record: Record, *, prompts: PromptSet, context_chars: int = MAX_CONTEXT_CHARS, shown: Shown = "press"
) -> str:
    """The part of a precedent's rehearsal prompt that is the text's own: from its "context of …"
    line to the end of the text, as :func:`nationbias.graphs.vote.vote_messages` renders it (``shown``:
    the UN's own text, or the corpus's)."""
    template = prompts.get("rehearsal_vote")
    messages = vote_messages(
        record,
        "USA",
        template="rehearsal_vote",
        context_chars=context_chars,
        prompts=prompts,
        shown=shown,
        date=record.date.isoformat(),
        history="",
        previous_votes=NO_HISTORY,
    )
    content = messages[-1]["content"]
    start = content.rfind("- context of ")
    if start < 0:
        raise ValueError(f"{prompts.name}/rehearsal_vote has no '- context of' line (record {record.id})")
    tail = template.user.split("{context}", 1)[1].strip()
    segment = content[start:]
    return segment[: -len(tail)].rstrip() if tail and segment.endswith(tail) else segment


def raw_segment(record: Record, *, context_chars: int = MAX_CONTEXT_CHARS) -> str:
    """The control: the text before the rewrite (the press context as stored, else the draft text,
    else title / agenda) under the old label ("resolution 2334 (2016)" for an adopted text)."""
    if record.context and record.context.text.strip():
        raw = record.context.text
    elif record.draft_text and record.draft_text.text.strip():
        raw = record.draft_text.text
    else:
        raw = fallback_text(record)
    return f"- context of {record.label}:\n{clip(raw.strip(), context_chars)}"


def audit_records(corpus: Corpus) -> tuple[list[Record], list[Record]]:
    """``(failed, adopted)``: the non-adopted drafts, and the adopted items dated before the last of
    them (the ones a debiased run can show as a precedent)."""
    failed = corpus.drafts
    last = max(r.date for r in failed)
    adopted = [r for r in corpus.adopted if r.date < last]
    return failed, adopted


def cross_validated_auc(
    segments: Sequence[str], labels: Sequence[int], *, seed: int = 0
) -> tuple[float, float]:
    """Mean and standard deviation of the ROC AUC over stratified 5-fold CV repeated 10 times."""
    # imported on use: sklearn's start-up is paid by the audit, not by every command that imports this
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rows = [style_features(s) for s in segments]
    names = sorted(rows[0])
    x = np.array([[row[name] for name in names] for row in rows])
    y = np.array(labels)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    folds = RepeatedStratifiedKFold(n_splits=5, n_repeats=10, random_state=seed)
    scores = cross_val_score(model, x, y, scoring="roc_auc", cv=folds)
    return float(scores.mean()), float(scores.std())


@dataclass(frozen=True)
class StyleAudit:
    """The classifier's AUC per prompt set, its control, and the gate each one is held to."""

    auc: dict[str, float]
    auc_std: dict[str, float]
    control_auc: float
    failed: int
    adopted: int

    @property
    def passed(self) -> bool:
        """The control at least :data:`CONTROL_AUC` (the check can tell); the gate on the texts as sent is
        the documents' own AUC (:class:`DocumentStyle`), not a fixed number on every year's texts."""
        return self.control_auc >= CONTROL_AUC

    def lines(self) -> list[str]:
        head = f"style-only classifier, {self.failed} failed vs {self.adopted} adopted texts"
        out = [f"{head} (mean AUC, 5x10 CV; reported: {DOCUMENT_GATE}):"]
        for name, auc in self.auc.items():
            out.append(f"  {name}: {auc:.3f} ± {self.auc_std[name]:.3f} (reported)")
        ok = "ok" if self.control_auc >= CONTROL_AUC else "FAILS: the check cannot tell"
        out.append(f"  control, texts before the rewrite: {self.control_auc:.3f} (>= {CONTROL_AUC:.2f}) {ok}")
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "auc": self.auc,
            "auc_std": self.auc_std,
            "control_auc": self.control_auc,
            "failed": self.failed,
            "adopted": self.adopted,
            "gate": DOCUMENT_GATE,
            "control_gate": CONTROL_AUC,
            "passed": self.passed,
        }


def style_audit(corpus: Corpus, *, sets: Sequence[str] = (*GATED_SETS, *REPORTED_SETS)) -> StyleAudit:
    """The classifier on each prompt set's sent texts, and on the texts before the rewrite."""
    failed, adopted = audit_records(corpus)
    records = [*failed, *adopted]
    labels = [1] * len(failed) + [0] * len(adopted)
    auc, std = {}, {}
    for name in sets:
        chosen = prompt_set(name)
        auc[name], std[name] = cross_validated_auc([sent_segment(r, prompts=chosen) for r in records], labels)
    control, _ = cross_validated_auc([raw_segment(r) for r in records], labels)
    return StyleAudit(auc, std, control, len(failed), len(adopted))


STORED = "style_audit.json"  # under NATIONBIAS_HOME: the report shows the last audit of this data


def audit_key(corpus: Corpus, sets: Sequence[str] = (*GATED_SETS, *REPORTED_SETS)) -> str:
    """What an audit depends on: the corpus and every vote template of every set it read."""
    refs = [prompt_set(name).get(t).ref for name in sets for t in ("persona_vote", "rehearsal_vote")]
    return f"{corpus.sha256[:16]}|{'|'.join(refs)}"


def save_style_audit(audit: StyleAudit, corpus: Corpus, *, documents: Sequence[DocumentStyle] = ()) -> Path:
    """Keep ``audit`` (and the audit against the UN's texts, ``documents``) for the report (``nationbias
    data audit`` writes it)."""
    path = home() / STORED
    kept = {"key": audit_key(corpus, tuple(audit.auc)), **audit.as_dict()}
    if documents:
        kept["documents"] = [d.as_dict() for d in documents]
    path.write_text(json.dumps(kept, indent=1))
    return path


def stored_style_audit(corpus: Corpus | None = None) -> dict[str, Any] | None:
    """The last saved audit, if any (and, given ``corpus``, only if made on this data and these
    templates)."""
    path = home() / STORED
    if not path.exists():
        return None
    saved: dict[str, Any] = json.loads(path.read_text())
    if corpus is not None and saved.get("key") != audit_key(corpus, tuple(saved.get("auc", {}))):
        return None
    return saved


# Wording only an adopted text's press gets; counted on the texts as sent, before and after the
# rewrite (``nationbias data audit``, benchmarks/RESULTS.md).
PRESS_VOICE_MARKERS: dict[str, str] = {
    "time word": r"\b(?:today|yesterday|this (?:morning|afternoon|evening)|last week|on (?:Mon|Tues|Wednes|"
    r"Thurs|Fri|Satur|Sun)day)\b",
    "adoption": r"\b(?:[Tt]oday|Council|its)[’']s adoption\b|"
    r"\badopted (?:today|unanimously|on \w+day|by the Council)\b|"
    r"\badopting (?:two|the|this|resolution)\b|\bunanimous(?:ly)?\b",
    "the resolution": r"\b(?:this|the) resolution\b(?!\s+\d)",
    "Council in the past tense": r"\b(?:Council|body|organ)(?:\s*,[^,]{1,120},)?\s+(?:has\s+)?(?:\w+ly\s+)?"
    r"(?:extended|renewed|decided|authori[sz]ed|adopted|approved|endorsed|requested|called|urged|demanded|"
    r"condemned|welcomed|imposed|established|expressed|reaffirmed|stressed|emphasi[sz]ed)\b",
}
_VOICE_COMPILED = {name: re.compile(p, re.IGNORECASE) for name, p in PRESS_VOICE_MARKERS.items()}


def press_voice(text: str) -> list[str]:
    """The :data:`PRESS_VOICE_MARKERS` a text carries."""
    return [name for name, pattern in _VOICE_COMPILED.items() if pattern.search(text)]


def wording_counts(corpus: Corpus, *, prompts: PromptSet | None = None) -> dict[str, dict[str, int]]:
    """Texts carrying press-voice wording, adopted and failed, before (as stored) and after (as sent)."""
    prompts = prompts or prompt_set()
    failed, adopted = audit_records(corpus)
    out: dict[str, dict[str, int]] = {}
    for group, records in (("adopted", adopted), ("failed", failed)):
        described = [r for r in records if (r.context and r.context.text.strip()) or r.draft_text]
        before = sum(1 for r in described if press_voice(raw_segment(r).partition("\n")[2]))
        after = sum(1 for r in described if press_voice(sent_segment(r, prompts=prompts).partition("\n")[2]))
        out[group] = {"texts": len(described), "before": before, "after": after}
    return out


def label_outcome_counts(
    corpus: Corpus, *, sets: Sequence[str] = ("structured", "paper-symbols", "paper")
) -> dict[str, dict[str, int]]:
    """Per set: how many precedents a label form alone marks as adopted (a resolution number, an
    ``S/RES`` symbol: forms no failed draft has), out of how many."""
    failed, adopted = audit_records(corpus)
    out = {}
    for name in sets:
        chosen = prompt_set(name)
        forms = {
            r.id: _label_form(sent_segment(r, prompts=chosen).partition("\n")[0]) for r in [*failed, *adopted]
        }
        failed_forms = {forms[r.id] for r in failed}
        out[name] = {
            "precedents": len(failed) + len(adopted),
            "label tells adopted": sum(1 for r in adopted if forms[r.id] not in failed_forms),
            "label tells failed": sum(1 for r in failed if forms[r.id] not in {forms[a.id] for a in adopted}),
        }
    return out


def _label_form(label_line: str) -> str:
    """The shape of a label: digits as 9, the kind description left out."""
    head = label_line.split(" (", 1)[0] if "resolution" not in label_line else label_line.split(":", 1)[0]
    return re.sub(r"\d+", "9", head)


# --- against the documents themselves ----------------------------------------------------------
# Where the UN's own texts exist, the style a classifier finds in them is the documents' own: what a
# draft asks for (a ceasefire demanded, a mandate renewed "until …") is in its function words. So the
# texts as sent are held to the same items' UN texts at the same budget (the reference), not to 0.5.
DOCUMENT_MARGIN = 0.05  # the texts as sent may exceed the reference's mean AUC by at most this
DOCUMENT_GATE = (
    f"the gate: the texts as sent may exceed the UN texts' own AUC by at most {DOCUMENT_MARGIN}, "
    "at 1,200 and 3,000 characters"
)
DOCUMENT_GATED = ("auto", "un")  # the modes held to the reference; press is reported
DOCUMENT_YEARS = (2023, 2024)  # the failed drafts with a UN text are the 18 of these years


def document_records(corpus: Corpus) -> tuple[list[Record], list[Record]]:
    """``(failed, adopted)``: the failed drafts and the adopted resolutions of 2023–2024 with a UN text."""
    first, last = DOCUMENT_YEARS
    in_years = [r for r in corpus.records if first <= r.date.year <= last]
    failed = with_un_text(r for r in in_years if r.is_non_adopted_draft)
    adopted = with_un_text(r for r in in_years if r.adopted)
    return failed, adopted


def _sent_in(mode: TextsMode) -> Shown:
    """The kind these items are shown in under ``mode``: each has a UN text, so ``auto`` shows it (a
    precedent of a target shown in the UN's words is too), ``press`` never."""
    return "press" if mode == "press" else "un"


def reference_segment(record: Record, *, budget: int) -> str:
    """The reference: the item's UN text alone, cut by the same operative-first budget."""
    context = un_context(record)
    if context is None:
        raise ValueError(f"{record.id} has no UN text to take as the reference")
    return fit_draft(context.text, budget, operative_paragraphs=un_operative(record))[0]


@dataclass(frozen=True)
class DocumentStyle:
    """At one budget: the classifier's (mean, sd) AUC on the texts as sent under each ``--texts`` mode,
    and on the same items' UN texts (the reference)."""

    budget: int
    sent: Mapping[str, tuple[float, float]]
    reference: tuple[float, float]
    failed: int
    adopted: int

    def excess(self, mode: str) -> float:
        return self.sent[mode][0] - self.reference[0]

    def lines(self) -> list[str]:
        head = f"{self.budget} chars, {self.failed} failed vs {self.adopted} adopted (UN texts of 2023-2024)"
        out = [f"{head}: reference (the UN texts) {self.reference[0]:.3f} ± {self.reference[1]:.3f}"]
        for mode, (auc, sd) in self.sent.items():
            verdict = (
                "ok"
                if self.excess(mode) <= DOCUMENT_MARGIN
                else f"FAILS: over the reference + {DOCUMENT_MARGIN}"
            )
            if mode not in DOCUMENT_GATED:
                verdict = "reported, not gated: the corpus's texts"
            out.append(
                f"  --texts {mode}, as sent: {auc:.3f} ± {sd:.3f} ({self.excess(mode):+.3f}, {verdict})"
            )
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "budget": self.budget,
            "sent": {m: {"auc": a, "sd": s} for m, (a, s) in self.sent.items()},
            "reference": {"auc": self.reference[0], "sd": self.reference[1]},
            "failed": self.failed,
            "adopted": self.adopted,
            "margin": DOCUMENT_MARGIN,
        }


def document_style_audit(
    corpus: Corpus,
    *,
    budgets: Sequence[int] = tuple(sorted(BUDGETS)),
    modes: Sequence[TextsMode] = TEXTS_MODES,
    prompts: PromptSet | None = None,
) -> list[DocumentStyle]:
    """The style-only classifier (same features, 5-fold CV repeated 10 times, seed 0) on the failed and
    adopted items of 2023–2024 that have a UN text: the texts as the rehearsal prompt sends them under
    each ``--texts`` mode, beside the same items' UN texts at the same budget."""
    chosen = prompts or prompt_set()
    failed, adopted = document_records(corpus)
    records = [*failed, *adopted]
    labels = [1] * len(failed) + [0] * len(adopted)
    found = []
    for budget in budgets:
        sent: dict[str, tuple[float, float]] = {
            mode: cross_validated_auc(
                [
                    sent_segment(r, prompts=chosen, context_chars=budget, shown=_sent_in(mode))
                    for r in records
                ],
                labels,
            )
            for mode in modes
        }
        reference = cross_validated_auc([reference_segment(r, budget=budget) for r in records], labels)
        found.append(DocumentStyle(budget, sent, reference, len(failed), len(adopted)))
    return found
