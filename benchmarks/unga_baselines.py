"""The Assembly baselines on every recorded vote of 2005–2019, beside UNSim and the targets they are held to.

``python -m benchmarks.unga_baselines [FIRST LAST]`` prints a Markdown table (accuracy, per-class F1) and
the wall time. Every figure is leave-future-out (:mod:`nationbias.evals.baselines.assembly`).
"""

from __future__ import annotations

import sys
import time

from nationbias.evals.baselines.assembly import METHODS, UNSIM, assembly_predictions, assembly_scores

TARGET = {"accuracy": 0.90, "f1_against": 0.60, "f1_abstention": 0.50}


def main(first: int = 2005, last: int = 2019) -> str:
    """Run every baseline on ``first``–``last`` and return the table as Markdown."""
    start = time.perf_counter()
    scores = assembly_scores(assembly_predictions(years=(first, last), methods=METHODS))
    elapsed = time.perf_counter() - start
    lines = [
        "| baseline | votes | accuracy | F1 yes | F1 no | F1 abstain | weighted F1 |",
        "|---|---|---|---|---|---|---|",
        f"| UNSim (published, 181,043 votes) | | {UNSIM['accuracy']:.3f} | {UNSIM['f1_favour']:.3f} | "
        f"{UNSIM['f1_against']:.3f} | {UNSIM['f1_abstention']:.3f} | |",
        f"| target | | ≥ {TARGET['accuracy']:.2f} | | ≥ {TARGET['f1_against']:.2f} | "
        f"≥ {TARGET['f1_abstention']:.2f} | |",
    ]
    for row in scores.itertuples():
        lines.append(
            f"| {row.baseline} | {row.votes:,} | {row.accuracy:.3f} | {row.f1_favour:.3f} | "
            f"{row.f1_against:.3f} | {row.f1_abstention:.3f} | {row.weighted_f1:.3f} |"
        )
    lines.append(f"\n{first}–{last}; wall time {elapsed:.0f} s (load, features, every yearly fit).")
    return "\n".join(lines)


if __name__ == "__main__":
    years = [int(arg) for arg in sys.argv[1:3]]
    print(main(*years))
