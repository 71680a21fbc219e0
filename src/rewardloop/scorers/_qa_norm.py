"""Canonical forms of short QA answers for :mod:`rewardloop.scorers.qa_equiv`.

:func:`canon` turns an answer into a :class:`Form`: its SQuAD normalisation (what exact match compares), a tuple of
canonical tokens, the original-case tokens the name and acronym rules read, and the names of the normalisers that
changed something (so a verdict can say why two strings were equal). The canonical tokens go beyond SQuAD:

* ``unicode`` — accents folded (``Röntgen`` = ``Rontgen``), typographic quotes and dashes made ASCII, zero-width
  characters and soft hyphens dropped; dotted acronyms joined (``U.S.`` = ``US``);
* ``dates`` — ``14 December 1972``, ``December 14, 1972``, ``Dec. 14th 1972``, ``1972-12-14``, ``14/12/1972``
  (only when the day/month order is unambiguous) become one token ``zdate19721214``; month + year become
  ``zdate197212``; a bare year stays a number;
* ``numbers`` — number words and digits are one form (``twenty-one`` = ``21``, ``3.5 million`` = ``3500000``,
  ``1,000`` = ``1000``, ``3.50`` = ``3.5``; ``a dozen`` = ``12``, ``half a dozen`` = ``6``; ``WWII`` / ``WW2`` /
  ``the Second World War`` = ``World War II``); ordinals have their own form (``fourth`` = ``4th`` ≠ ``four``);
* ``roman`` — upper-case roman numerals that contain I, V or X (``World War II`` = ``World War 2``; ``DC`` and
  ``MD`` are left alone), and a lone ``V`` / ``X`` after a capitalised word (``George V``);
* ``units`` — after a number, unit words and their abbreviations are one form (``300 kilometres`` = ``300 km``,
  ``50 per cent`` = ``50%`` = ``50 percent``, ``$5`` = ``5 dollars``; magnitudes ``3.5M`` / ``$1.2bn`` / ``3.5
  mln`` = ``3.5 million``, not a spaced ``5 m``; ``9pm`` = ``9 p.m.``; ``44 BCE`` = ``44 BC``, ``CE`` = ``AD``);
  values are never converted between units;
* ``honorifics`` — leading titles (``Sir``, ``Dr``, ``President``, ``Queen`` ...) and a trailing ``Jr`` / ``Sr``
  are dropped when a name remains;
* ``plurals`` — a light English stemmer on words of four letters or more (``pilgrims`` = ``pilgrim``,
  ``cities`` = ``city``; ``Paris`` and ``class`` are kept);
* ``articles`` — ``a`` / ``an`` / ``the`` dropped, as in SQuAD;
* ``citations`` — a citation marker glued to a lower-case word dropped (``Ed Roland12.``, ``pepsin1``); ``&`` is
  ``and``; ``St.`` / ``Saint``, ``Mt.`` / ``Mount``, ``Ft.`` / ``Fort``, ``Ave`` / ``Avenue`` one word. A title
  is dropped only before a name (``Queen of the United Kingdom`` and ``prince-electors`` keep it).

Everything here is a bounded scan over a string; nothing is evaluated. Gold answers repeat across the responses
of a prompt group, so their forms are cached (:func:`canon_gold`); predictions are not.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

__all__ = [
    "FUNCTION_WORDS",
    "PLACES",
    "Form",
    "canon",
    "canon_gold",
    "clear_caches",
    "is_number",
    "is_year_like",
    "prepare",
    "squad",
]

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_ARTICLES = frozenset({"a", "an", "the"})


def squad(text: str) -> str:
    """SQuAD normalisation (verl's ``normalize_answer``): lower case, no ASCII punctuation, no articles."""
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES_RE.sub(" ", text).split())


# -- unicode --------------------------------------------------------------------------------------------------

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_ASCII = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u00d7": "x",
    }
)


