"""One run's named result tables, ready for the CLI, a notebook or the report."""

from __future__ import annotations

from contextlib import closing
from typing import TYPE_CHECKING, Any

import pandas as pd

from evals import tables as T

if TYPE_CHECKING:
    from stores.runstore import RunStore

RESULT_TABLES = {
    "vote": (
        "vote_counts",
        "weighted_f1",
        "confusion",
        "agreement",
        "invalid",
        "missing_contexts",
        "metadata",
    ),
    "debias": (
        "vote_counts",
        "weighted_f1",
        "confusion",
        "agreement",
        "invalid",
        "missing_contexts",
        "metadata",
    ),
    "directqa": ("irres_score", "agreement", "invalid", "invalid_by_nation", "judge", "metadata"),
    "association": ("ats", "friedman", "invalid", "judge", "metadata"),
}


def is_embedded(config: dict[str, Any]) -> bool:
    """True for the embedded demo model, whose numbers prove the pipeline, not a finding."""
    return bool(config.get("embedded")) or str(config.get("model", "")).startswith("local:")


def metadata_frame(run_id: str, config: dict[str, Any], samples: pd.DataFrame) -> pd.DataFrame:
    """One row describing the run: enough to tell how to reproduce it."""
    versions = config.get("prompt_versions") or {}
    options = config.get("options") or {}
    created = config.get("created")
    if created is None and len(samples):
        created = pd.Timestamp(float(samples["created"].min()), unit="s").isoformat(timespec="seconds")
    return pd.DataFrame(
        [
            {
                "run_id": run_id,
                "test": config.get("test"),
                "model": config.get("model"),
                "embedded": is_embedded(config),
                "prompt_versions": ", ".join(f"{k}={v}" for k, v in sorted(dict(versions).items()))
                if isinstance(versions, dict)
                else str(versions),
                "data_sha256": config.get("data_sha256"),
                "seed": config.get("seed"),
                "package_version": config.get("package_version"),
                "created": created,
                "options": ", ".join(f"{k}={v}" for k, v in sorted(options.items())),
                "n_samples": len(samples),
            }
        ]
    )


def tables_for(run_id: str, config: dict[str, Any], samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The named tables of one run, computed from its config and samples frame."""
    test = config.get("test")
    out: dict[str, pd.DataFrame] = {}
    if test in ("vote", "debias"):
        out["vote_counts"] = T.vote_count_table(samples)
        out["weighted_f1"] = T.weighted_f1_table(samples)
        out["confusion"] = T.confusion_table(samples)
        out["agreement"] = T.vote_agreement(samples)
        out["invalid"] = T.status_counts(samples, by="persona")
        out["missing_contexts"] = T.missing_contexts(samples)
    elif test == "directqa":
        out["irres_score"] = T.irres_table(samples)
        out["agreement"] = T.directqa_agreement(samples)
        out["invalid"] = T.status_counts(samples.rename(columns={"item": "family"}), by="family")
        by_nation = T.pair_nations(samples)
        out["invalid_by_nation"] = T.status_counts(by_nation, by="nation")
        out["judge"] = T.labeller_counts(samples.rename(columns={"item": "family"}), by="family")
    elif test == "association":
        out["ats"] = T.ats_table(samples)
        out["friedman"] = T.friedman_table(samples)
        category = samples["extra"].map(lambda e: (e or {}).get("category")).rename("category")
        out["invalid"] = T.status_counts(samples, by=category)
        out["judge"] = T.labeller_counts(samples, by=category)
    else:
        raise ValueError(f"run {run_id!r} has unknown test {test!r}")
    out["metadata"] = metadata_frame(run_id, config, samples)
    return out


def load_samples(store: RunStore, run_id: str) -> pd.DataFrame:
    """``store.samples_frame``, tolerating SQL NULLs that pandas ≥ 3 reads back as NaN in str columns."""
    try:
        return store.samples_frame(run_id)
    except TypeError:
        import json
        import sqlite3

        with closing(sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)) as conn:
            rows = conn.execute("SELECT * FROM samples WHERE run_id = ? ORDER BY sample_id", (run_id,))
            names = [d[0] for d in rows.description]
            frame = pd.DataFrame([dict(zip(names, r, strict=True)) for r in rows.fetchall()], dtype=object)
        for column in ("messages", "parsed", "extra"):
            frame[column] = frame[column].map(lambda v: json.loads(v) if isinstance(v, str) else None)
        return frame


def results(run_id: str, *, store: RunStore | None = None) -> dict[str, pd.DataFrame]:
    """The named tables for ``run_id`` (see ``RESULT_TABLES`` for the names per test)."""
    if store is None:
        from stores.runstore import RunStore

        store = RunStore()
    config = store.get_run(run_id)
    return tables_for(run_id, config, load_samples(store, run_id))
