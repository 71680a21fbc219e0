"""Categories of verl-vs-rewardloop disagreements, written after reading the cases of ``parity_verl.py``.

Each category says who is right:

* ``ours`` -- a deliberate difference where verl is wrong; it is described in ``docs/verl-differences.md``;
* ``verl`` -- our scorer is wrong and must be fixed (reported to the scorer's owner);
* ``debatable`` -- a judgement call; documented either way.

:func:`categorize` assigns one category per disagreement from the response text and both verdicts; a
case no rule recognises is ``uncategorized:<scorer>:verl=<v>:ours=<o>`` and must be read by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: category -> (who is right, what happens)
CATEGORIES: dict[str, tuple[str, str]] = {
    "gsm8k/answer_before_last_300_chars": (
        "ours",
        "a correct '#### N' followed by more than 300 characters: verl searches only the last 300 "
        "(verl #7274); docs/verl-differences.md",
    ),
    "gsm8k/number_written_differently": (
        "ours",
        "'#### $60', '#### 222.00', '#### 42.' vs '60'/'222'/'42': verl's regex cannot see '$', keeps a "
        "trailing period and compares raw strings; ours compares decimals; docs/verl-differences.md",
    ),
    "hendrycks_math/fbox": (
        "ours",
        "the answer is in \\fbox{...}: verl locates it, then fails an assert in remove_boxed and scores 0; "
        "docs/verl-differences.md",
    ),
    "math_dapo/answer_outside_verl_window": (
        "ours",
        "the 'Answer:' line is not in the last 300 characters (or the box not in the last 100): verl sees "
        "no answer (pred '[INVALID]', -1.0); ours searches the whole response; docs/verl-differences.md",
    ),
    "math_dapo/fbox_or_bare_box": (
        "ours",
        "the answer is in \\fbox{...} or '\\boxed N': verl's box fallback only knows '\\boxed{'; "
        "docs/verl-differences.md",
    ),
    "math_dapo/boxed_fallback_normalised": (
        "ours",
        "no 'Answer:' line and a boxed answer with units, '\\$', degrees, \\text{}, \\textbf{} or 'x =': "
        "verl compares the box raw, ours applies the Minerva normalisation an 'Answer:' line gets; "
        "docs/verl-differences.md",
    ),
    "math_dapo/dfrac_tfrac_read_as_frac": (
        "ours",
        "'Answer: \\dfrac{2}{17}' vs '\\frac{2}{17}' (or the reverse): Minerva normalisation keeps "
        "\\dfrac/\\tfrac; docs/verl-differences.md",
    ),
    "hendrycks_math/boxed_space_brace": (
        "ours",
        "'\\boxed {3}' (a space before the brace): verl's '\\boxed ' branch keeps '{3}', which never equals "
        "'3'; docs/verl-differences.md",
    ),
    "prime_math/unreduced_fraction": (
        "ours",
        "an unreduced fraction of the right value (\\frac{14}{36} vs \\frac{7}{18}): PRM800K's grade_answer "
        "rejects it, and verl's math_equal fallback would accept it through symbolic_equal, which is dead "
        "code in verl; ours has a working symbolic_equal (prime_math docstring)",
    ),
    "prime_math/decimal_within_1e-4": (
        "debatable",
        "a rounded decimal for a LaTeX fraction (0.611111 vs \\frac{11}{18}, 0.00195312 vs \\dfrac{1}{512}): "
        "ours' working symbolic_equal accepts it at math_equal's 1e-4 relative tolerance; verl only applies "
        "that tolerance when both sides parse as floats. Consistent with verl's intent, but it rewards "
        "approximations where a problem asks for a common fraction",
    ),
    "prime_math/symbolic_equal_alive": (
        "ours",
        "other equal answers verl's dead symbolic_equal misses: a sentence period after a fraction "
        "('The answer is 1/4.' vs \\frac{1}{4}), '$2, 6$' vs '2,6', '$118\\text{dollars}$' vs "
        "'118 \\text{ dollars}'; ours' math_equal fallback has a working symbolic_equal (prime_math docstring)",
    ),
    "prime_math/hash_comment_truncates": (
        "verl",
        "ours' symbolic comparison reads '#' as a comment, so the extracted answer "
        "'42 #### 42 <answer>Paris</answer>' (or '42 #### 17', '42 # 17') equals 42; verl says no. "
        "Must be fixed in scorers/_sympy_grade.py / prime_math.py",
    ),
}


def score_value(result: Any) -> float | None:
    """The reward in a verl-style result (a float, or a dict with ``"score"``)."""
    if isinstance(result, dict):
        result = result.get("score")
    if isinstance(result, bool | int | float):
        return float(result)
    return None


def family_of(source: str) -> str:
    """The verl scorer module a data source is routed to."""
    if source == "openai/gsm8k":
        return "gsm8k"
    if source in ("lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"):
        return "hendrycks_math"
    if source in ("math_dapo", "math", "math_dapo_reasoning") or source.startswith("aime"):
        return "math_dapo"
    if source.startswith("numina_"):
        return "prime_math"
    if source == "hiyouga/geometry3k":
        return "geo3k"
    return "qa_em"


def categorize(row: dict[str, Any], verl: Any, ours: Any) -> str:
    """The category of one disagreement (see :data:`CATEGORIES`)."""
    family = family_of(row["data_source"])
    rule = _RULES.get(family)
    name = rule(row["response"], row["ground_truth"], verl, ours) if rule else None
    return name or f"uncategorized:{family}:verl={score_value(verl)}:ours={score_value(ours)}"


def _gsm8k(text: str, gold: Any, verl: Any, ours: Any) -> str | None:
    if score_value(ours) == 1.0 and score_value(verl) == 0.0:
        if "#### " in text and "#### " not in text[-300:]:
            return "gsm8k/answer_before_last_300_chars"
        if re.search(r"####\s*\$|#### -?[\d,]*\.\d*0\b|#### -?[\d,]+\.(\s|$)", text[-300:]):
            return "gsm8k/number_written_differently"
    return None


def _hendrycks(text: str, gold: Any, verl: Any, ours: Any) -> str | None:
    if score_value(ours) == 1.0 and "\\fbox" in text and "\\boxed" not in text:
        return "hendrycks_math/fbox"
    if score_value(ours) == 1.0 and re.search(r"\\boxed \{", text):
        return "hendrycks_math/boxed_space_brace"
    return None


def _dapo(text: str, gold: Any, verl: Any, ours: Any) -> str | None:
    if not (isinstance(verl, dict) and isinstance(ours, dict) and ours.get("acc") and not verl.get("acc")):
        return None
    tail = text[-300:]
    if verl.get("pred") == "[INVALID]":
        last = tail[-100:]
        if ("\\fbox" in last or "\\boxed " in last) and "\\boxed{" not in last:
            return "math_dapo/fbox_or_bare_box"
        return "math_dapo/answer_outside_verl_window"
    if re.search(r"\\[dt]frac", f"{verl.get('pred')} {gold}"):
        return "math_dapo/dfrac_tfrac_read_as_frac"
    if not re.search(r"(?i)Answer\s*:", tail):
        return "math_dapo/boxed_fallback_normalised"
    return None


def _prime(text: str, gold: Any, verl: Any, ours: Any) -> str | None:
    if score_value(ours) == 1.0 and score_value(verl) == 0.0:
        last = text[-200:]
        if "#" in text[-500:]:
            return "prime_math/hash_comment_truncates"
        if re.search(r"\d\.\d{4,}", last):
            return "prime_math/decimal_within_1e-4"
        if re.search(r"\\[dt]?frac\{\d+\}\{\d+\}", last):
            return "prime_math/unreduced_fraction"
        return "prime_math/symbolic_equal_alive"
    return None


_RULES: dict[str, Callable[[str, Any, Any, Any], str | None]] = {
    "gsm8k": _gsm8k,
    "hendrycks_math": _hendrycks,
    "math_dapo": _dapo,
    "prime_math": _prime,
}