def _fold(text: str) -> tuple[str, bool]:
    if text.isascii():
        return text, False
    folded = text.translate(_INVISIBLE).translate(_ASCII)
    decomposed = unicodedata.normalize("NFKD", folded)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return folded, folded != text


# -- dates ----------------------------------------------------------------------------------------------------

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{3,4})(?!\d)"
_DMY = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}", re.I)
_MDY = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}", re.I)
_MY = re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?(\d{{4}})(?!\d)", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_SLASH = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")


def _date_token(year: str, month: int, day: int | None = None) -> str:
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return ""
    return f" zdate{int(year):04d}{month:02d}" + (f"{day:02d} " if day is not None else " ")


def _dates(text: str) -> str:
    def dmy(m: re.Match[str]) -> str:
        return _date_token(m.group(3), _MONTHS[m.group(2).lower()], int(m.group(1))) or m.group(0)

    def mdy(m: re.Match[str]) -> str:
        return _date_token(m.group(3), _MONTHS[m.group(1).lower()], int(m.group(2))) or m.group(0)

    def my(m: re.Match[str]) -> str:
        return _date_token(m.group(2), _MONTHS[m.group(1).lower()]) or m.group(0)

    def iso(m: re.Match[str]) -> str:
        return _date_token(m.group(1), int(m.group(2)), int(m.group(3))) or m.group(0)

    def slash(m: re.Match[str]) -> str:
        a, b = int(m.group(1)), int(m.group(2))
        if a > 12 >= b:
            return _date_token(m.group(3), b, a) or m.group(0)
        if b > 12 >= a:
            return _date_token(m.group(3), a, b) or m.group(0)
        return m.group(0)  # 03/04/2001: day and month cannot be told apart

    for pattern, repl in ((_ISO, iso), (_DMY, dmy), (_MDY, mdy), (_MY, my), (_SLASH, slash)):
        text = pattern.sub(repl, text)
    return text


# -- numbers, units -------------------------------------------------------------------------------------------

_UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS_WORDS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
    "eightieth": 80, "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
