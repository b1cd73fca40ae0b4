"""The persona effect: what naming the nation changes, the plain vote against its control (``--personas
none``: the same drafts voted by "a member of the Security Council", no nation named).

Per nation, on the questions both runs asked (drafts and repeats; the control's one answer per draft is
scored against that nation's record): the weighted F1 of the persona minus the control's, and the share of
favour, against and abstention minus the control's, each paired by draft with a 95% interval (drafts
resampled jointly). A persona effect near 0 says the model votes the same whoever it speaks for; a large one
says the nation's name, not the draft, moves the vote.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.paired import shared_questions

MEASURES = ("weighted_f1", *(f"{v}_share" for v in T.VOTES))
COLUMNS = [
    "nation",
    "measure",
    "persona",
    "control",
    "effect",
    "low",
    "high",
    "shared_drafts",
    "persona_left_out",
    "control_left_out",
]


def _shares(votes: pd.DataFrame, items: list[str]) -> np.ndarray:
    """drafts × votes: each vote's count among the draft's answers, then the answers (for the share)."""
    counts = pd.crosstab(votes["item"], votes["answer"]).reindex(
        index=items, columns=[*T.VOTES, *T.MISSES], fill_value=0
    )
    return counts.to_numpy(float)


def persona_effect(
    persona: pd.DataFrame, control: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per (nation, measure): the persona run's figure, the control's, and persona − control with
    its paired interval. ``persona`` and ``control`` are run-store sample frames."""
    a_all, b_all = T.vote_frame(persona), T.vote_frame(control)
    rows = []
    k = len(T.VOTES)
    for nation in T.persona_order(a_all["persona"].unique()):
        a, b, scope = shared_questions(a_all[a_all["persona"].eq(nation)], b_all[b_all["persona"].eq(nation)])
        base = {"nation": nation, "shared_drafts": scope.shared_drafts}
        base |= {"persona_left_out": scope.left_out_a, "control_left_out": scope.left_out_b}
        if a.empty:
            nan = float("nan")
            rows += [
                base | {"measure": m, "persona": nan, "control": nan, "effect": nan, "low": nan, "high": nan}
                for m in MEASURES
            ]
            continue
        kwargs = {"item_col": "item", "truth_col": "truth", "pred_col": "answer"}
        items, ca = per_item_confusion(a, **kwargs, labels=T.VOTES, misses=T.MISSES)
        _, cb = per_item_confusion(b, **kwargs, labels=T.VOTES, misses=T.MISSES)
        m = ca.shape[-1]
        sa, sb = _shares(a, items), _shares(b, items)  # drafts × (K + misses)
        # one array per draft: both confusions, then both count rows, flattened side by side
        data = np.concatenate([ca.reshape(len(items), -1), cb.reshape(len(items), -1), sa, sb], axis=1)
        size = k * m

        def stat(batch: np.ndarray, m: int = m, size: int = size) -> np.ndarray:  # -> (B, 3 * measures)
            total = batch.sum(axis=1)
            f1a = weighted_f1_from_confusions(total[:, :size].reshape(-1, k, m))
            f1b = weighted_f1_from_confusions(total[:, size : 2 * size].reshape(-1, k, m))
            ca_ = total[:, 2 * size : 2 * size + m]
            cb_ = total[:, 2 * size + m :]
            share_a = ca_[:, :k] / np.maximum(ca_.sum(axis=1, keepdims=True), 1)
            share_b = cb_[:, :k] / np.maximum(cb_.sum(axis=1, keepdims=True), 1)
            own = np.column_stack([f1a, share_a])
            ctl = np.column_stack([f1b, share_b])
            return np.concatenate([own, ctl, own - ctl], axis=1)

        cis = bootstrap_cis(data, stat, n_resamples=n_resamples, seed=seed)
        n = len(MEASURES)
        for j, measure in enumerate(MEASURES):
            own, ctl, effect = cis[j], cis[n + j], cis[2 * n + j]
            rows.append(
                base
                | {
                    "measure": measure,
                    "persona": own.point,
                    "control": ctl.point,
                    "effect": effect.point,
                    "low": effect.low,
                    "high": effect.high,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)
