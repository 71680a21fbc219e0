"""math_equiv and units beyond a fixed list (issue 22, red-team round 4 "unknown_units" / "unit_prefix"): SI
prefixes compose with every SI unit of the table (``kJ``, ``kHz``, ``kΩ``, ``µs``, ``nm``, ``MB``), named or
written as symbols, so a prefixed unit for the asked one is another unit of its kind: converted when its size is
exact (``5000 ms`` is ``5 s``), a wrong answer when it is not (a cup for litres, a hectare for acres, °C for
kelvin, kB for MB: 1000 or 1024?). Symbols are case-sensitive (``mW`` is not ``MW``).

Attack-first: more near misses (must score 0.0) than correct answers in the same forms (must score 1.0), under
every final-answer rule.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rewardloop.scorers._equiv_units import lookup, unit_size
from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")

MISSES = [
    # a prefixed unit of the asked one, not converted
    ("How many seconds does it take?", "5", "\\boxed{5\\text{ ms}}"),
    ("How many seconds does it take?", "5", "\\boxed{5\\,\\mu\\text{s}}"),
    ("How many seconds does it take?", "5", "\\boxed{5 \\text{ nanoseconds}}"),
    ("How many meters long is it?", "5", "\\boxed{5\\text{ nm}}"),
    ("How many meters long is it?", "5", "\\boxed{5\\,\\mu\\text{m}}"),
    ("How many joules of energy are released?", "5", "\\boxed{5\\text{ kJ}}"),
    ("How many joules of energy are released?", "5", "\\boxed{5 \\text{ megajoules}}"),
    ("What is the frequency in hertz?", "5", "\\boxed{5\\text{ kHz}}"),
    ("What is the power in watts?", "5", "\\boxed{5\\text{ kW}}"),
    ("What is the power in watts?", "5", "\\boxed{5\\text{ MW}}"),
    ("What is the force in newtons?", "5", "\\boxed{5\\text{ kN}}"),
    ("What is the pressure in pascals?", "5", "\\boxed{5\\text{ kPa}}"),
    ("What is the resistance in ohms?", "5", "\\boxed{5\\text{ k}\\Omega}"),
    ("What is the resistance in ohms?", "5", "\\boxed{5\\,\\mathrm{M\\Omega}}"),
    ("How many milliamperes flow?", "5", "\\boxed{5\\text{ A}}"),
    ("How many megabytes does the file use?", "5", "\\boxed{5\\text{ GB}}"),
    ("How many megabytes does the file use?", "5", "\\boxed{5000\\text{ kB}}"),  # 1000 or 1024 kB?
    ("How many bits are needed?", "5", "\\boxed{5\\text{ bytes}}"),
    ("How many grams?", "5", "\\boxed{5\\text{ mg}}"),
    ("How many liters?", "5", "\\boxed{5\\text{ mL}}"),
    ("How many liters?", "5", "\\boxed{5\\text{ cups}}"),  # a cup's size is a convention
    ("How many acres is the field?", "5", "\\boxed{5\\text{ hectares}}"),
    ("What is the temperature in kelvin?", "5", "\\boxed{5^\\circ\\text{C}}"),
    ("What is the temperature in degrees Fahrenheit?", "5", "\\boxed{5^\\circ\\text{C}}"),
    ("What is the temperature in degrees Fahrenheit?", "5", "\\boxed{5\u2103}"),
    # converted, but to another value
    ("How many seconds does it take?", "5", "\\boxed{500\\text{ ms}}"),
    ("How many joules of energy are released?", "5000", "\\boxed{5\\text{ MJ}}"),
    ("How many bits are needed?", "5", "\\boxed{5\\text{ bytes}}"),
    ("How many bits are needed?", "48", "\\boxed{5\\text{ bytes}}"),
    # the gold states a unit: another prefix is another unit
    (None, "5\\text{ kJ}", "\\boxed{5\\text{ J}}"),
    (None, "5\\text{ ms}", "\\boxed{5\\text{ s}}"),
]
EQUAL = [
    ("How many seconds does it take?", "5", "\\boxed{5000\\text{ ms}}"),
    ("How many seconds does it take?", "5", "\\boxed{5\\text{ s}}"),
    ("How many grams?", "5", "\\boxed{5000\\text{ mg}}"),
    ("How many joules of energy are released?", "5000", "\\boxed{5\\text{ kJ}}"),
    ("How many megabytes does the file use?", "5", "\\boxed{5\\text{ MB}}"),
    ("What is the resistance in ohms?", "5000", "\\boxed{5\\text{ k}\\Omega}"),
    ("How many bits are needed?", "40", "\\boxed{5\\text{ bytes}}"),
    ("What is the temperature in kelvin?", "5", "\\boxed{5\\text{ K}}"),
    ("What is the temperature in degrees Celsius?", "5", "\\boxed{5^\\circ\\text{C}}"),
    (None, "5\\text{ kJ}", "\\boxed{5000\\text{ J}}"),
]


def _value(prompt: str | None, gold: str, response: str, rule: str) -> float | None:
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    return (scorer.quick(sample) or scorer.score(sample)).value


@pytest.mark.parametrize("rule", RULES)
def test_prefixed_and_unknown_unit_near_misses_score_zero(rule: str) -> None:
    wrong = [row for row in MISSES if _value(*row, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_converted_and_asked_units_score_one(rule: str) -> None:
    wrong = [row for row in EQUAL if _value(*row, rule) != 1.0]
    assert not wrong, wrong


def test_every_si_unit_takes_every_prefix() -> None:
    # not a list of prefixed units: each prefix composes with each SI unit, by symbol and by name
    for base, name in (("J", "joule"), ("Hz", "hertz"), ("Pa", "pascal"), ("A", "ampere"), ("mol", "mole")):
        for sym, word, power in (
            ("k", "kilo", 3),
            ("M", "mega", 6),
            ("n", "nano", -9),
            ("\u00b5", "micro", -6),
        ):
            unit = lookup(sym + base, loose=False)
            assert unit is not None and unit == lookup(word + name + "s", loose=False), (sym, base)
            plain = lookup(base, loose=False)
            assert plain is not None
            size, one = unit_size(unit), unit_size(plain)
            assert size is not None and one is not None and size / one == Fraction(10) ** power, (sym, base)


def test_symbols_are_case_sensitive_and_words_are_no_units() -> None:
    assert lookup("mW", loose=False) != lookup("MW", loose=False)
    for word in ("am", "pm", "as", "pH", "KJ", "us"):
        assert lookup(word, loose=False) is None, word


def test_the_table_holds_more_near_misses() -> None:
    assert len(MISSES) > len(EQUAL)