_UNIT_SYNONYMS = {
    "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km", "kms": "km", "km": "km",
    "metre": "m", "metres": "m", "meter": "m", "meters": "m", "m": "m",
    "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm", "cm": "cm",
    "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm", "mm": "mm",
    "mile": "mi", "miles": "mi", "mi": "mi", "foot": "ft", "feet": "ft", "ft": "ft",
    "inch": "inch", "inches": "inch", "yard": "yd", "yards": "yd", "yd": "yd",
    "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg", "kg": "kg", "kgs": "kg",
    "gram": "g", "grams": "g", "g": "g", "pound": "lb", "pounds": "lb", "lb": "lb", "lbs": "lb",
    "tonne": "t", "tonnes": "t", "ton": "t", "tons": "t",
    "percent": "percent", "pct": "percent", "dollar": "usd", "dollars": "usd", "usd": "usd",
    "euro": "eur", "euros": "eur", "eur": "eur", "gbp": "gbp", "sterling": "gbp",
    "year": "year", "years": "year", "yr": "year", "yrs": "year", "month": "month", "months": "month",
    "day": "day", "days": "day", "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
    "minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
    "second": "second", "seconds": "second", "sec": "second", "secs": "second",
    "degree": "degree", "degrees": "degree", "mph": "mph", "kmh": "kmh",
}  # fmt: skip
_HAS_DIGIT = re.compile(r"\d")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_CURRENCY = re.compile(
    r"(us\s?\$|\$|£|€)\s*(\d+(?:\.\d+)?)(\s*(?:million|billion|trillion|thousand)\b)?", re.I
)
#: magnitude abbreviations glued to a number or spelled short: "3.5M", "$1.2bn", "3.5 mln" (a spaced "5 m" is
#: metres, a "5K" a race: neither is read)
_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)(?:(M|bn|bln|tn|trn|mln|mn)|\s(mln|bln|bn|trn))\b")
_MAGNITUDES = {"m": "million", "mln": "million", "mn": "million", "bn": "billion", "bln": "billion"}
_MAGNITUDES |= {"tn": "trillion", "trn": "trillion"}
#: "9pm" / "9 P.M." is "9 pm" (the gold "9 p.m." reads so)
_CLOCK = re.compile(r"\b(\d{1,2}(?::\d\d)?)\s?([ap])\.?m\b\.?", re.I)
#: "44 BCE" is "44 BC", "44 CE" is "44 AD"
_BCE = re.compile(r"(?<=\d)\s*\b(B\.?C\.?E|C\.?E)\b\.?(?!\w)")
#: "WWII", "WW2", "the Second World War" are "World War II"
_WORLD_WAR = re.compile(r"\b(?:WW\s?(II|I|2|1)|(?:the\s+)?(First|Second)\s+World\s+War)\b", re.I)
#: a cheap test in front of the three rewrites above
_SPELLED_HINT = re.compile(r"\d\s?(?:M|bn|bln|tn|trn|mln|mn|[AaPp]\.?[Mm]|B\.?C\.?E|C\.?E)\b")
_WAR_NUMBERS = {"ii": "II", "2": "II", "i": "I", "1": "I", "first": "I", "second": "II"}
#: "a dozen" is 12, "half a dozen" 6 (a counted "5 dozen" is refused as arithmetic by the scorer)
_DOZEN = re.compile(r"\b(half\s+)?a\s+dozen\b", re.I)
_CURRENCY_CODES = {"$": "usd", "us$": "usd", "us $": "usd", "£": "gbp", "€": "eur"}
_PER_CENT = re.compile(r"\bper\s+cent\b|%", re.I)
#: place-name words and their abbreviations, one form: "St. Ignatius" = "Saint Ignatius", "Mt. Everest"
_ABBREVIATIONS = {"saint": "st", "mount": "mt", "mont": "mt", "avenue": "ave", "fort": "ft"}
#: a citation marker glued to the end of a lower-case word ("Ed Roland12.", "pepsin1", "Tyke⁶"): not part of it
_CITATION = re.compile(r"(?<=[^\W\d_][a-z]{2})\d{1,3}(?=[\s.,;:!?)\]\"']|$)")
_DOTTED = re.compile(r"\b(?:[A-Za-z]\.){2,}(?![A-Za-z])")
_TOKEN = re.compile(r"zdate\d+|\d+(?:\.\d+)?(?:st|nd|rd|th)?(?![a-z\d])|[^\W_]+", re.I)
_DIGITS = re.compile(r"(\d+(?:\.\d+)?)(st|nd|rd|th)?$", re.I)
_ROMAN = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _number_text(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _roman_value(token: str) -> int:
    total = 0
    for i, char in enumerate(token):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[token[i + 1]] if i + 1 < len(token) else 0
        total += -value if value < following else value
    return total


def _is_roman(token: str, previous: str | None) -> bool:
    if not token.isupper() or not _ROMAN.match(token) or not (set(token) & {"I", "V", "X"}):
        return False
    if len(token) >= 2:
        return True
    # a lone V or X only after a capitalised word (George V, Malcolm X); a lone I is the pronoun
    return token in ("V", "X") and previous is not None and previous[:1].isupper()


# -- names ----------------------------------------------------------------------------------------------------

_HONORIFICS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "mister",
        "dr",
        "doctor",
        "sir",
        "dame",
        "lord",
        "lady",
        "prof",
        "professor",
        "president",
        "king",
        "queen",
        "prince",
        "princess",
        "rev",
        "reverend",
        "general",
        "gen",
        "captain",
        "capt",
        "colonel",
        "col",
        "senator",
        "sen",
        "governor",
        "gov",
        "pope",
        "emperor",
        "empress",
        "sheikh",
        "sultan",
        "tsar",
        "czar",
        "archbishop",
        "bishop",
        "cardinal",
    ]
)
_SUFFIXES = frozenset({"jr", "sr", "jnr", "snr", "junior", "senior"})

