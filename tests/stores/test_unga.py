"""The General Assembly loader: counts equal the raw files', non-votes and unplaceable states are dropped and
reported, every state is an ISO3 code, old upper-case text reads in sentence case."""

from __future__ import annotations

import csv
import gzip
import io
from collections import Counter
from pathlib import Path

import pandas as pd

from nationbias.stores.corpora.bundled import data_file, using_data
from nationbias.stores.corpora.countries import is_iso3
from nationbias.stores.corpora.unga import (
    ISSUES_FILE,
    ROLL_CALLS,
    VOTES_FILE,
    assembly_votes,
    case_map,
    load_assembly,
    sentence_case,
)


def _raw_rows(name: str) -> list[dict[str, str]]:
    with data_file(name).open_text(newline="") as handle:
        return list(csv.DictReader(handle))


def test_counts_equal_the_raw_files() -> None:
    assembly = load_assembly()
    calls = _raw_rows(ROLL_CALLS)
    assert len(assembly.roll_calls) == len(calls) == 6203
    in_window = {row["rcid"].split(".")[0] for row in calls if "2005" <= row["date"][:4] <= "2019"}
    unplaced = {entry.country for entry in assembly.unmapped}
    # one read of the 870,109 rows, every field kept as its raw text (no NA parsing); the counts are
    # the test's own (a Python loop over the rows cost ~2 s more than this read: pandas' C parser)
    with data_file(VOTES_FILE).open_text(newline="") as handle:
        raw = pd.read_csv(
            handle, usecols=["rcid", "country", "vote"], dtype=str, keep_default_na=False, na_filter=False
        )
    votes = len(raw)
    recorded = Counter(
        {word: int(n) for word, n in raw["vote"].value_counts().items() if word in ("yes", "no", "abstain")}
    )
    placed_nowhere = raw[raw["country"].isin(unplaced)]
    by_unplaced = Counter(
        {
            (country, vote): int(n)
            for (country, vote), n in placed_nowhere.groupby(["country", "vote"]).size().items()
        }
    )
    window_rcids = {rcid for rcid in raw["rcid"].unique() if rcid.split(".")[0] in in_window}
    raw_window = int(((raw["vote"] != "") & raw["rcid"].isin(window_rcids)).sum())
    unmapped = Counter()
    for entry in assembly.unmapped:
        for (country, vote), n in by_unplaced.items():
            if country == entry.country:
                unmapped[vote] += n
    assert sum(unmapped.values()) == sum(entry.rows for entry in assembly.unmapped)
    loaded = Counter(assembly.votes["vote"])
    for word, code in (("yes", "Y"), ("no", "N"), ("abstain", "A")):
        assert loaded[code] == recorded[word] - unmapped[word]
    assert assembly.not_votes == votes - sum(recorded.values())
    assert len(assembly_votes((2005, 2019))) == raw_window == 247_770  # every recorded vote of 2005–2019


def test_every_member_is_an_iso3_code_once_per_roll_call() -> None:
    votes = load_assembly().votes
    assert all(is_iso3(code) for code in votes["member"].unique())
    assert not votes.duplicated(["rcid", "member"]).any()  # South Yemen is not Yemen
    assert {"NAM", "YMD", "YEM", "DEU", "DDR", "USA"} <= set(votes["member"])  # "NA" is Namibia, not a blank


def test_the_unmapped_report_names_zanzibar() -> None:
    unmapped = load_assembly().unmapped
    assert [(entry.country, entry.rows) for entry in unmapped] == [("Zanzibar", 2)]


def _write(folder: Path, name: str, rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(buffer.getvalue().encode()))


def test_absent_and_not_voting_are_not_votes_and_unknown_states_are_reported(tmp_path: Path) -> None:
    _write(
        tmp_path,
        ROLL_CALLS,
        [
            ["rcid", "session", "importantvote", "date", "unres", "amend", "para", "short", "descr"],
            [
                "1",
                "1",
                "0",
                "1950-01-02",
                "R/5/1",
                "1",
                "0",
                "PORTUGAL",
                "TO ADOPT A UK AMENDMENT ON PORTUGAL.",
            ],
            [
                "2",
                "60",
                "",
                "2005-10-01",
                "A/RES/60/1",
                "",
                "1",
                "Israeli practices",
                "Israeli practices : resolution",
            ],
        ],
    )
    _write(
        tmp_path,
        VOTES_FILE,
        [
            ["rcid", "country", "country_code", "vote"],
            ["1", "United Kingdom", "GB", "yes"],
            ["1", "France", "FR", "absent"],
            ["1", "Atlantis", "AT", "no"],
            ["2", "Namibia", "NA", "no"],
            ["2", "France", "FR", "not voting"],
            ["2", "Yemen People's Republic", "YD", "abstain"],
        ],
    )
    _write(tmp_path, ISSUES_FILE, [["rcid", "short_name", "issue"], ["2", "hr", "Human rights"]])
    with using_data(tmp_path):
        assembly = load_assembly()
        records = assembly.records()
    assert assembly.not_votes == 2
    assert [(u.country, u.country_code, u.rows) for u in assembly.unmapped] == [("Atlantis", "AT", 1)]
    first, second = records
    assert (first.body, first.kind, first.paragraph, first.votes) == (
        "unga",
        "amendment",
        False,
        {"GBR": "Y"},
    )
    assert (second.kind, second.paragraph, second.votes) == ("draft", True, {"NAM": "N", "YMD": "A"})
    assert second.topic == "Human rights" and first.topic is None
    assert second.resolution == "A/RES/60/1" and str(second.date) == "2005-10-01"
    assert (second.tally.yes, second.tally.no, second.tally.abstain) == (0, 1, 1)
    assert first.context is not None and first.context.text == "To adopt a UK amendment on Portugal."
    assert len(load_assembly().roll_calls) == 6203  # outside the block: the packaged copy again


def test_sentence_case_keeps_acronyms_names_and_symbols() -> None:
    cases = case_map(["The question of Palestine in the General Assembly", "Report of UNRWA and the UN"] * 3)
    text = "TO ADOPT DRAFT RESOL. (A/C.3/19) ON PALESTINE AND UNRWA IN THE GENERAL ASSEMBLY"
    assert (
        sentence_case(text, cases)
        == "To adopt draft resol. (A/C.3/19) on Palestine and UNRWA in the General Assembly"
    )
    assert sentence_case("Already mixed Case", cases) == "Already mixed Case"


def test_no_description_is_left_in_upper_case() -> None:
    calls = load_assembly().roll_calls
    shouting = [
        text for text in calls["descr"] if sum(c.isalpha() for c in text) > 12 and text.upper() == text
    ]
    assert shouting == []
    assert (calls["descr"].str.upper() == calls["descr"]).sum() < 5  # was 2,846 rows in the raw file
