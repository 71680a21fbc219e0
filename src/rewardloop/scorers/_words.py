"""English number words shared by the answer readers (math_equiv's extraction and normalisation, qa_equiv)."""

from __future__ import annotations

__all__ = ["ONES", "TENS"]

#: the words of 0 to 19, in order (``ONES[7] == "seven"``)
ONES: tuple[str, ...] = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
#: the words of 20, 30, ... 90, in order
TENS: tuple[str, ...] = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
