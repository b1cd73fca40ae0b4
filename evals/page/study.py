"""The report of a study: the runs' sections, with the non-LLM baselines scored on what the vote runs covered.

The one report writer the library (``nationbias.report``), ``study`` and the CLI call.
"""

from __future__ import annotations

import time
from pathlib import Path


def write_study_report(run_ids: list[str], *, out: Path | None = None) -> Path:
    """The HTML report, with the non-LLM baselines scored on the drafts the vote runs covered."""
    import pandas as pd

    from nationbias.evals.baselines.council import baseline_f1, baseline_prediction_frame, council_members
    from nationbias.evals.page.writer import write_report
    from nationbias.evals.report.reportable import reportable
    from nationbias.evals.results import RESULT_TABLES
    from nationbias.evals.tables.paper import adopted_rows
    from nationbias.stores.config.paths import home
    from nationbias.stores.corpora.corpus import load_corpus
    from nationbias.stores.state.runstore import RunStore

    store = RunStore()
    run_ids = reportable(run_ids, store)  # each once, each with samples: the baselines read the first
    configs = {rid: store.get_run(rid) for rid in run_ids}
    scored = {name for name, tables in RESULT_TABLES.items() if "weighted_f1" in tables}  # beside baselines
    vote_runs = [rid for rid, cfg in configs.items() if cfg.get("test") in scored]
    baselines = predictions = None
    # on the items and members (the P5, every seat, every state) the first vote run covered; the baselines
    # predict the non-adopted drafts (and the Assembly's roll calls) only, not adopted resolutions
    frame = store.samples_frame(vote_runs[0]) if vote_runs else pd.DataFrame()
    frame = frame[~adopted_rows(frame)] if len(frame) else frame
    if len(frame):
        if configs[vote_runs[0]].get("sample", {}).get("body") == "unga":
            from nationbias.evals.baselines.assembly import assembly_baseline_f1
            from nationbias.evals.tables.paper import persona_order

            personas = persona_order(frame["persona"].unique())
            baselines = assembly_baseline_f1(items=sorted(set(frame["item"])), personas=personas)
        else:
            corpus = load_corpus()
            personas = [p for p in council_members(corpus) if p in set(frame["persona"])]
            baselines = baseline_f1(corpus, items=set(frame["item"]), personas=personas)
            # every vote run's drafts: each comparison with a baseline is made on the run's own drafts
            items = set()
            for rid in vote_runs:
                run_frame = store.samples_frame(rid)
                items |= set(run_frame[~adopted_rows(run_frame)]["item"]) if len(run_frame) else set()
            predictions = baseline_prediction_frame(corpus, personas=personas, items=items)
    out = out or home() / "reports" / f"{time.strftime('%Y%m%d-%H%M%S')}-{run_ids[0][:40]}"
    return write_report(
        run_ids, out_dir=out, store=store, baselines=baselines, baseline_predictions=predictions
    )
