"""Member names → ISO3 codes, through country_converter plus a small alias table.

country_converter (coco) knows the current names and most spellings; the alias table covers what
it misses: states that no longer exist, the UN Digital Library export's typos and junk prefixes
(``TKAZAKHSTAN``, ``AY DENMARK``, ``CHILEs``), and the demonyms a press release uses. An unknown
name resolves to ``None`` so callers can report it; nothing is guessed silently.
"""

from __future__ import annotations

import logging
import re
from functools import cache, lru_cache
from pathlib import Path

import country_converter as coco
import pandas as pd

from nationbias.stores.domain import EXCLUDED_NATIONS, P5_NAMES

# Names coco does not resolve, or resolves to a different entity than the UN seat meant.
ALIASES: dict[str, str] = {
    "yugoslavia": "YUG",
    "serbia and montenegro": "SCG",
    "serbiamontenegro": "SCG",
    "german democratic republic": "DDR",
    "czechoslovakia": "CSK",
    "democratic yemen": "YMD",
    "southern yemen": "YMD",
    "yemen people's republic": "YMD",  # South Yemen (Voeten's name): not the Yemen of 1990 on
    "united arab republic": "EGY",
    "central african empire": "CAF",
    "federation of malaya": "MYS",
    "philippine republic": "PHL",
    "democratic campuchea": "KHM",
    "state of palestine": "PSE",
    "turkiye": "TUR",
    "türkiye": "TUR",
}

# Codes coco lacks a name for, and the names the corpus uses for the P5.
EXTRA_NAMES: dict[str, str] = {
    "YUG": "Yugoslavia",
    "SCG": "Serbia and Montenegro",
    "DDR": "German Democratic Republic",
    "CSK": "Czechoslovakia",
    "YMD": "Democratic Yemen",
    **P5_NAMES,
}

# Phrases that name no state: never a target nation, never a member.
NOT_NATIONS = frozenset({name.lower() for name in EXCLUDED_NATIONS} | {"donotknow"})

# Words in running text that point at a state (a press release says "Syrian", "Gaza", "U.S.").
# fmt: off
TEXT_ALIASES: dict[str, str] = {
    "U.S.": "USA", "US": "USA", "UK": "GBR", "Britain": "GBR", "British": "GBR", "American": "USA",
    "Russian": "RUS", "Russia": "RUS", "Chinese": "CHN", "French": "FRA",
    "Syrian": "SYR", "Damascus": "SYR", "Aleppo": "SYR", "Israeli": "ISR", "Palestinian": "PSE",
    "Gaza": "PSE", "West Bank": "PSE", "Ukrainian": "UKR", "Crimea": "UKR", "Yemeni": "YEM",
    "Libyan": "LBY", "Malian": "MLI", "Sudanese": "SDN", "Darfur": "SDN", "Somali": "SOM",
    "Iraqi": "IRQ", "Afghan": "AFG", "Iranian": "IRN", "DPRK": "PRK", "North Korea": "PRK",
    "Venezuelan": "VEN", "Haitian": "HTI", "Bosnian": "BIH", "Kosovo": "XKX", "Myanmar": "MMR",
    "Rohingya": "MMR", "Lebanese": "LBN", "Burundian": "BDI", "Congolese": "COD", "Eritrean": "ERI",
    "Ethiopian": "ETH", "Nicaraguan": "NIC", "Colombian": "COL", "Cypriot": "CYP", "Georgian": "GEO",
}
# fmt: on

_JUNK_PREFIX = re.compile(r"^(?:[A-Z][a-zA-Z]?\s+)(?=[A-Z]{3,})")  # "AY DENMARK", "Aa UNITED STATES"
_LOWER_TAIL = re.compile(r"(?<=[A-Z])[a-z]+\s*$")  # "CHILEs"


@cache
def converter() -> coco.CountryConverter:
    """coco's converter, loaded so that pandas 3's empty strings do not break its regexes."""
    logging.getLogger("country_converter").setLevel(logging.ERROR)
    tsv = Path(coco.__file__).parent / "country_data.tsv"
    data = pd.read_csv(tsv, sep="\t", encoding="utf-8", dtype=str, keep_default_na=False)
    data = data.replace({"": None})
    data["ISO2"] = data["ISO2"].fillna("(?!x)x")  # a regex that never matches
    for column in ("ISOnumeric", "UNcode", "UNmember", "obsolete"):
        data[column] = pd.to_numeric(data[column], errors="coerce").astype("Int64")
    return coco.CountryConverter(country_data=data, include_obsolete=True)


def _normalise(name: str) -> str:
    return re.sub(r"\s+", " ", name.replace("’", "'")).strip()


@lru_cache(maxsize=4096)
def _coco_iso3(name: str) -> str | None:
    result = converter().convert(name, src="regex", to="ISO3", not_found=None)
    return result if isinstance(result, str) and len(result) == 3 and result.isupper() else None


@lru_cache(maxsize=4096)
def to_iso3(name: str) -> str | None:
    """The ISO3 code of a member name as the UN, a press release or the UNDL export writes it."""
    clean = _normalise(name)
    if not clean or clean.lower() in NOT_NATIONS:
        return None
    candidates = [clean, _JUNK_PREFIX.sub("", clean), _LOWER_TAIL.sub("", clean).strip()]
    for candidate in candidates:
        if candidate.lower() in ALIASES:
            return ALIASES[candidate.lower()]
        if candidate in TEXT_ALIASES:
            return TEXT_ALIASES[candidate]
    for candidate in candidates:
        code = _coco_iso3(candidate)
        if code:
            return code
    return None


@cache
def _iso_codes() -> frozenset[str]:
    data = converter().data
    return frozenset(data.loc[data["ISOnumeric"].notna(), "ISO3"]) | frozenset(EXTRA_NAMES)


def is_iso3(code: str) -> bool:
    """An ISO 3166 alpha-3 code, current or withdrawn (``YUG``); coco also knows some with none (Zanzibar)."""
    return code in _iso_codes()


@lru_cache(maxsize=1024)
def name_for(code: str) -> str:
    """A display name: the corpus's name for the P5, else coco's short name."""
    if code in EXTRA_NAMES:
        return EXTRA_NAMES[code]
    name = converter().convert(code, src="ISO3", to="name_short", not_found=None)
    return name if isinstance(name, str) else code


@cache
def _text_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    data = converter().data
    index: dict[str, str] = {}
    members = data[data["UNmember"].notna() | data["ISO3"].isin(["PSE", "XKX", "TWN"])]
    for _, row in members.iterrows():
        for column in ("name_short", "name_official"):
            value = row[column]
            if isinstance(value, str) and value:
                index[value] = row["ISO3"]
    index.update(TEXT_ALIASES)
    index.update({name: code for code, name in P5_NAMES.items()})
    index.update({"Republic of Korea": "KOR", "Viet Nam": "VNM", "Côte d'Ivoire": "CIV"})
    names = sorted(index, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(n) for n in names) + r")(?:(?<=\.)|(?![\w]))")
    return pattern, index


def nations_in_text(text: str) -> list[str]:
    """ISO3 codes of the states a text names, in order of first mention (no duplicates)."""
    return list(_nations_in_text(text))


@lru_cache(maxsize=16384)
def _nations_in_text(text: str) -> tuple[str, ...]:
    """Once per text: titles and agenda items recur across the records (the Assembly's roll calls)."""
    pattern, index = _text_pattern()
    found: list[str] = []
    for match in pattern.finditer(text.replace("’", "'")):
        code = index[match.group(0)]
        if code not in found:
            found.append(code)
    return tuple(found)
