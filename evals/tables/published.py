"""The paper's published numbers, as tidy frames, and which of our model specs they belong to.

Reports put them beside our numbers only when the same model was run: a different model's
published score is not a baseline for ours.
"""

from __future__ import annotations

import re

import pandas as pd

from nationbias.stores.corpora import functions
from nationbias.stores.corpora.bundled import paper_file

# Substring (lower-case, of the model part of a spec) → the paper's model name.
_PAPER_MODELS: tuple[tuple[str, str], ...] = (
    ("gpt-4o-mini", "gpt-4o-mini"),
    ("llama-3.3-70b", "llama-3.3-70b"),
    ("mistral-small-24b", "mistral-small-24b"),
    ("qwen2.5-72b", "qwen-2.5-72b"),
    ("qwen-2.5-72b", "qwen-2.5-72b"),
    ("o3-mini", "o3-mini"),
    ("deepseek-r1", "deepseek-r1"),
)
PAPER_LABELS = {
    "gpt-4o-mini": "4o-mini",
    "llama-3.3-70b": "Ll-3.3",
    "mistral-small-24b": "Mis-S",
    "qwen-2.5-72b": "Qw-2.5",
    "o3-mini": "o3-mini",
    "deepseek-r1": "ds-r1",
}
DEBIASED_SUFFIX = "+rag+reflexion"


def paper_model_name(spec: str | None) -> str | None:
    """The paper's name for a model spec such as ``together:meta-llama/Llama-3.3-70B-Instruct-Turbo``."""
    if not spec:
        return None
    model = spec.split(":", 1)[-1].lower()
    model = model.rsplit("/", 1)[-1]
    model = re.sub(r"[\s_]+", "-", model)
    for needle, name in _PAPER_MODELS:
        if needle in model:
            return name
    return None


def _read(name: str) -> pd.DataFrame:
    with paper_file(name).open_text(newline="") as handle:
        return pd.read_csv(handle)


def published_vote_counts() -> pd.DataFrame:
    """Table 1: nation, vote, source (``ground_truth`` or a paper model name), mean_count."""
    frame = _read("paper_table1_vote_counts.csv")
    return frame.rename(columns={"mean_count_over_3_runs": "mean_count"})


def published_weighted_f1() -> pd.DataFrame:
    """Tables 2–3: model, nation, debiased (bool), weighted_f1 (0–1, not ×100)."""
    frame = _read("paper_table2_3_weighted_f1.csv")
    debiased = frame["model"].str.endswith(DEBIASED_SUFFIX)
    return pd.DataFrame(
        {
            "model": frame["model"].str.removesuffix(DEBIASED_SUFFIX),
            "nation": frame["nation"],
            "debiased": debiased,
            "weighted_f1": frame["weighted_f1_x100"] / 100.0,
        }
    )


def published_ablation() -> pd.DataFrame:
    """Table 4: model, k, reflexion, mean_weighted_f1."""
    frame = _read("paper_table4_ablation.csv")
    frame["reflexion"] = frame["reflexion"].astype(str).str.lower().eq("true")
    return frame


def unsc_functions() -> pd.DataFrame:
    """Appendix C.3: id, short_name, function — in the paper's order (empty if the file is absent)."""
    try:
        return pd.DataFrame(functions.unsc_functions())
    except FileNotFoundError:
        return pd.DataFrame(columns=list(functions.COLUMNS))