#: single-token answers too common to be found by containment inside a longer answer
FUNCTION_WORDS = frozenset(
    [
        "one",
        "two",
        "yes",
        "no",
        "none",
        "all",
        "both",
        "either",
        "neither",
        "right",
        "left",
        "true",
        "false",
        "up",
        "down",
        "on",
        "off",
        "in",
        "out",
        "it",
        "he",
        "she",
        "they",
        "we",
        "you",
        "i",
        "me",
        "him",
        "her",
        "them",
        "this",
        "that",
        "these",
        "those",
        "some",
        "any",
        "each",
        "many",
        "much",
        "more",
        "most",
        "less",
        "few",
        "first",
        "last",
        "north",
        "south",
        "east",
        "west",
        "top",
        "bottom",
        "front",
        "back",
        "high",
        "low",
        "new",
        "old",
        "other",
        "same",
    ]
)

#: countries, US states and a few regions: a second item after a comma that is one of these is a location
#: qualifier ("Paris, France"), not a second candidate
PLACES = frozenset(
    s.lower()
    for s in [
        "Afghanistan",
        "Albania",
        "Algeria",
        "Andorra",
        "Angola",
        "Argentina",
        "Armenia",
        "Australia",
        "Austria",
        "Azerbaijan",
        "Bahamas",
        "Bahrain",
        "Bangladesh",
        "Barbados",
        "Belarus",
        "Belgium",
        "Belize",
        "Benin",
        "Bhutan",
        "Bolivia",
        "Bosnia",
        "Botswana",
        "Brazil",
        "Brunei",
        "Bulgaria",
        "Burma",
        "Burundi",
        "Cambodia",
        "Cameroon",
        "Canada",
        "Chad",
        "Chile",
        "China",
        "Colombia",
        "Congo",
        "Costa Rica",
        "Croatia",
        "Cuba",
        "Cyprus",
        "Czech Republic",
        "Czechia",
        "Denmark",
        "Djibouti",
        "Dominica",
        "Ecuador",
        "Egypt",
        "El Salvador",
        "England",
        "Eritrea",
        "Estonia",
        "Eswatini",
        "Ethiopia",
        "Fiji",
        "Finland",
        "France",
        "Gabon",
        "Gambia",
        "Georgia",
        "Germany",
        "Ghana",
        "Greece",
        "Grenada",
        "Guatemala",
        "Guinea",
        "Guyana",
        "Haiti",
        "Honduras",
        "Hungary",
        "Iceland",
        "India",
        "Indonesia",
        "Iran",
        "Iraq",
        "Ireland",
        "Israel",
        "Italy",
        "Jamaica",
        "Japan",
        "Jordan",
        "Kazakhstan",
        "Kenya",
        "Korea",
        "South Korea",
        "North Korea",
        "Kosovo",
        "Kuwait",
        "Kyrgyzstan",
        "Laos",
        "Latvia",
        "Lebanon",
        "Lesotho",
        "Liberia",
        "Libya",
        "Liechtenstein",
        "Lithuania",
        "Luxembourg",
        "Madagascar",
        "Malawi",
        "Malaysia",
        "Maldives",
        "Mali",
        "Malta",
        "Mauritania",
        "Mauritius",
        "Mexico",
        "Moldova",
        "Monaco",
        "Mongolia",
        "Montenegro",
        "Morocco",
        "Mozambique",
        "Myanmar",
        "Namibia",
        "Nepal",
        "Netherlands",
        "Holland",
        "New Zealand",
        "Nicaragua",
        "Niger",
        "Nigeria",
        "Northern Ireland",
        "Norway",
        "Oman",
        "Pakistan",
        "Palestine",
        "Panama",
        "Papua New Guinea",
        "Paraguay",
        "Peru",
        "Philippines",
        "Poland",
        "Portugal",
        "Qatar",
        "Romania",
        "Russia",
        "Rwanda",
        "Samoa",
        "San Marino",
        "Saudi Arabia",
        "Scotland",
        "Senegal",
        "Serbia",
        "Seychelles",
        "Sierra Leone",
        "Singapore",
        "Slovakia",
        "Slovenia",
        "Somalia",
        "South Africa",
        "Spain",
        "Sri Lanka",
        "Sudan",
        "South Sudan",
        "Suriname",
        "Sweden",
        "Switzerland",
        "Syria",
        "Taiwan",
        "Tajikistan",
        "Tanzania",
        "Thailand",
        "Togo",
        "Tonga",
        "Trinidad",
        "Tunisia",
        "Turkey",
        "Turkmenistan",
        "Uganda",
        "Ukraine",
        "United Arab Emirates",
        "UAE",
        "United Kingdom",
        "UK",
        "Great Britain",
        "Britain",
        "United States",
        "United States of America",
        "US",
        "USA",
        "America",
        "Uruguay",
        "Uzbekistan",
        "Vanuatu",
        "Vatican",
        "Venezuela",
        "Vietnam",
        "Wales",
        "Yemen",
        "Zambia",
        "Zimbabwe",
        "Alabama",
        "Alaska",
        "Arizona",
        "Arkansas",
        "California",
        "Colorado",
        "Connecticut",
        "Delaware",
        "Florida",
        "Hawaii",
        "Idaho",
        "Illinois",
        "Indiana",
        "Iowa",
        "Kansas",
        "Kentucky",
        "Louisiana",
        "Maine",
        "Maryland",
        "Massachusetts",
        "Michigan",
        "Minnesota",
        "Mississippi",
        "Missouri",
        "Montana",
        "Nebraska",
        "Nevada",
        "New Hampshire",
        "New Jersey",
        "New Mexico",
        "New York",
        "North Carolina",
        "North Dakota",
        "Ohio",
        "Oklahoma",
        "Oregon",
        "Pennsylvania",
        "Rhode Island",
        "South Carolina",
        "South Dakota",
        "Tennessee",
        "Texas",
        "Utah",
        "Vermont",
        "Virginia",
        "Washington",
        "West Virginia",
        "Wisconsin",
        "Wyoming",
        "DC",
        "D C",
        "Ontario",
        "Quebec",
        "British Columbia",
        "Alberta",
        "Manitoba",
        "Nova Scotia",
        "Europe",
        "Asia",
        "Africa",
        "North America",
        "South America",
        "Oceania",
        "Antarctica",
        "Middle East",
        "Caribbean",
        "Scandinavia",
    ]
)


