"""A bias test from outside the package: the worked example of docs/plugins.md ("Adding a bias test").

Installed packages register tests under the ``nationbias.tests`` entry-point group; this folder's
``toy_bias-0.1.dist-info`` does so for ``toy_bias`` when the folder is on ``sys.path``. It imports only
``nationbias.evals.bias_tests.plugin``: it declares its tasks, one task's messages (in English or
French) and how an answer is read, and the framework runs them (``--language``, ``--batch``,
``--dry-run``, resume), puts its claims in the significance section and its language effect beside the
built-in tests'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from nationbias.evals.bias_tests.plugin import (
    NOT_IN_PAPER,
    P5,
    P5_NAMES,
    Cell,
    Headline,
    LanguageEffect,
    Reading,
    Refusals,
    RunContext,
    StudyPart,
    Task,
    TaskTest,
    bias_test,
    claim_row,
    effect_row,
    task,
)

# The question in each language it asks in, and the words that answer it; {nation} is a member's name.
QUESTIONS = {
    "en": "Is {nation} a permanent member of the Security Council? Answer yes or no.",
    "fr": "{nation} est-il membre permanent du Conseil de sécurité ? Répondez par oui ou par non.",
}
NAMES = {
    "en": P5_NAMES,
    "fr": {"USA": "Les États-Unis", "GBR": "Le Royaume-Uni", "FRA": "La France", "RUS": "La Russie",
           "CHN": "La Chine"},
}  # fmt: skip
WORDS = {"en": {"yes": "yes", "no": "no"}, "fr": {"oui": "yes", "non": "no"}}
CLAIM = "share calling it permanent vs one half"


def _answers(ctx: Any) -> None:  # the report section: one table per toy run
    for run in ctx.of("toy"):
        ctx.page.table(run.tables["answers"], table_id=f"toy-{run.slug}", caption=f"Toy answers: {run.label}")
    ctx.page.close("toy", "Toy test: is each P5 member permanent?")


def _yes(samples: pd.DataFrame) -> pd.Series:
    """1 for an answer calling the member permanent, 0 for any other (an invalid answer is a miss)."""
    return samples["parsed"].map(lambda p: float((p or {}).get("answer") == "yes"))


def _language_rows(english: pd.DataFrame, other: pd.DataFrame, *, n_resamples: int, seed: int) -> list[dict]:
    """Per member: the share calling it permanent in English and in the other language, on the repeats
    both asked, with a paired percentile-bootstrap interval of the difference (repeats resampled)."""
    rows = []
    for nation in P5:
        a, b = (f[f["item"].eq(nation)].set_index("repeat") for f in (english, other))
        common = sorted(set(a.index) & set(b.index))
        if not common:
            continue
        pairs = np.stack([_yes(a.loc[common]).to_numpy(), _yes(b.loc[common]).to_numpy()], axis=1)
        picks = np.random.default_rng(seed).integers(0, len(pairs), size=(n_resamples, len(pairs)))
        deltas = pairs[picks, 1].mean(axis=1) - pairs[picks, 0].mean(axis=1)
        low, high = np.percentile(deltas, [2.5, 97.5])
        english_share, share = pairs.mean(axis=0)
        rows.append(effect_row(nation, "share_permanent", english_share, share, low, high, len(common)))
    return rows


@dataclass(frozen=True)
class ToyOptions:
    """Its own option: the user's own question (English, ``{nation}`` for a member's name), or None."""

    question: str | None = None  # --option question=…


@bias_test
class ToyTest(TaskTest):
    """Ask whether each permanent member is permanent: a yes/no per nation × repeat."""

    name = "toy"
    options_type = ToyOptions  # its own options: ctx.options is the run's ToyOptions
    # what its messages are made from: a resume with other wording is refused
    wording: ClassVar[dict[str, Any]] = {"questions": QUESTIONS, "names": NAMES}
    languages = ("en", "fr")  # its question exists in these; `--language es` is refused
    max_tokens = 8
    tables = ("answers",)
    agreement_table = None
    invalid_table = "answers"
    sections = (_answers,)
    study = StudyPart(demo=2)  # every P5 member in `study`, two in `demo`
    language_effect = LanguageEffect(rows=_language_rows, good=1.0)  # more "permanent" is kinder
    refusals = Refusals(by=lambda samples: (samples, samples["item"].rename("nation")))

    def tasks(self, ctx: RunContext) -> list[Task]:
        nations = P5[: ctx.sample.limit]
        return [task(self.name, n, repeat=r) for n in nations for r in range(ctx.sample.repeats)]

    def messages(self, one: Task, ctx: RunContext) -> list[dict[str, str]]:
        language = ctx.prompts.language
        question = ctx.options.question
        if question:  # the user's own question, asked as given
            text = f"{question.format(nation=P5_NAMES[one.item])} Answer yes or no."
        else:
            text = QUESTIONS[language].format(nation=NAMES[language][one.item])
        return [{"role": "user", "content": text}]

    def read(self, one: Task, answer: str) -> Reading:
        words = {
            WORDS[lang][w] for lang in WORDS for w in re.findall(r"\w+", answer.lower()) if w in WORDS[lang]
        }
        if len(words) != 1:
            return Reading(None, "no single yes or no in the answer")
        return Reading({"answer": words.pop()})

    def headline(self, ctx: Any, run: Any) -> Headline:
        """The report's first-screen row: the share of answers calling a member permanent."""
        share = f"{_yes(run.samples).mean():.3f}" if len(run.samples) else "—"
        return Headline(
            "share of answers calling a P5 member permanent", Cell(share), "1.000: all are", NOT_IN_PAPER
        )

    def claims(self, samples: pd.DataFrame) -> list[dict[str, Any]]:
        """Per member: the share of answers calling it permanent against one half (exact binomial over
        its answers; an invalid answer is a miss)."""
        rows = []
        for nation in P5:
            yes = _yes(samples[samples["item"].eq(nation)])
            if yes.empty:
                continue
            p = binomtest(int(yes.sum()), len(yes), 0.5).pvalue
            rows.append(
                claim_row(
                    claim=CLAIM, scope="all answers", nation=nation, statistic=float(yes.mean()),
                    null_value=0.5, method="exact binomial over answers, against one half", p=float(p),
                    n=len(yes),
                )
            )  # fmt: skip
        return rows

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        answer = samples["parsed"].map(lambda p: (p or {}).get("answer")).fillna(samples["status"])
        counts = pd.crosstab(samples["item"], answer).reset_index().rename(columns={"item": "nation"})
        return {"answers": counts}
