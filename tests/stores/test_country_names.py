"""Member names → ISO3 through country_converter plus the alias table; unknown names are None."""

from __future__ import annotations

import csv

import pytest

from nationbias.stores.corpora.bundled import data_file
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import name_for, nations_in_text, to_iso3


def test_every_council_member_in_the_corpus_resolves(corpus: Corpus) -> None:
    names = {name for record in corpus.records for name in record.votes}
    assert len(names) == 69
    unresolved = [name for name in names if to_iso3(name) is None]
    assert unresolved == []
    codes = {to_iso3(name) for name in names}
    assert len(codes) == 69  # no two member names collapse into one state


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Côte d'Ivoire", "CIV"),
        ("Republic of Korea", "KOR"),
        ("Viet Nam", "VNM"),
        ("Saint Vincent and the Grenadines", "VCT"),
        ("Russian Federation", "RUS"),
        ("TKAZAKHSTAN", "KAZ"),
        ("AY DENMARK", "DNK"),
        ("Aa UNITED STATES", "USA"),
        ("CHILEs ", "CHL"),
        (" UNITED KINGDOM", "GBR"),
        ("BOLIVIA (PLURINATIOANL STATE OF)", "BOL"),
        ("REPULIC OF MOLDOVA", "MDA"),
        ("YUGOSLAVIA", "YUG"),
        ("SERBIAMONTENEGRO", "SCG"),
        ("GERMAN DEMOCRATIC REPUBLIC", "DDR"),
        ("LAO PEOPLE's DEMOCRATIC REPUBLIC", "LAO"),
        ("IVORY COAST", "CIV"),
        ("ZAIRE", "COD"),
    ],
)
def test_un_and_undl_spellings(name: str, code: str) -> None:
    assert to_iso3(name) == code


@pytest.mark.parametrize("name", ["DONOTKNOW", "Member States", "United Nations", "Atlantis", ""])
def test_unknown_names_are_none(name: str) -> None:
    assert to_iso3(name) is None


def test_every_undl_country_column_but_one_resolves() -> None:
    with data_file("undl/undl_export_wide_1946_2021.csv.gz").open_text(newline="") as f:
        header = next(csv.reader(f))
    assert [c for c in header[11:] if to_iso3(c) is None] == ["DONOTKNOW"]


def test_nations_in_text_prefers_the_longest_name_and_skips_organisations() -> None:
    text = (
        "Member States of the United Nations condemned the launch by the Democratic People’s Republic of "
        "Korea; Equatorial Guinea, Niger and the U.S. spoke on Gaza."
    )
    assert nations_in_text(text) == ["PRK", "GNQ", "NER", "USA", "PSE"]
    assert name_for("RUS") == "Russian Federation" and name_for("PSE") == "Palestine"
