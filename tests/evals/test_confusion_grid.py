"""The compact confusion grids: one 3 × 5 grid per nation in the paper's order, counts as the long frame
has them, every count legible on its shade (WCAG contrast at least 4.5:1)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nationbias.evals.report.confusion_grid import PREDICTED, confusion_grids, contrast, panels, shade
from nationbias.stores.domain import P5, VOTES


def _long() -> pd.DataFrame:
    rows = [
        {"persona": p, "truth": t, "predicted": a, "count": (i + 2 * j + k) % 4}
        for i, p in enumerate(reversed(P5))  # stored out of order: the grids put the P5 back
        for j, t in enumerate(VOTES)
        for k, a in enumerate(PREDICTED)
    ]
    return pd.DataFrame(rows)


def test_every_shade_keeps_its_count_legible() -> None:
    for count in range(0, 41):
        background, text = shade(count, 40)
        assert contrast(background, text) >= 4.5, (count, background, text)
    assert contrast((0, 0, 0), (255, 255, 255)) == 21.0


def test_one_grid_per_nation_in_the_papers_order_with_the_long_frames_counts(tmp_path: Path) -> None:
    long = _long()
    grids = panels(long)
    assert list(grids) == list(P5)
    for persona, matrix in grids.items():
        assert list(matrix.index) == list(VOTES) and list(matrix.columns) == PREDICTED
        mine = long[long["persona"].eq(persona)].set_index(["truth", "predicted"])["count"]
        for (truth, answer), count in mine.items():
            assert matrix.loc[truth, answer] == count
    html = confusion_grids(long, out_dir=tmp_path, table_id="confusion-r", caption="c")
    assert html.count('<table class="grid" id="confusion-r-') == len(P5) and "<script" not in html
    assert 'id="confusion-r-USA"' in html
    assert pd.read_csv(tmp_path / "confusion-r.csv").equals(long)  # the long frame stays in the CSV


def test_a_group_pools_its_members() -> None:
    grouped = panels(_long(), group=lambda p: "permanent" if p in ("USA", "GBR", "FRA") else "other")
    assert set(grouped) == {"permanent (3 states)", "other (2 states)"}
    assert (
        grouped["permanent (3 states)"].to_numpy().sum()
        == _long().query("persona in ['USA', 'GBR', 'FRA']")["count"].sum()
    )