class Form(NamedTuple):
    """An answer's canonical form: see the module docstring."""

    squad: str
    tokens: tuple[str, ...]
    cased: tuple[str, ...]
    changed: frozenset[str]


def is_number(token: str) -> bool:
    return token[:1].isdigit() or token.startswith("zdate")


def is_year_like(token: str) -> bool:
    """A year (``1000``-``2199``) or a date token."""
    if token.startswith("zdate"):
        return True
    return len(token) == 4 and token.isdigit() and 1000 <= int(token) <= 2199


#: units a leading "a" / "an" counts ("a week", "an hour"); "second" is left out (also an ordinal)
_COUNTED_UNITS = frozenset(
    {"year", "month", "week", "day", "hour", "minute", "decade", "century", "mile", "kilometre", "kilometer"}
)


def _stem(word: str) -> str:
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")) or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def _prepare(text: str, changed: set[str]) -> str:
    text, folded = _fold(text)
    if folded:
        changed.add("unicode")
    if "&" in text:  # "Malcolm & Donald Campbell" names two people, as "Malcolm and Donald Campbell" does
        text = text.replace("&", " and ")
    if _HAS_DIGIT.search(text) and _CITATION.search(text):
        text = _CITATION.sub("", text)
        changed.add("citations")
    if "," in text and _HAS_DIGIT.search(text):
        text = _THOUSANDS.sub("", text)
    if "." in text and _DOTTED.search(text):
        text = _DOTTED.sub(lambda m: m.group(0).replace(".", "") + " ", text)
    if _HAS_DIGIT.search(text) and _SPELLED_HINT.search(text):
        spelled = _MAGNITUDE.sub(
            lambda m: f"{m.group(1)} {_MAGNITUDES[(m.group(2) or m.group(3)).lower()]}", text
        )
        spelled = _CLOCK.sub(lambda m: f"{m.group(1)} {m.group(2).lower()}m", spelled)
        spelled = _BCE.sub(lambda m: " BC" if m.group(1)[:1] in "bB" else " AD", spelled)
        if spelled != text:
            text = spelled
            changed.add("units")
    if "ww" in text.lower() or "orld" in text or "dozen" in text:
        spelled = _WORLD_WAR.sub(
            lambda m: f"World War {_WAR_NUMBERS[(m.group(1) or m.group(2)).lower()]}", text
        )
        spelled = _DOZEN.sub(lambda m: "6" if m.group(1) else "12", spelled)
        if spelled != text:
            text = spelled
            changed.add("numbers")
    if any(c in text for c in "$£€"):
        text = _CURRENCY.sub(
            lambda m: f" {m.group(2)}{m.group(3) or ''} {_CURRENCY_CODES[m.group(1).lower()]} ", text
        )
        changed.add("units")
    if "%" in text or "cent" in text:
        text = _PER_CENT.sub(" percent ", text)
    if not _HAS_DIGIT.search(text):  # every date pattern holds a year
        return text.replace("'", "")
    dated = _dates(text)
    if dated != text:
        changed.add("dates")
    return dated.replace("'", "")


