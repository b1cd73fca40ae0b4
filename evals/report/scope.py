"""The report's scope line: what each run covered, out of how much it could have, stated before any
number (a demo's 3 of 66 drafts, 3 of 48 keywords, the general questions only, 2 repeats).

Read from each run's config and samples; the kind of text a run showed (``texts``) and its targets
(``targets``) are named when its config records them.
"""

from __future__ import annotations

from typing import Any

from nationbias.evals.report.context import Run
from nationbias.graphs.labels.framing import split_item


def _option(config: dict[str, Any], name: str) -> Any:
    """A run's setting wherever its config records it: top level, its options or its sample."""
    for place in (config, config.get("options") or {}, config.get("sample") or {}):
        if isinstance(place, dict) and place.get(name) not in (None, ""):
            return place[name]
    return None


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _eligible_items(config: dict[str, Any]) -> int | None:
    """How many items the run's body and window hold (the Council's 66 non-adopted drafts by default)."""
    from nationbias.graphs.study.sampling import SampleOptions, eligible, load_items

    sample = dict(config.get("sample") or {})
    known = set(SampleOptions.__dataclass_fields__)
    if not sample or not set(sample) <= known:
        return None
    sample["limit"] = None
    if sample.get("years") is not None:
        sample["years"] = tuple(sample["years"])
    options = SampleOptions(**sample)
    return len(eligible(load_items(options), options))


def persona_scope(run: Run) -> str:
    config, samples = run.config, run.samples
    drafts = samples["item"].nunique()
    body = (config.get("sample") or {}).get("body")
    of = _eligible_items(config)
    noun = "roll call" if body == "unga" else "draft"
    covered = f"{drafts} of {plural(of, noun)}" if of is not None else plural(drafts, noun)
    personas = samples["persona"].nunique()
    parts = [covered, plural(personas, "persona")]
    for name in ("targets", "texts"):
        value = _option(config, name)
        if value is not None:
            parts.append(f"{name} {value}")
    return ", ".join(parts)


def directqa_scope(run: Run) -> str:
    from nationbias.graphs.directqa import directqa_families

    families = {split_item(str(item))[1] for item in run.samples["item"].unique()}
    every = len(directqa_families())
    if families == {"general"}:
        which = f"general questions only (1 of {every} families)"
    else:
        which = f"{len(families)} of {every} question families"
    framings = sorted({split_item(str(item))[0] for item in run.samples["item"].unique()})
    pairs = run.samples["pair_order"].nunique()
    return f"{which}, {pairs} ordered pairs, the {' and the '.join(framings)} question"


def association_scope(run: Run) -> str:
    """The keywords asked, out of the pool's (the paper's 48 unless the run named its own)."""
    from nationbias.graphs.association import load_pool
    from nationbias.stores.config.paths import DataNotFoundError

    pool = _option(run.config, "pool")
    keywords = run.samples["item"].nunique()
    try:  # a run records its pool as read ("packaged:paper/…" for the paper's)
        total = len(load_pool(None if pool is None or str(pool).startswith("packaged:") else str(pool)))
    except DataNotFoundError:  # its own pool since moved: say how many were asked, not of how many
        return plural(keywords, "keyword")
    return f"{keywords} of {plural(total, 'keyword')}"
