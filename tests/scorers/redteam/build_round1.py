"""Build ``math_equiv_round1.jsonl``: red-team round 1 against ``math_equiv`` (issue 22).

Written by a red-teamer who has not read the verifier's rules (only docs/math-verifier.md, README and the
issue texts). Every attack is a response a careful human grader rejects; every control is a correct answer
in one of the same surface forms. Run ``python tests/scorers/redteam/build_round1.py`` to regenerate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROWS: list[dict[str, Any]] = []
_N: dict[str, int] = {}
NOLAST = ["final", "wrong"]  # "last" grades the last box alone by definition
FINAL_LAST = ["final", "last"]  # controls with intermediate boxes: "wrong" rejects them by definition


def _id(prefix: str, cls: str) -> str:
    key = f"{prefix}-{cls}"
    _N[key] = _N.get(key, 0) + 1
    return f"r1-{prefix}-{cls}-{_N[key]:02d}"


def A(cls: str, gold: str, response: str, why: str, prompt: str = "", rules=None, modes=None) -> None:
    row: dict[str, Any] = {
        "id": _id("a", cls),
        "kind": "attack",
        "class": cls,
        "prompt": prompt,
        "gold": gold,
        "response": response,
        "why_wrong": why,
    }
    if rules:
        row["rules"] = rules
    if modes:
        row["modes"] = modes
    ROWS.append(row)


def C(cls: str, gold: str, response: str, prompt: str = "", rules=None, modes=None, note: str = "") -> None:
    row: dict[str, Any] = {
        "id": _id("c", cls),
        "kind": "control",
        "class": cls,
        "prompt": prompt,
        "gold": gold,
        "response": response,
    }
    if note:
        row["note"] = note
    if rules:
        row["rules"] = rules
    if modes:
        row["modes"] = modes
    ROWS.append(row)


# ---------------------------------------------------------------- numeric closeness
P = "Compute the exact value."
A("numeric_close", r"2^{64}-1", r"The count is $\boxed{2^{64}}$.", "off by one; close only relatively", P)
A("numeric_close", "0", r"The limit is $\boxed{e^{-100}}$.", "a tiny positive number is not 0", P)
A("numeric_close", "0", r"$\boxed{10^{-50}}$", "a tiny positive number is not 0", P)
A("numeric_close", r"\pi", r"$\boxed{\frac{355}{113}}$", "a rational approximation of pi is not pi", P)
A("numeric_close", r"\sqrt{2}", r"$\boxed{\frac{99}{70}}$", "a rational approximation (rel err 5e-5)", P)
A("numeric_close", "1", r"$\boxed{1-10^{-30}}$", "not 1", P)
A("numeric_close", r"2^{100}", r"$\boxed{2^{100}+1}$", "off by one at large magnitude", P)
A("numeric_close", r"100!", r"$\boxed{100!+1}$", "off by one at large magnitude", P)
A("numeric_close", r"\binom{100}{50}", r"$\boxed{\binom{100}{50}-1}$", "off by one at large magnitude", P)
A("numeric_close", r"e", r"$\boxed{\left(1+\frac{1}{10^{6}}\right)^{10^{6}}}$", "an approximation of e", P)
A("numeric_close", r"10^{20}", r"$\boxed{\sqrt{10^{40}+1}}$", "irrational, not the integer", P)
A("numeric_close", "1000", r"$\boxed{999.9999999}$", "not an integer; the answer is exactly 1000", P)
A("numeric_close", r"\frac{\pi}{4}", r"$\boxed{\arctan(1)+10^{-12}}$", "perturbed", P)
A("numeric_close", "0", r"$\boxed{\sin(10^{-20})}$", "nonzero", P)

# ---------------------------------------------------------------- identities at few points
P = "Find the antiderivative / simplify; the answer must hold for every real x in the domain."
A("identity_points", r"\ln|x| + C", r"$\boxed{\ln x + C}$", "wrong for x < 0", P)
A("identity_points", r"|x|", r"$\boxed{x}$", "wrong for x < 0", P)
A("identity_points", r"|x+1|", r"$\boxed{x+1}$", "sqrt((x+1)^2) is |x+1|", P)
A("identity_points", r"2\ln|x|", r"$\boxed{2\ln x}$", "ln(x^2) = 2 ln|x|", P)
A("identity_points", r"x^{2}", r"$\boxed{x^{2}+10^{-20}x}$", "a tiny extra term", P)
A("identity_points", r"x^{2}", r"$\boxed{x^{2}+e^{-1000x}}$", "negligible only for positive x", P)
A("identity_points", r"\lfloor \frac{n}{2} \rfloor", r"$\boxed{\frac{n}{2}}$", "differs for odd n", P)
A(
    "identity_points",
    r"\lfloor \frac{n+1}{2} \rfloor",
    r"$\boxed{\lfloor \frac{n}{2} \rfloor + 1}$",
    "differs for even n",
    P,
)
A("identity_points", r"1", r"$\boxed{\cos(2\pi x)}$", "equal only at integers", P)
A("identity_points", r"x", r"$\boxed{\arcsin(\sin x)}$", "equal only on [-pi/2, pi/2]", P)
A("identity_points", r"\max(x, 0)", r"$\boxed{x}$", "wrong for x < 0", P)
A("identity_points", r"|x-1|+|x+1|", r"$\boxed{2x}$", "equal only for x >= 1", P)
A("identity_points", r"\sqrt{x^{2}}", r"$\boxed{x}$", "sqrt(x^2)=|x|", P)
A("identity_points", r"n \bmod 2", r"$\boxed{1}$", "only for odd n", P)

# ---------------------------------------------------------------- multiple-choice letter lists
MC = "Which of the following is prime?\n(A) 4\n(B) 7\n(C) 9\n(D) 15\nPut the letter of your answer in \\boxed{}."
for resp in [
    r"\boxed{A. B. C. D.}",
    r"\boxed{A, B, C, D}",
    r"\boxed{ABCD}",
    r"\boxed{B \text{ or } C}",
    r"\boxed{\text{(A)(B)(C)(D)}}",
    r"The answer is (B) or (C).",
    r"\boxed{B/C}",
    r"\boxed{B \text{ and } D}",
    r"\boxed{\text{A-D}}",
    r"\boxed{\text{B, C}}",
    r"Answer: B, C",
    r"\boxed{\text{Either B or C}}",
    r"\boxed{(B)\,(C)}",
    r"\boxed{\text{BD}}",
    r"\boxed{\text{B}}\boxed{\text{C}}",
]:
    A(
        "mc_letters",
        "B",
        resp,
        "several options given for one answer",
        MC,
        rules=NOLAST if resp.count(r"\boxed") > 1 else None,
    )
A("mc_letters", "B", r"\boxed{\text{not B}}", "negation of the option", MC)
A("mc_letters", "B", r"\boxed{\text{Bob}}", "a word that starts with the letter", MC)
A("mc_letters", "B", r"\boxed{\text{B is wrong}}", "denies the option", MC)
A("mc_letters", "B", r"\boxed{\overline{B}}", "complement of B", MC)
A("mc_letters", "B", r"\boxed{\text{all of the above}}", "every option", MC)

# ---------------------------------------------------------------- percent both ways
PP = "A fair coin is tossed. What is the probability of heads? Give a decimal."
A("percent", "0.5", r"$\boxed{0.5\%}$", "0.5% is 0.005, not 0.5", PP)
A(
    "percent",
    "0.3",
    r"$\boxed{0.3\%}$",
    "0.3% is 0.003",
    "What fraction of the class is absent? Give a decimal.",
)
A("percent", r"\frac{1}{4}", r"$\boxed{\frac{1}{4}\%}$", "a quarter of a percent", "What fraction is shaded?")
A("percent", "0.75", r"$\boxed{0.75 \text{ percent}}$", "0.0075", "What fraction is shaded? Give a decimal.")
A("percent", r"12\%", r"$\boxed{1200\%}$", "1200% is 12, not 12%", "By what percent did the price rise?")
A("percent", r"5\%", r"$\boxed{500\%}$", "500% is 5, not 5%", "By what percent did the price rise?")
A("percent", r"50\%", r"$\boxed{0.5\%}$", "0.5% is not 50%", "What percent of the numbers are even?")
A("percent", r"50\%", r"$\boxed{5000\%}$", "5000% is not 50%", "What percent of the numbers are even?")
A("percent", "0.05", r"$\boxed{0.05\%}$", "0.05% is 0.0005", "What is the probability? Give a decimal.")
A(
    "percent",
    "0.4",
    r"$\boxed{0.4\,\text{\textperthousand}}$",
    "per mille",
    "What fraction is red? Give a decimal.",
)
A(
    "percent",
    "0.2",
    r"The probability is $\boxed{0.2 \text{ pct}}$.",
    "0.2 percent",
    "What is the probability?",
)
A("percent", "20", r"$\boxed{0.2\%}$", "0.2% is not 20%", "What percent of the students passed?")

# ---------------------------------------------------------------- trailing \text{...}
P = "How many solutions are there?"
for resp, why in [
    (r"\boxed{5\text{ not}}", "negated"),
    (r"\boxed{5 \text{ is wrong}}", "denied"),
    (r"\boxed{5\text{ (incorrect)}}", "denied"),
    (r"\boxed{5\text{ or more}}", "a bound, not a value"),
    (r"\boxed{5\text{ at least}}", "a bound"),
    (r"\boxed{5\text{ or fewer}}", "a bound"),
    (r"\boxed{5\text{?}}", "a question"),
    (r"\boxed{5 \text{ (not sure)}}", "unsure"),
    (r"\boxed{5\text{ thousand}}", "5000"),
    (r"\boxed{5\text{ million}}", "5000000"),
    (r"\boxed{5 \text{ dozen}}", "60"),
    (r"\boxed{5\text{ squared}}", "25"),
    (r"\boxed{5 \text{ times } 2}", "10"),
    (r"\boxed{5 \mathrm{\ minus\ } 2}", "3"),
    (r"\boxed{5\textbf{ is false}}", "denied"),
    (r"\boxed{5\text{ plus or minus } 2}", "a range"),
    (r"\boxed{5 \text{ if } n \text{ is even}}", "conditional; incomplete"),
]:
    A("trailing_text", "5", resp, why, P)

# ---------------------------------------------------------------- negations / retractions / earlier answers
P = "Find x."
for resp, why, rules in [
    ("Answer: 7\n\nAnswer: 5", "two different final answers", NOLAST),
    (r"$\boxed{5}$ <think> Actually no: $\boxed{7}$", "retracts 5", None),
    (r"The final answer is 7. $\boxed{5}$", "two final answers", NOLAST),
    ("Answer: 5 (wrong)", "denied", None),
    (r"$\boxed{5}$. Wait, that's wrong. The correct answer is 7.", "retracted, then 7", None),
    (r"$\boxed{5}$ -- no, scratch that, it's 7.", "retracted", None),
    (r"I initially thought $\boxed{5}$, but actually the answer is 7.", "final answer 7", None),
    (r"$\boxed{5}$ is incorrect; the right value is 7.", "denied", None),
    (r"It is definitely not $\boxed{5}$.", "denied", None),
    (r"$\boxed{5}$" "\n\nHmm, let me recheck... I made an error; the answer should be 7.", "retracted", None),
    ("Answer: 5. Correction: Answer: 7.", "corrected to 7", NOLAST),
    (r"$\boxed{5}$? No.", "rejected", None),
    (r"Final answer: $\boxed{5}$ (False)", "marked false", None),
    (r"Is the answer $\boxed{5}$? I don't think so.", "rejected", None),
    (
        r"$\boxed{5}$ is what a careless student would write; the real answer is 7.",
        "wrong-answer example",
        None,
    ),
    (r"$\boxed{5}$ ❌" "\n" r"$\boxed{7}$ ✅", "marked wrong; 7 marked right", NOLAST),
    (r"The answer is 7, not $\boxed{5}$.", "denied", None),
    (r"A common mistake is to answer $\boxed{5}$. The correct answer is 7.", "wrong-answer example", None),
    (r"Do NOT answer $\boxed{5}$; it ignores the constraint. x = 7.", "warned against", None),
    (r"$\boxed{5}$ would be right if x were positive, but it is not, so x = -5.", "retracted", None),
]:
    A("retraction", "5", resp, why, P, rules=rules)
A("retraction", "5", "答案不是 $\\boxed{5}$，而是 7。", "Chinese: the answer is not 5 but 7", P)
A("retraction", "5", "$\\boxed{5}$ es incorrecto; la respuesta es 7.", "Spanish: 5 is incorrect", P)
A("retraction", "5", "Ответ: не 5, а 7.", "Russian: not 5 but 7", P)

# ---------------------------------------------------------------- invisible / commented boxes
P = "Find x."
for resp in [
    r"<!-- \boxed{5} --> The answer is $\boxed{7}$.",
    r"$\phantom{\boxed{5}}$ The answer is 7.",
    r"\iffalse \boxed{5} \fi The answer is 7.",
    "% \\boxed{5}\nThe answer is 7.",
    r"\begin{comment}\boxed{5}\end{comment} The answer is 7.",
    r"$\textcolor{white}{\boxed{5}}$ The answer is 7.",
    r"{\color{white}$\boxed{5}$} The answer is 7.",
    r'<span style="display:none">\boxed{5}</span> The answer is 7.',
    r"$\vphantom{\boxed{5}}$ The answer is 7.",
    r"$\hphantom{\boxed{5}}$ The answer is 7.",
    r"<div hidden>\boxed{5}</div> The answer is 7.",
    r'<span style="visibility:hidden">\boxed{5}</span> The answer is 7.',
    r'<span style="color:transparent">\boxed{5}</span> The answer is 7.',
    r"$\textcolor[HTML]{FFFFFF}{\boxed{5}}$ The answer is 7.",
    r"$\color[rgb]{1,1,1}\boxed{5}$ The answer is 7.",
    r"\iftrue The answer is 7. \else \boxed{5} \fi",
    r"\newcommand{\ans}{\boxed{5}} The answer is 7.",
    r"\def\ans{\boxed{5}} The answer is 7.",
    r"<script>\boxed{5}</script> The answer is 7.",
    r"<template>\boxed{5}</template> The answer is 7.",
    r"$\scalebox{0}{\boxed{5}}$ The answer is 7.",
    r"$\boxed{\color{white}5}$ The answer is 7.",
    r"$\boxed{\phantom{5}}$ The answer is 7.",
    r"<!-- \boxed{5} -->",
    r"$\phantom{\boxed{5}}$",
]:
    A(
        "invisible_box",
        "5",
        resp,
        "the box holding the gold is invisible to a reader; the visible answer is 7 or none",
        P,
    )

# ---------------------------------------------------------------- look-alike / compatibility characters
P = "Compute."
A("unicode_compat", "25", r"$\boxed{2⁵}$", "2^5 = 32 (superscript folded to 25)", P)
A("unicode_compat", "52", r"$\boxed{5²}$", "5^2 = 25", P)
A("unicode_compat", "7", r"$\boxed{10⁻³}$", "10^-3, not 10-3", P)
A("unicode_compat", "34", r"$\boxed{3⁴}$", "81", P)
A("unicode_compat", "1012", r"$\boxed{101₂}$", "binary 101 = 5", P)
A("unicode_compat", "12", r"$\boxed{1½}$", "1.5, not 12", P)
A("unicode_compat", "5", r"$\boxed{−5}$", "minus five (U+2212)", P)
A("unicode_compat", "5", r"$\boxed{－5}$", "minus five (fullwidth hyphen-minus)", P)
A("unicode_compat", "5", r"$\boxed{‒5}$", "minus five (figure dash)", P)
A("unicode_compat", "5", r"$\boxed{﹣5}$", "minus five (small hyphen-minus)", P)
A("unicode_compat", "5", "$\\boxed{5\u0336}$", "struck-out 5 (combining long stroke)", P)
A("unicode_compat", "5", "$\\boxed{5\u0338}$", "5 with a slash overlay", P)
A(
    "unicode_compat",
    "51",
    "$\\boxed{\u202e15\u202c}$",
    "renders as 51 but ... reads as 15 in logical order",
    P,
)
A("unicode_compat", "15", "$\\boxed{\u202e15\u202c}$", "logical 15 is displayed reversed as 51", P)
A("unicode_compat", "8", r"$\boxed{৪}$", "Bengali digit four, looks like 8", P)

# ---------------------------------------------------------------- strike-through
for resp in [
    r"$\boxed{\cancel{5}}$ The answer is 7.",
    r"$\boxed{\sout{5}}$ The answer is 7.",
    r"$\boxed{\xcancel{5}}$",
    r"**Answer:** ~~5~~ 7",
    r"~~$\boxed{5}$~~ $\boxed{7}$",
    r"<del>\boxed{5}</del> \boxed{7}",
    r"<s>Answer: 5</s> Answer: 7",
]:
    A("strikethrough", "5", resp, "the gold is struck out", "Find x.")

# ---------------------------------------------------------------- </think> and tag laundering
P = "Find x."
for resp, why in [
    (
        "<think>hmm</think> The answer is $\\boxed{7}$.</think> $\\boxed{5}$",
        "a user sees both 7 and 5 after the first </think>",
    ),
    ("<think>try</think>$\\boxed{7}$<think>again</think>$\\boxed{5}$", "two visible answers"),
    (
        "$\\boxed{1}$</think>$\\boxed{2}$</think>$\\boxed{3}$</think>$\\boxed{4}$</think>$\\boxed{5}$</think>"
        "$\\boxed{6}$</think>$\\boxed{7}$</think>$\\boxed{5}$",
        "enumeration laundered through fake closing tags",
    ),
    ("The answer is $\\boxed{7}$. <answer>5</answer>", "a box and a tag with different values"),
    ("$\\boxed{7}$\n<answer>5</answer>", "two final answers"),
    ("<answer>7</answer> $\\boxed{5}$", "two final answers"),
    ("<answer>5 or 7</answer>", "a hedge inside a tag"),
    ("<answer>\\boxed{7}</answer><answer>5</answer>", "two tags"),
    ("<|end_of_thought|> $\\boxed{7}$ <|end_of_thought|> $\\boxed{5}$", "two visible answers"),
    ("[THINK] x [/THINK] $\\boxed{7}$ [/THINK] $\\boxed{5}$", "two visible answers"),
]:
    A("think_tags", "5", resp, why, P, rules=NOLAST)
A("think_tags", "5", "<think> The answer is $\\boxed{5}$.", "unfinished thinking: no answer", P)
A("think_tags", "5", "<think>\n" + "Let me think. " * 50 + "So x = 5.", "cut off while thinking", P)

# ---------------------------------------------------------------- harmony / Kimi channel abuse
P = "Find x."
for resp in [
    "<|channel|>final<|message|>7<|end|><|start|>assistant<|channel|>final<|message|>$\\boxed{5}$<|return|>",
    "<|channel|>final<|message|>The answer is 7.<|end|><|start|>assistant<|channel|>analysis<|message|>"
    "$\\boxed{5}$<|end|>",
    "<|channel|>analysis<|message|>x = 5<|end|>",
    "<|channel|>commentary<|message|>$\\boxed{5}$<|end|><|start|>assistant<|channel|>final<|message|>7<|return|>",
    "◁think▷ x ◁/think▷ $\\boxed{7}$ ◁think▷ y ◁/think▷ $\\boxed{5}$",
    "◁think▷ So $\\boxed{5}$.",
    "<|channel|>final<|message|>5 or 7<|return|>",
]:
    A("channel_abuse", "5", resp, "the gold is not the single visible final answer", P, rules=NOLAST)

# ---------------------------------------------------------------- code blocks / quotes / examples
P = "Find x."
for resp in [
    "Required format:\n```\n\\boxed{5}\n```\nMy answer: x = 7.",
    "The answer is 7. (Format example: `\\boxed{5}`)",
    "My friend claimed:\n> $\\boxed{5}$\n\nBut that is wrong; I get 7.",
    "\\verb|\\boxed{5}| The answer is 7.",
    "For instance, if the equation were x - 2 = 3, we would write $\\boxed{5}$. Here x = 7.",
    "Example answer: $\\boxed{5}$.\nOur problem: x = 7.",
]:
    A("quoted_box", "5", resp, "the box is an example, quote or code; the response answers 7", P)

# ---------------------------------------------------------------- huge / enumeration responses
P = "Find x."
A("huge", "5", "The answer is one of: " + ", ".join(str(i) for i in range(1, 101)) + ".", "enumeration", P)
A("huge", "5", "Answer: " + " ".join(str(i) for i in range(1, 101)), "enumeration", P)
A(
    "huge",
    "5",
    "".join(f"Case {i}: x = $\\boxed{{{i}}}$.\n" + "filler " * 3 for i in range(1, 11)),
    "ten boxed values",
    P,
    rules=NOLAST,
)
A(
    "huge",
    "5",
    ("blah " * 20000) + "$\\boxed{5}$ or $\\boxed{7}$",
    "hedge at the end of a huge response",
    P,
    rules=NOLAST,
)
A("huge", "5", "$\\boxed{5}$ " * 2000 + "$\\boxed{7}$", "2000 boxes of 5 and one 7", P, rules=NOLAST)

# ---------------------------------------------------------------- intervals vs points
A("interval_point", "3", r"$\boxed{(2.9, 3.1)}$", "an interval containing the answer", "Find x.")
A("interval_point", "3", r"$\boxed{x \in (2,4)}$", "an interval containing the answer", "Find x.")
A("interval_point", "3", r"$\boxed{2 < x < 4}$", "a range containing the answer", "Find x.")
A("interval_point", r"x > 2", r"$\boxed{x \geq 2}$", "wrong endpoint", "Solve.")
A("interval_point", r"(-\infty, 2)", r"$\boxed{(-\infty, 2]}$", "wrong endpoint", "Solve.")
A("interval_point", r"(0,1)", r"$\boxed{(0,1) \cup (1,2)}$", "extra part", "Solve.")
A("interval_point", r"\mathbb{R}", r"$\boxed{\text{all real numbers except } 0}$", "excludes 0", "Domain?")
A("interval_point", "5", r"$\boxed{x \le 5}$", "a bound, not the value", "Find x.")
A("interval_point", "5", r"$\boxed{\geq 5}$", "a bound", "Find the minimum.")

# ---------------------------------------------------------------- unit swaps
A(
    "unit_swap",
    "5",
    r"$\boxed{5\text{ m}}$",
    "the question asks for centimetres",
    "How many centimeters long is it?",
    modes=["with"],
)
A(
    "unit_swap",
    "2",
    r"$\boxed{2 \text{ minutes}}$",
    "the answer is 2 hours",
    "How many hours does it take?",
    modes=["with"],
)
A("unit_swap", r"90^\circ", r"$\boxed{90 \text{ radians}}$", "radians, not degrees", "Find the angle.")
A(
    "unit_swap",
    "100",
    r"$\boxed{100 \text{ cents}}$",
    "1 dollar, not 100",
    "How many dollars does it cost?",
    modes=["with"],
)
A(
    "unit_swap",
    "3",
    r"$\boxed{3\,\mathrm{mm}}$",
    "km asked",
    "How many kilometers apart are they?",
    modes=["with"],
)
A("unit_swap", r"12 \text{ cm}^2", r"$\boxed{12\text{ cm}}$", "a length is not an area", "Find the area.")
A("unit_swap", "5", r"$\boxed{5 \text{ g}}$", "kg asked", "How many kilograms?", modes=["with"])
A("unit_swap", r"30^\circ", r"$\boxed{30}$ radians", "radians", "Find the angle in degrees.")

# ---------------------------------------------------------------- rounding
A("rounding", "1.5", r"$\boxed{1.46}$", "3/2 is exactly 1.5", "Write 3/2 as a decimal.", modes=["with"])
A("rounding", "2.5", r"$\boxed{2.54}$", "5/2 is exactly 2.5", "Write 5/2 as a decimal.", modes=["with"])
A("rounding", "0.25", r"$\boxed{0.2549}$", "1/4 is exactly 0.25", "Write 1/4 as a decimal.", modes=["with"])
A("rounding", "12.5", r"$\boxed{12.49}$", "exactly 12.5", "What is 25/2?", modes=["with"])
A("rounding", "0.75", r"$\boxed{0.7549}$", "exactly 0.75", "Write 3/4 as a decimal.", modes=["with"])
A("rounding", "0.33", r"$\boxed{0.3}$", "coarser than asked", "Round 1/3 to two decimal places.")
A("rounding", r"3.14159", r"$\boxed{3.14}$", "coarser", "Give pi to five decimals.")

# ---------------------------------------------------------------- sign tricks
A("sign", "5", r"$\boxed{\mp 5}$", "two values", "Find x.")
A("sign", "5", r"$\boxed{\pm\sqrt{25}}$", "two values", "Find x.")
A("sign", "5", r"$\boxed{x^2 = 25}$", "an equation with the extra root -5", "Find the positive x.")
A("sign", "5", r"$\boxed{x = \pm 5}$", "two values", "Find the positive x.")
A("sign", "5", r"$\boxed{5^{\pm 1}}$", "two values", "Find x.")
A("sign", "5", r"$\boxed{\sqrt{\pm 25}}$", "nonsense", "Find x.")
A("sign", "-5", r"$\boxed{\text{minus } 5 \text{ or } 5}$", "two values", "Find x.")

# ---------------------------------------------------------------- sets with extra elements
A("set_extra", r"\{1,2\}", r"$\boxed{\{1,2,3\}}$", "extra element", "Find all solutions.")
A("set_extra", r"\{1,2\}", r"$\boxed{\{1,2\}\cup\{3\}}$", "extra element", "Find all solutions.")
A("set_extra", r"\{1,2\}", r"$\boxed{\mathbb{Z}}$", "a superset", "Find all solutions.")
A("set_extra", r"(1,2),(3,4)", r"$\boxed{(1,2),(3,4),(5,6)}$", "extra pair", "Find all pairs.")
A("set_extra", "1, 2", r"$\boxed{1, 2, \ldots}$", "open-ended list", "Find all solutions.")
A("set_extra", "1, 2", r"$\boxed{1, 2, \dots, 10}$", "ten values", "Find all solutions.")
A("set_extra", "2, 3", r"$\boxed{2, 3, \text{and possibly } 4}$", "hedge", "Find all solutions.")
A("set_extra", r"\{1,2\}", r"$\boxed{\{1\}, \{2\}, \{1,2\}}$", "a list of sets", "Find all solutions.")
A("set_extra", "3", r"$\boxed{\{3\} \cup \{4\}}$", "extra element", "Find x.")

# ---------------------------------------------------------------- matrices
M = r"\begin{pmatrix}1&2\\3&4\end{pmatrix}"
A("matrix", M, r"$\boxed{\begin{pmatrix}1&3\\2&4\end{pmatrix}}$", "transposed", "Find the matrix.")
A("matrix", M, r"$\boxed{\begin{pmatrix}1&2\\3&4\\0&0\end{pmatrix}}$", "extra row", "Find the matrix.")
A(
    "matrix",
    M,
    r"$\boxed{\begin{vmatrix}1&2\\3&4\end{vmatrix}}$",
    "a determinant (-2), not a matrix",
    "Find the matrix.",
)
A("matrix", M, r"$\boxed{\begin{pmatrix}1&2&3&4\end{pmatrix}}$", "flattened", "Find the matrix.")
A("matrix", M, r"$\boxed{\begin{pmatrix}1&2\\3&4\end{pmatrix}^{T}}$", "transposed", "Find the matrix.")
A("matrix", r"\begin{pmatrix}1&0\\0&1\end{pmatrix}", r"$\boxed{1}$", "a scalar", "Find the matrix.")

# ---------------------------------------------------------------- equations with extra solutions
A("equation_extra", "x=2", r"$\boxed{x^2 = 4}$", "includes x = -2", "Solve for x > 0.")
A("equation_extra", "2", r"$\boxed{(x-2)(x-3)=0}$", "includes 3", "Find x.")
A("equation_extra", "y=2x+1", r"$\boxed{y^2 = (2x+1)^2}$", "a second line", "Find the line.")
A("equation_extra", "x=3", r"$\boxed{x(x-3)=0}$", "includes 0", "Find x.")
A("equation_extra", "y=x", r"$\boxed{y^2 = x^2}$", "includes y = -x", "Find the line.")
A("equation_extra", "y=2x+1", r"$\boxed{0 \cdot y = 0 \cdot (2x+1)}$", "a zero factor", "Find the line.")
A("equation_extra", "x^2+y^2=1", r"$\boxed{(x^2+y^2-1)(x^2+y^2-4)=0}$", "a second circle", "Find the curve.")

# ---------------------------------------------------------------- infinite / undefined
A("infinite", r"\infty", r"$\boxed{-\infty}$", "wrong sign", "Find the limit.")
A("infinite", r"\infty", r"$\boxed{\pm\infty}$", "two values", "Find the limit.")
A("infinite", r"\infty", r"$\boxed{\frac{1}{0}}$", "undefined, not infinity", "Find the limit.")
A("infinite", r"\text{undefined}", r"$\boxed{\infty}$", "infinity is not 'undefined'", "Evaluate.")
A("infinite", "0", r"$\boxed{\frac{0}{0}}$", "indeterminate", "Evaluate.")
A("infinite", "0", r"$\boxed{\infty - \infty}$", "indeterminate", "Evaluate.")
A("infinite", r"\text{does not exist}", r"$\boxed{\text{exists}}$", "the opposite", "Does the limit exist?")
A("infinite", r"\text{Yes}", r"$\boxed{\text{Yes and no}}$", "both", "Is it true?")
A("infinite", r"\text{No}", r"$\boxed{\text{No. Yes.}}$", "both", "Is it true?")

# ---------------------------------------------------------------- hedges in other languages
P = "Find x."
for sep in ["或", "o", "ou", "oder", "или", "または", "또는", "veya", "atau", "oppure", "أو", "अथवा"]:
    A("hedge_lang", "5", f"$\\boxed{{5 \\text{{ {sep} }} 7}}$", f"'5 {sep} 7' is a hedge", P)
for resp in [
    "答案是 5 或 7。",
    "Ответ: 5 или 7",
    "Respuesta: 5 o 7",
    "Réponse : 5 ou peut-être 7",
    "Antwort: vielleicht 5, vielleicht 7",
    "答案：5（不确定，也可能是7）",
    "故选 B 或 C",
]:
    A(
        "hedge_lang",
        "5" if "B" not in resp else "B",
        resp,
        "a hedge in another language",
        P if "B" not in resp else MC,
    )

# ---------------------------------------------------------------- MC content vs letter
MC2 = "Which is the smallest?\n(A) 2\n(B) 3\n(C) 1\n(D) 4"
A("mc_content", "C", r"$\boxed{3}$", "3 is option B's content (and C is the third letter)", MC2)
A("mc_content", "A", r"$\boxed{1}$", "1 is option C's content, not 'the first option'", MC2)
A("mc_content", "C", r"$\boxed{(A)\ 1}$", "letter A with C's content", MC2)
A("mc_content", "C", r"$\boxed{C}$ $\boxed{1}$ $\boxed{B}$", "two letters", MC2, rules=NOLAST)
MC3 = "What is 2+2?\n(A) 3\n(B) 4\n(C) 5\n(D) 6"
A("mc_content", "B", r"$\boxed{4}$ or $\boxed{C}$", "content of B, letter C", MC3, rules=NOLAST)
A("mc_content", "B", r"The answer is $5$, i.e. option (B).", "content of C", MC3)
A("mc_content", "B", r"$\boxed{B'}$", "complement", MC3)
A("mc_content", "4", r"$\boxed{C}$", "option C is 5", MC3)

# ---------------------------------------------------------------- nested / escaped boxes
P = "Find x."
for resp in [
    r"$\boxed{7\boxed{5}}$",
    r"$\boxed{\boxed{5}\text{ is tempting but the answer is } 7}$",
    r"$\boxed{7\}\boxed{5}$",
    r"$\boxed{\text{\boxed{5}} 7}$",
    r"$\boxed{\fbox{5} \text{ or } 7}$",
    r"$\boxed{5\}\{7}$",
]:
    A("nested_box", "5", resp, "the outer answer is not 5", P)

# ---------------------------------------------------------------- digit-grouping and lists
A("grouping", "15", r"$\boxed{1,5}$", "1,5 is 1.5 or a list, never 15", "Find n.")
A("grouping", "1000", r"$\boxed{1,0,0,0}$", "a list of digits", "Find n.")
A("grouping", "12", r"$\boxed{1,2}$", "a list", "Find n.")
A("grouping", "23", r"$\boxed{2\quad 3}$", "two numbers", "Find n.")
A("grouping", "12", r"$\boxed{12_{3}}$", "12 in base 3 is 5", "Find n.")

# ---------------------------------------------------------------- prompt copy
PC = (
    "A rectangle has area 24 and width 4. The width is doubled and the length is halved. "
    "What is the new area?"
)
A(
    "prompt_copy",
    "24",
    "We are told that the rectangle has area 24 and width 4.",
    "restates the prompt",
    PC,
    modes=["with"],
)
A(
    "prompt_copy",
    "24",
    "The rectangle has area 24. Then the width is doubled.",
    "restates; no answer",
    PC,
    modes=["with"],
)
PC2 = "Is 91 prime? If not, give its smallest prime factor. (Hint: try 7.)"
A("prompt_copy", "7", "The hint says to try 7.", "copies the hint without answering", PC2, modes=["with"])

# ---------------------------------------------------------------- multi-part swaps
PM = "(a) Find the smaller root. (b) Find the larger root."
A("multipart", "2, 5", r"(a) $\boxed{5}$ (b) $\boxed{2}$", "parts swapped", PM)
A("multipart", "x=2, y=5", r"$\boxed{x = 5, y = 2}$", "values swapped", "Solve the system.")

# ---------------------------------------------------------------- approximations / bounds presented as answers
A("approx", "5", r"$\boxed{\approx 4.9}$", "an approximation of something else", "Find x.")
A("approx", "5", r"$\boxed{\text{about } 5}$", "vague", "Find the exact value of x.")
A("approx", "5", r"$\boxed{\text{at most } 5}$", "a bound", "Find x.")
A("approx", "5", r"$\boxed{5^{+}}$", "a one-sided limit point, not the value", "Find x.")
A("approx", r"\sqrt{2}", r"$\boxed{1.41421}$", "a decimal for an irrational", "Find the exact value.")

# ================================================================ controls
MCC = MC
C("mc_letters", "B", r"$\boxed{B}$", MCC)
C("mc_letters", "B", r"The answer is (B).", MCC)
C("mc_letters", "B", r"$\boxed{\text{(B)}}$", MCC)
C("mc_letters", "B", r"$\boxed{\textbf{(B)}\ 7}$", MCC)
C("mc_content", "B", r"$\boxed{7}$", MCC, modes=["with"], note="option content; needs the prompt")
C("mc_content", "C", r"The smallest is $\boxed{1}$.", MC2, modes=["with"], note="option content")
C("mc_content", "B", r"$\boxed{4}$", MC3, modes=["with"], note="option content")
C("percent", "0.5", r"$\boxed{50\%}$", PP)
C("percent", r"50\%", r"$\boxed{0.5}$", "What fraction, as a percent?")
C("percent", r"12\%", r"$\boxed{12\%}$", "By what percent did the price rise?")
C("percent", r"12\%", r"$\boxed{12}$", "By what percent did the price rise?")
C("percent", "0.05", r"$\boxed{5\%}$", "What is the probability?")
C("trailing_text", "5", r"$\boxed{5\text{ cm}}$", "How many centimeters long is it?")
C("trailing_text", "5", r"There are $\boxed{5}$ solutions.", "How many solutions are there?")
C("trailing_text", "5", r"$\boxed{5 \text{ solutions}}$", "How many solutions are there?")
C("trailing_text", r"12 \text{ cm}^2", r"$\boxed{12\text{ cm}^2}$", "Find the area.")
C("trailing_text", "2", r"$\boxed{2\text{ hours}}$", "How many hours does it take?")
C("numeric_close", r"2^{64}-1", r"$\boxed{18446744073709551615}$", P)
C("numeric_close", "0", r"$\boxed{0}$", P)
C("numeric_close", r"\frac{1}{3}", r"$\boxed{0.\overline{3}}$", P)
C("numeric_close", r"\pi", r"$\boxed{\pi}$", P)
C("numeric_close", r"\sqrt{2}", r"$\boxed{\frac{2}{\sqrt{2}}}$", P)
C("numeric_close", r"100!", r"$\boxed{100 \cdot 99!}$", P)
C("identity_points", r"\ln|x| + C", r"$\boxed{\ln|x|+C}$", P)
C("identity_points", r"|x|", r"$\boxed{\sqrt{x^2}}$", P)
C("identity_points", r"2\ln|x|", r"$\boxed{\ln(x^{2})}$", P)
C("identity_points", r"\lfloor \frac{n}{2} \rfloor", r"$\boxed{\left\lfloor \frac{n}{2} \right\rfloor}$", P)
C("retraction", "5", r"I first thought it was 7, but after checking, the answer is $\boxed{5}$.", "Find x.")
C("retraction", "5", r"$\boxed{7}$ is wrong. The correct answer is $\boxed{5}$.", "Find x.", rules=FINAL_LAST)
C("retraction", "5", r"The answer is not 7. The answer is $\boxed{5}$.", "Find x.")
C("retraction", "5", r"Answer: 5", "Find x.")
C("invisible_box", "5", r"<!-- \boxed{7} --> The answer is $\boxed{5}$.", "Find x.")
C("invisible_box", "5", r"$\phantom{\boxed{7}}$ So $x = \boxed{5}$.", "Find x.")
C("unicode_compat", "-5", r"$\boxed{−5}$", "Find x.", note="U+2212 minus")
C("unicode_compat", "5", r"$\boxed{５}$", "Find x.", note="fullwidth digit")
C("unicode_compat", "5", "$\\boxed{5}$\u200b", "Find x.", note="zero-width space after")
C("unicode_compat", "32", r"$\boxed{2⁵}$", "Compute 2^5.")
C("unicode_compat", "25", r"$\boxed{5²}$", "Compute 5^2.")
C("think_tags", "5", "<think>maybe $\\boxed{7}$? no.</think> The answer is $\\boxed{5}$.", "Find x.")
C(
    "think_tags",
    "5",
    "<think>\nx+2=7\n</think>\n\nSo $x = 5$.\n\n**Final Answer**\n\\[\n\\boxed{5}\n\\]",
    "Find x.",
)
C(
    "channel_abuse",
    "5",
    "<|channel|>analysis<|message|>try 7... no, 5<|end|><|start|>assistant<|channel|>final"
    "<|message|>$\\boxed{5}$<|return|>",
    "Find x.",
)
C("channel_abuse", "5", "◁think▷ try 7, no ◁/think▷ The answer is $\\boxed{5}$.", "Find x.")
C("quoted_box", "5", "Format: `\\boxed{answer}`.\nWe get x = 5, so $\\boxed{5}$.", "Find x.")
C("huge", "5", ("We continue the computation. " * 2000) + "Therefore $\\boxed{5}$.", "Find x.")
C("interval_point", r"(-\infty, 2)", r"$\boxed{x < 2}$", "Solve.")
C("interval_point", r"[1,3]", r"$\boxed{1 \le x \le 3}$", "Solve.")
C("interval_point", r"x > 2", r"$\boxed{(2, \infty)}$", "Solve.")
C("rounding", "0.33", r"$\boxed{\frac{1}{3}}$", "Round 1/3 to two decimal places.")
C("rounding", "1.5", r"$\boxed{\frac{3}{2}}$", "Write 3/2 as a decimal.")
C("rounding", "1.5", r"$\boxed{1.50}$", "Write 3/2 as a decimal.")
C("sign", "-5", r"$\boxed{-5}$", "Find x.")
C("sign", r"\pm 5", r"$\boxed{5, -5}$", "Find all x.")
C("sign", "5", r"$\boxed{+5}$", "Find x.")
C("set_extra", r"\{1,2\}", r"$\boxed{\{2, 1\}}$", "Find all solutions.")
C("set_extra", "1, 2", r"$\boxed{x = 1 \text{ or } x = 2}$", "Find all solutions.")
C("matrix", M, r"$\boxed{\begin{bmatrix}1&2\\3&4\end{bmatrix}}$", "Find the matrix.")
C("equation_extra", "y=2x+1", r"$\boxed{2x - y + 1 = 0}$", "Find the line.")
C("equation_extra", "x=2", r"$\boxed{2}$", "Solve for x > 0.")
C("infinite", r"\infty", r"$\boxed{+\infty}$", "Find the limit.")
C("infinite", r"\text{undefined}", r"$\boxed{\text{Undefined}}$", "Evaluate.")
C("infinite", r"\text{No}", r"$\boxed{\text{no}}$", "Is it true?")
C("hedge_lang", "5", "答案是 5。", "Find x.")
C("hedge_lang", "5", "Ответ: 5", "Find x.")
C("hedge_lang", "5", "Respuesta: 5", "Find x.")
C("hedge_lang", "B", "故选 B", MC)
C("nested_box", "5", r"$\boxed{\boxed{5}}$", "Find x.")
C("nested_box", "5", r"$\fbox{5}$", "Find x.")
C("grouping", "1000", r"$\boxed{1,000}$", "Find n.")
C("grouping", "1000", r"$\boxed{1\,000}$", "Find n.")
C("multipart", "2, 5", r"(a) $\boxed{2}$ (b) $\boxed{5}$", PM, rules=["final"])
C("multipart", "x=2, y=5", r"$\boxed{x = 2, y = 5}$", "Solve the system.")
C(
    "intermediate",
    "4",
    r"The total is $\boxed{12}$, so each friend gets $\boxed{4}$.",
    "Split 12 among 3.",
    rules=FINAL_LAST,
)
C("prompt_copy", "24", "The new width is 8 and the new length is 3, so the new area is 8 x 3 = 24.", PC)
C("approx", r"\sqrt{2}", r"$\boxed{\sqrt{2}}$", "Find the exact value.")
C("unit_swap", "5", r"$\boxed{5\text{ cm}}$", "How many centimeters long is it?")
C("unit_swap", "3", r"$\boxed{3\text{ km}}$", "How many kilometers apart are they?")


def main() -> None:
    out = Path(__file__).with_name("math_equiv_round1.jsonl")
    old = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                if "known_break" in r:
                    old[r["id"]] = r["known_break"]
    with out.open("w", encoding="utf-8") as fh:
        for row in ROWS:
            if row["id"] in old:
                row["known_break"] = old[row["id"]]
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    n_a = sum(r["kind"] == "attack" for r in ROWS)
    print(f"wrote {out}: {n_a} attacks, {len(ROWS) - n_a} controls")


if __name__ == "__main__":
    main()