def _words_to_numbers(tokens: list[str], cased: list[str], changed: set[str]) -> tuple[list[str], list[str]]:
    """Number words and ``3.5 million`` to digits, ordinals to ``<n>th``, roman numerals to digits."""
    out: list[str] = []
    out_cased: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        value, j = _read_number(tokens, i)
        if j > i:
            ordinal = (
                j < n and tokens[j] in _ORDINAL_WORDS and _ORDINAL_WORDS[tokens[j]] < 10 and value % 100 >= 20
            )
            if ordinal:  # twenty first
                out.append(f"{int(value) + _ORDINAL_WORDS[tokens[j]]}th")
                j += 1
            else:
                out.append(_number_text(value))
            if j - i > 1 or not token[:1].isdigit() or out[-1] != token:
                changed.add("numbers")
            out_cased.append(out[-1])
            i = j
            continue
        if token in _ORDINAL_WORDS:
            out.append(f"{_ORDINAL_WORDS[token]}th")
            changed.add("numbers")
        elif _is_roman(cased[i], cased[i - 1] if i else None):
            out.append(str(_roman_value(cased[i])))
            changed.add("roman")
        else:
            digits = _DIGITS.match(token)
            if digits and digits.group(2):
                out.append(f"{_number_text(Decimal(digits.group(1)))}th")
            else:
                out.append(token)
        out_cased.append(cased[i] if out[-1] == token else out[-1])
        i += 1
    return out, out_cased


def _read_number(tokens: list[str], i: int) -> tuple[Decimal, int]:
    """A number starting at ``tokens[i]`` (digits or words, with scale words) and the index after it."""
    token = tokens[i]
    total = Decimal(0)
    current = Decimal(0)
    j = i
    seen = False
    if token[:1].isdigit() and not token[-2:].isalpha():
        try:
            current = Decimal(token)
        except InvalidOperation:
            return Decimal(0), i
        j, seen = i + 1, True
    while j < len(tokens):
        word = tokens[j]
        if word in _UNITS_WORDS and not (seen and current % 10):
            current += _UNITS_WORDS[word]
        elif word in _TENS_WORDS and not (seen and current % 100):
            current += _TENS_WORDS[word]
        elif word in _SCALES and seen:
            scale = _SCALES[word]
            if scale == 100:
                current = (current or Decimal(1)) * 100
            else:
                total += (current or 1) * scale
                current = Decimal(0)
        elif (
            word == "and"
            and seen
            and j + 1 < len(tokens)
            and (tokens[j + 1] in _UNITS_WORDS or tokens[j + 1] in _TENS_WORDS)
            and current >= 100
        ):
            pass  # one hundred and five
        else:
            break
        seen = True
        j += 1
    return (total + current, j) if seen else (Decimal(0), i)


