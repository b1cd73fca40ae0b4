"""The UN regional groups (African, Asia-Pacific, Eastern European, GRULAC, WEOG) of a state's ISO3 code.

The groups follow continents with known exceptions, so the rule is coco's continent and UN sub-region
plus a short table of the states whose group differs (Israel, Türkiye and the settler states sit in WEOG,
the Caucasus and the Balkans in the Eastern European group, Cyprus in Asia-Pacific). The United States
is an observer of WEOG and counted in it, as voting studies do.
"""

from __future__ import annotations

from functools import cache

from nationbias.stores.corpora.countries import converter

GROUPS = ("African", "Asia-Pacific", "Eastern European", "GRULAC", "WEOG")
_EXCEPTIONS = {
    **dict.fromkeys(("USA", "CAN", "AUS", "NZL", "ISR", "TUR"), "WEOG"),
    **dict.fromkeys(
        ("ARM", "AZE", "GEO", "EST", "LVA", "LTU", "CSK", "DDR", "YUG", "SCG", "SRB"), "Eastern European"
    ),
    **dict.fromkeys(("ALB", "BIH", "HRV", "MKD", "MNE", "SVN", "XKX"), "Eastern European"),
    "CYP": "Asia-Pacific",
    "YMD": "Asia-Pacific",
}
_BY_CONTINENT = {"Africa": "African", "America": "GRULAC", "Asia": "Asia-Pacific", "Oceania": "Asia-Pacific"}


@cache
def regional_group(code: str) -> str | None:
    """The state's UN regional group, or None for a code coco does not know."""
    if code in _EXCEPTIONS:
        return _EXCEPTIONS[code]
    data = converter().data
    row = data[data["ISO3"] == code]
    if row.empty:
        return None
    continent, subregion = row["continent"].iloc[0], row["UNregion"].iloc[0]
    if continent == "Europe":
        return "Eastern European" if subregion == "Eastern Europe" else "WEOG"
    return _BY_CONTINENT.get(str(continent))