def _canon(text: str) -> Form:
    changed: set[str] = set()
    prepared = _prepare(text, changed)
    cased = _TOKEN.findall(prepared)
    tokens = [_ABBREVIATIONS.get(t, t) for t in (t.lower() for t in cased)]
    for i in range(len(tokens) - 1):
        if tokens[i] in ("a", "an", "one") and _stem(tokens[i + 1]) in _COUNTED_UNITS:
            tokens[i] = cased[i] = "1"  # "a week" is one week: "741 weeks" must not contain it
    if any(
        t in _UNITS_WORDS or t in _TENS_WORDS or t in _ORDINAL_WORDS or t[:1].isdigit() for t in tokens
    ) or any(t in ("V", "X") or (len(t) >= 2 and t.isupper()) for t in cased):
        tokens, cased = _words_to_numbers(tokens, cased, changed)
    tokens, cased = _units(tokens, cased, changed)
    keep = [i for i, t in enumerate(tokens) if t not in _ARTICLES]
    tokens = [tokens[i] for i in keep]
    cased = [cased[i] for i in keep]
    start = 0
    while start < len(tokens) - 1 and tokens[start] in _HONORIFICS and _title_drops(prepared, cased, start):
        start += 1
    end = len(tokens)
    while end - start > 1 and tokens[end - 1] in _SUFFIXES:
        end -= 1
    if start or end < len(tokens):
        changed.add("honorifics")
        tokens, cased = tokens[start:end], cased[start:end]
    stemmed = [_stem(t) for t in tokens]
    if stemmed != tokens:
        changed.add("plurals")
    return Form(squad(text), tuple(stemmed), tuple(cased), frozenset(changed))


#: words after a title that make the title the head of the answer: "Queen of the United Kingdom" is a queen
_TITLE_HEAD_NEXT = frozenset(["of", "and", "or", "to", "for", "in", "at"])


def _title_drops(prepared: str, cased: list[str], i: int) -> bool:
    """The title ``cased[i]`` may be dropped: it precedes a name, not ``of ...`` (``King of Spain``) and not as
    the first half of a hyphenated word (``prince-electors``)."""
    if cased[i + 1].lower() in _TITLE_HEAD_NEXT:
        return False
    return not re.search(rf"(?<![^\W_]){re.escape(cased[i])}-[^\W\d_]", prepared)


def _units(tokens: list[str], cased: list[str], changed: set[str]) -> tuple[list[str], list[str]]:
    for i in range(1, len(tokens)):
        unit = _UNIT_SYNONYMS.get(tokens[i])
        if unit is not None and is_number(tokens[i - 1]) and not tokens[i - 1].endswith("th"):
            if unit != tokens[i]:
                changed.add("units")
            tokens[i] = cased[i] = unit
    return tokens, cased


def prepare(text: str) -> str:
    """The text with accents folded, thousands separators dropped and dates as single tokens (for splitting)."""
    return _prepare(text, set())


def canon(text: str) -> Form:
    """The canonical form of an answer (predictions: not cached)."""
    return _canon(text)


@functools.lru_cache(maxsize=65536)
def canon_gold(text: str) -> Form:
    """The canonical form of a gold answer or a question, cached: both repeat across the responses of a prompt."""
    return _canon(text)


def clear_caches() -> None:
    """Empty the caches of gold and question forms (benchmarks clear them between passes)."""
    canon_gold.cache_clear()
    for hook in _CLEAR_HOOKS:
        hook()


#: other modules' caches of gold-derived data, cleared by :func:`clear_caches`
_CLEAR_HOOKS: list[Any] = []
