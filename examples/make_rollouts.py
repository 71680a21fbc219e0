"""Generate example rollouts in verl's dataset layout, procedurally and reproducibly.

Every row is one JSON object::

    {"data_source": "openai/gsm8k",
     "prompt": [{"role": "user", "content": "..."}],
     "ability": "math",
     "reward_model": {"style": "rule", "ground_truth": "42"},
     "extra_info": {"split": "test", "index": 0, "kind": "correct"},
     "response": "... #### 42"}

The problems (arithmetic word problems, fractions, linear equations, simple algebra, geometry, and
general-knowledge questions) and every response are written by this script; no third-party data is
read. ``extra_info.kind`` describes the response, not the verdict a scorer should give:

* ``correct`` -- the answer in the format the data source asks for;
* ``equivalent`` -- the same answer in another form (``\\dfrac`` vs ``\\frac``, ``0.5`` vs ``\\frac{1}{2}``,
  ``1,000`` vs ``1000``, ``x = 3``, units, degrees, a differently cased or punctuated entity ...);
* ``wrong`` -- a well-formed but wrong answer;
* ``unparsable`` -- no final answer (no ``####``, no ``\\boxed``, no ``<answer>`` tag, a cut-off box, empty);
* ``overlong`` -- a correct answer followed by a long tail, or a very long response;
* ``malformed`` -- (only with ``malformed=True``) rows that break the dataset contract: no
  ``reward_model``, a response that is not a string, a ground truth of the wrong type.

Usage::

    python examples/make_rollouts.py --n 230 --seed 0 -o examples/rollouts.jsonl

As a library (the benchmarks use it to build their parity corpus)::

    rows = generate_rows(n=5000, seed=1, malformed=False)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = [
    "FAMILY_SOURCES",
    "KINDS",
    "RULE_SOURCES",
    "Problem",
    "generate_rows",
    "iter_rows",
    "main",
    "write_jsonl",
]

KINDS: tuple[str, ...] = ("correct", "equivalent", "wrong", "unparsable", "overlong")

#: scorer family -> the verl data sources routed to it
FAMILY_SOURCES: dict[str, tuple[str, ...]] = {
    "gsm8k": ("openai/gsm8k",),
    "math": ("lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"),
    "dapo": ("math_dapo", "math", "math_dapo_reasoning", "aime2024", "aime2025"),
    "numina": (
        "numina_aops_forum",
        "numina_synthetic_math",
        "numina_amc_aime",
        "numina_synthetic_amc",
        "numina_cn_k12",
        "numina_olympiads",
    ),
    "geo3k": ("hiyouga/geometry3k",),
    "qa": (
        "searchR1_nq",
        "searchR1_triviaqa",
        "searchR1_popqa",
        "searchR1_hotpotqa",
        "searchR1_2wikimultihopqa",
        "searchR1_musique",
        "searchR1_bamboogle",
    ),
}
RULE_SOURCES: tuple[str, ...] = tuple(s for sources in FAMILY_SOURCES.values() for s in sources)
_FAMILY_OF = {s: fam for fam, sources in FAMILY_SOURCES.items() for s in sources}


@dataclass(frozen=True)
class Problem:
    """One generated problem: the gold answer plus other forms of it and plausible wrong answers."""

    topic: str
    question: str
    steps: tuple[str, ...]  # reasoning lines (LaTeX inline math where needed)
    answer: str  # the ground truth, as a dataset would store it
    equivalents: tuple[str, ...]  # the same answer written differently
    wrong: tuple[str, ...]  # well-formed wrong answers
    integer: bool  # the answer is a plain integer (fits GSM8K / AIME style ground truths)
    unit: str = ""  # a unit word a response may append (GSM8K style)


# --------------------------------------------------------------------------- numbers and forms

NAMES = ("Ava", "Ben", "Chloe", "Diego", "Elif", "Farah", "Goran", "Hana", "Ivan", "Jun", "Kofi", "Lena")


def _commas(n: int) -> str:
    return f"{n:,}"


def _frac_latex(q: Fraction, cmd: str = "frac") -> str:
    sign = "-" if q < 0 else ""
    return f"{sign}\\{cmd}{{{abs(q.numerator)}}}{{{q.denominator}}}"


def _value_latex(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else _frac_latex(q)


def _terminating_decimal(q: Fraction) -> str | None:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return None
    text = f"{float(q):.6f}".rstrip("0").rstrip(".")
    return text if len(text) <= 8 else None


def _fraction_forms(q: Fraction) -> list[str]:
    """Other spellings of a non-integer rational ``q``."""
    forms = [_frac_latex(q, "dfrac"), _frac_latex(q, "tfrac"), f"{q.numerator}/{q.denominator}"]
    a, b = abs(q.numerator), q.denominator
    if a < 10 and b < 10:  # the MATH shorthand \frac12
        forms.append(("-" if q < 0 else "") + f"\\frac{a}{b}")
    if q < 0:
        forms.append(f"\\frac{{{q.numerator}}}{{{b}}}")
    dec = _terminating_decimal(q)
    if dec is not None:
        forms.append(dec)
    forms.append(f"\\frac{{{2 * q.numerator}}}{{{2 * b}}}")  # unreduced
    return forms


def _integer_forms(n: int, unit: str = "", money: bool = False, degrees: bool = False) -> list[str]:
    forms = [f"{n}.0", f"{{{n}}}"]
    if abs(n) >= 1000:
        forms += [_commas(n), _commas(n).replace(",", "{,}")]
    if unit:
        forms += [f"{n} \\text{{ {unit}}}", f"{n}\\text{{ {unit}}}"]
    if money:
        forms += [f"\\${n}", f"{n} dollars"]
    if degrees:
        forms += [f"{n}^\\circ", f"{n}^{{\\circ}}"]
    return forms


def _near_integers(rng: random.Random, n: int, k: int = 3) -> tuple[str, ...]:
    out: list[str] = []
    for delta in rng.sample([1, -1, 2, -2, 10, -10, n, -2 * n], k=6):
        cand = n + delta
        if cand != n and str(cand) not in out:
            out.append(str(cand))
        if len(out) == k:
            break
    return tuple(out)


def _simplify_sqrt(n: int) -> tuple[int, int]:
    """n = k^2 * m with m square-free; returns (k, m)."""
    k, m = 1, n
    f = 2
    while f * f <= m:
        while m % (f * f) == 0:
            m //= f * f
            k *= f
        f += 1
    return k, m


def _sqrt_latex(k: int, m: int) -> str:
    if m == 1:
        return str(k)
    return f"\\sqrt{{{m}}}" if k == 1 else f"{k}\\sqrt{{{m}}}"


# --------------------------------------------------------------------------- problem generators


def _word_problem(rng: random.Random) -> Problem:
    name = rng.choice(NAMES)
    which = rng.randrange(6)
    if which == 0:
        a, b = rng.randint(3, 12), rng.randint(6, 24)
        c = rng.randint(1, a * b - 1)
        n = a * b - c
        q = f"A baker makes {a} trays of {b} muffins each and sells {c} muffins. How many muffins are left?"
        steps = (
            f"The baker makes {a} * {b} = {a * b} muffins.",
            f"After selling {c}, {a * b} - {c} = {n} remain.",
        )
        return Problem(
            "word",
            q,
            steps,
            str(n),
            tuple(_integer_forms(n, "muffins")),
            _near_integers(rng, n),
            True,
            "muffins",
        )
    if which == 1:
        a, p = rng.randint(2, 9), rng.randint(2, 15)
        bill = next(b for b in (20, 50, 100, 200) if b > a * p)
        n = bill - a * p
        q = f"{name} buys {a} notebooks at ${p} each and pays with a ${bill} bill. How much change, in dollars, does {name} get?"
        steps = (f"The notebooks cost {a} * {p} = ${a * p}.", f"The change is {bill} - {a * p} = ${n}.")
        return Problem(
            "word",
            q,
            steps,
            str(n),
            tuple(_integer_forms(n, money=True)),
            _near_integers(rng, n),
            True,
            "dollars",
        )
    if which == 2:
        a, h, d = rng.randint(40, 250), rng.randint(6, 12), rng.randint(2, 7)
        n = a * h * d
        q = f"A factory makes {a} bolts per hour and runs {h} hours a day. How many bolts does it make in {d} days?"
        steps = (
            f"Per day it makes {a} * {h} = {a * h} bolts.",
            f"In {d} days it makes {a * h} * {d} = {n} bolts.",
        )
        return Problem(
            "word", q, steps, str(n), tuple(_integer_forms(n, "bolts")), _near_integers(rng, n), True, "bolts"
        )
    if which == 3:
        v, t = rng.randint(40, 120), rng.randint(2, 9)
        n = v * t
        q = f"A train travels at {v} km per hour for {t} hours. How many kilometres does it travel?"
        steps = (f"Distance is speed times time: {v} * {t} = {n} km.",)
        return Problem(
            "word", q, steps, str(n), tuple(_integer_forms(n, "km")), _near_integers(rng, n), True, "km"
        )
    if which == 4:
        a, w = rng.randint(5, 60), rng.randint(4, 30)
        b = rng.randint(1, a * w - 1)
        n = a * w - b
        q = f"{name} saves ${a} every week for {w} weeks, then spends ${b} on a bicycle. How many dollars are left?"
        steps = (f"{name} saves {a} * {w} = ${a * w}.", f"After the bicycle, {a * w} - {b} = ${n} are left.")
        return Problem(
            "word",
            q,
            steps,
            str(n),
            tuple(_integer_forms(n, money=True)),
            _near_integers(rng, n),
            True,
            "dollars",
        )
    r, d = rng.randint(8, 40), rng.randint(2, 9)
    pages = r * d + rng.randint(5, 300)
    n = pages - r * d
    q = f"A book has {pages} pages. {name} reads {r} pages a day for {d} days. How many pages are still unread?"
    steps = (f"{name} reads {r} * {d} = {r * d} pages.", f"Unread pages: {pages} - {r * d} = {n}.")
    return Problem(
        "word", q, steps, str(n), tuple(_integer_forms(n, "pages")), _near_integers(rng, n), True, "pages"
    )


def _fraction_problem(rng: random.Random) -> Problem:
    while True:
        a, b = rng.randint(1, 9), rng.randint(2, 12)
        c, d = rng.randint(1, 9), rng.randint(2, 12)
        op = rng.choice("+-*")
        x, y = Fraction(a, b), Fraction(c, d)
        q = x + y if op == "+" else x - y if op == "-" else x * y
        if q.denominator != 1 and q != 0:
            break
    sym = {"+": "+", "-": "-", "*": "\\cdot"}[op]
    question = f"Compute $\\frac{{{a}}}{{{b}}} {sym} \\frac{{{c}}}{{{d}}}$. Express your answer as a common fraction."
    steps = (
        f"We combine the fractions: $\\frac{{{a}}}{{{b}}} {sym} \\frac{{{c}}}{{{d}}} = {_frac_latex(q)}$.",
        "The fraction is already in lowest terms.",
    )
    wrong_values = [Fraction(a + c, b + d), q + 1, -q, Fraction(q.numerator + 1, q.denominator)]
    wrong = tuple(dict.fromkeys(_value_latex(w) for w in wrong_values if w != q))
    return Problem("fraction", question, steps, _frac_latex(q), tuple(_fraction_forms(q)), wrong, False)


def _linear_problem(rng: random.Random, integer: bool) -> Problem:
    a = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, -2, -3])
    x = Fraction(rng.randint(-12, 15)) if integer else Fraction(rng.randint(-15, 15), rng.randint(2, 7))
    if x.denominator == 1 and not integer:
        x += Fraction(1, 2)
    b = rng.randint(-20, 20)
    c = a * x + b
    if c.denominator != 1:  # keep the equation integral: scale both sides
        a, b, c = a * c.denominator, b * c.denominator, c * c.denominator
    bs = f"+ {b}" if b >= 0 else f"- {-b}"
    question = f"Solve for $x$: ${a}x {bs} = {c}$."
    steps = (f"Subtract {b} from both sides: ${a}x = {c - b}$.", f"Divide by {a}: $x = {_value_latex(x)}$.")
    gold = _value_latex(x)
    forms = [f"x = {gold}", f"x={gold}"]
    if x.denominator == 1:
        forms += _integer_forms(int(x))[:2]
    else:
        forms += _fraction_forms(x)
    wrong = tuple(dict.fromkeys(_value_latex(w) for w in (-x, x + 1, Fraction(c + b, a)) if w != x))
    return Problem("linear", question, steps, gold, tuple(forms), wrong, x.denominator == 1)


def _poly(coeffs: Sequence[int], var: str = "x", spaced: bool = True) -> str:
    """LaTeX for sum(coeffs[i] * x^i), highest degree first."""
    terms: list[str] = []
    for power in range(len(coeffs) - 1, -1, -1):
        c = coeffs[power]
        if c == 0:
            continue
        mag = abs(c)
        body = str(mag) if power == 0 or mag != 1 else ""
        if power >= 1:
            body += var if power == 1 else f"{var}^{power}"
        sign = "-" if c < 0 else "+"
        terms.append(body if not terms and c > 0 else f"-{body}" if not terms else f"{sign} {body}")
    text = " ".join(terms) or "0"
    return text if spaced else text.replace(" ", "")


def _algebra_problem(rng: random.Random) -> Problem:
    if rng.random() < 0.6:
        p, r = (
            rng.choice([1, 2, 3, 4, 5, -1, -2, -3, -4, -5, 6, 7]),
            rng.choice([1, 2, 3, -1, -2, -3, 4, 5, 6]),
        )
        coeffs = (p * r, p + r, 1)
        question = f"Expand $(x {'+' if p > 0 else '-'} {abs(p)})(x {'+' if r > 0 else '-'} {abs(r)})$."
        gold = _poly(coeffs)
        factored = f"(x{'+' if p > 0 else '-'}{abs(p)})(x{'+' if r > 0 else '-'}{abs(r)})"
        reordered = _poly(coeffs).split(" ")
        forms = (
            _poly(coeffs, spaced=False),
            factored,
            " ".join([*reordered[2:], "+", *reordered[:1]]).lstrip("+ "),
        )
        wrong = (_poly((p * r, 0, 1)), _poly((p * r, p + r + 1, 1)), _poly((-p * r, p + r, 1)))
        steps = (f"Using FOIL, the product is ${gold}$.",)
        return Problem("algebra", question, steps, gold, forms, wrong, False)
    a, b, c = rng.randint(2, 6), rng.randint(1, 20), rng.randint(-5, 6)
    n = a * c * c - b
    question = f"If $f(x) = {a}x^2 - {b}$, what is $f({c})$?"
    steps = (f"$f({c}) = {a} \\cdot {c * c} - {b} = {n}$.",)
    return Problem("algebra", question, steps, str(n), tuple(_integer_forms(n)), _near_integers(rng, n), True)


def _percent_problem(rng: random.Random) -> Problem:
    k = rng.choice([5, 10, 12, 15, 20, 25, 30, 40, 45, 50, 60, 75, 80])
    whole = rng.choice([20, 40, 60, 80, 120, 200, 240, 400, 600])
    part = whole * k // 100
    if whole * k % 100:
        whole, part = 200, 2 * k
    question = f"What percent of {whole} is {part}?"
    steps = (f"$\\frac{{{part}}}{{{whole}}} = {Fraction(k, 100)}$, i.e. {k} percent.",)
    forms = (f"{k}\\%", f"{k}%", f"{k} \\%", f"{k}.0")
    return Problem("percent", question, steps, str(k), forms, _near_integers(rng, k), True)


def _system_problem(rng: random.Random) -> Problem:
    x, y = rng.randint(-6, 9), rng.randint(-6, 9)
    question = f"Find the ordered pair $(x, y)$ with $x + y = {x + y}$ and $x - y = {x - y}$."
    steps = (f"Adding the equations gives $2x = {2 * x}$, so $x = {x}$.", f"Then $y = {x + y} - {x} = {y}$.")
    gold = f"({x}, {y})"
    forms = (f"({x},{y})", f"\\left({x}, {y}\\right)", f"\\left( {x}, {y} \\right)")
    wrong = (f"({y}, {x})", f"({x + 1}, {y})", f"({x}, {-y})") if x != y else (f"({x + 1}, {y})",)
    return Problem("system", question, steps, gold, forms, wrong, False)


def _geometry_problem(rng: random.Random) -> Problem:
    which = rng.randrange(4)
    if which == 0:
        a, b = rng.randint(20, 80), rng.randint(20, 80)
        n = 180 - a - b
        q = f"In triangle $ABC$, $\\angle A = {a}^\\circ$ and $\\angle B = {b}^\\circ$. Find $\\angle C$ in degrees."
        steps = (f"The angles sum to $180^\\circ$, so $\\angle C = 180 - {a} - {b} = {n}$.",)
        return Problem(
            "geometry", q, steps, str(n), tuple(_integer_forms(n, degrees=True)), _near_integers(rng, n), True
        )
    if which == 1:
        a, b = rng.randint(1, 12), rng.randint(1, 12)
        k, m = _simplify_sqrt(a * a + b * b)
        gold = _sqrt_latex(k, m)
        q = f"A right triangle has legs {a} and {b}. Find the length of its hypotenuse."
        root = f"\\sqrt{{{a * a + b * b}}}"
        chain = root if root == gold else f"{root} = {gold}"
        steps = (f"By Pythagoras, $c = \\sqrt{{{a}^2 + {b}^2}} = {chain}$.",)
        forms = [f"\\sqrt{{{a * a + b * b}}}"]
        if m != 1:
            forms += [gold.replace(f"\\sqrt{{{m}}}", f"\\sqrt{m}"), gold.replace("\\sqrt", " \\sqrt").strip()]
        else:
            forms += _integer_forms(k)[:2]
        wrong = (_sqrt_latex(*_simplify_sqrt(a * a + b * b + 1)), str(a + b), _sqrt_latex(k + 1, m))
        return Problem("geometry", q, steps, gold, tuple(dict.fromkeys(forms)), wrong, m == 1)
    if which == 2:
        r = rng.randint(2, 12)
        gold = f"{r * r}\\pi"
        q = f"A circle has radius {r}. Find its area."
        steps = (f"The area is $\\pi r^2 = \\pi \\cdot {r}^2 = {gold}$.",)
        forms = (f"{r * r} \\pi", f"\\pi \\cdot {r * r}", f"{r * r}\\cdot\\pi")
        wrong = (f"{2 * r}\\pi", f"{r * r}", f"{(r + 1) ** 2}\\pi")
        return Problem("geometry", q, steps, gold, forms, wrong, False)
    w, h = rng.randint(2, 30), rng.randint(2, 30)
    n = w * h
    q = f"A rectangle is {w} cm wide and {h} cm tall. What is its area in square centimetres?"
    steps = (f"The area is ${w} \\times {h} = {n}$.",)
    return Problem(
        "geometry",
        q,
        steps,
        str(n),
        tuple(_integer_forms(n, "cm")),
        (str(2 * (w + h)), str(n + w), str(n - h)),
        True,
    )


# --------------------------------------------------------------------------- general knowledge (QA)

# (category, question, accepted answers): facts written for this script.
FACTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("capital", "What is the capital of France?", ("Paris",)),
    ("capital", "What is the capital of Japan?", ("Tokyo",)),
    ("capital", "What is the capital of Canada?", ("Ottawa",)),
    ("capital", "What is the capital of Australia?", ("Canberra",)),
    ("capital", "What is the capital of Kenya?", ("Nairobi",)),
    ("capital", "What is the capital of Peru?", ("Lima",)),
    ("capital", "What is the capital of Norway?", ("Oslo",)),
    ("capital", "What is the capital of Egypt?", ("Cairo",)),
    ("capital", "What is the capital of Argentina?", ("Buenos Aires",)),
    ("capital", "What is the capital of South Korea?", ("Seoul",)),
    ("capital", "What is the capital of Portugal?", ("Lisbon", "Lisboa")),
    ("capital", "What is the capital of Turkey?", ("Ankara",)),
    ("capital", "What is the capital of the United States?", ("Washington, D.C.", "Washington")),
    ("element", "What is the chemical symbol for gold?", ("Au",)),
    ("element", "What is the chemical symbol for sodium?", ("Na",)),
    ("element", "What is the chemical symbol for iron?", ("Fe",)),
    ("element", "Which element has atomic number 1?", ("Hydrogen", "H")),
    ("element", "Which element has atomic number 8?", ("Oxygen", "O")),
    ("planet", "Which planet is known as the Red Planet?", ("Mars",)),
    ("planet", "What is the largest planet in the Solar System?", ("Jupiter",)),
    ("planet", "Which planet is closest to the Sun?", ("Mercury",)),
    ("planet", "Which planet has the most prominent ring system?", ("Saturn",)),
    ("person", "Who wrote the play Romeo and Juliet?", ("William Shakespeare", "Shakespeare")),
    ("person", "Who painted the Mona Lisa?", ("Leonardo da Vinci", "Leonardo", "da Vinci")),
    ("person", "Who proposed the theory of general relativity?", ("Albert Einstein", "Einstein")),
    ("person", "Who was the first person to walk on the Moon?", ("Neil Armstrong", "Armstrong")),
    ("person", "Who wrote the novel Pride and Prejudice?", ("Jane Austen", "Austen")),
    (
        "person",
        "Who composed the Ninth Symphony that ends with the Ode to Joy?",
        ("Ludwig van Beethoven", "Beethoven"),
    ),
    ("person", "Who formulated the laws of motion and universal gravitation?", ("Isaac Newton", "Newton")),
    ("place", "What is the largest ocean on Earth?", ("Pacific Ocean", "Pacific")),
    ("place", "What is the tallest mountain above sea level?", ("Mount Everest", "Everest")),
    ("place", "What is the longest river in South America?", ("Amazon River", "Amazon")),
    ("place", "What is the largest hot desert in the world?", ("Sahara", "Sahara Desert")),
    ("place", "On which continent is the country of Chile?", ("South America",)),
    ("place", "Which country has the largest land area?", ("Russia", "Russian Federation")),
    ("year", "In which year did the first crewed Moon landing take place?", ("1969",)),
    ("year", "In which year did the Berlin Wall fall?", ("1989",)),
    ("year", "In which year did World War II end?", ("1945",)),
    ("year", "In which year did the Titanic sink?", ("1912",)),
    ("thing", "What gas do plants absorb from the air for photosynthesis?", ("carbon dioxide", "CO2")),
    ("thing", "What is the hardest natural material?", ("diamond",)),
    ("thing", "What is the main language spoken in Brazil?", ("Portuguese",)),
    ("thing", "What is the currency of Japan?", ("yen", "Japanese yen")),
    ("thing", "How many sides does a hexagon have?", ("6", "six")),
    ("thing", "What is the freezing point of water in degrees Celsius?", ("0", "zero")),
)


def _qa_problem(rng: random.Random) -> Problem:
    category, question, aliases = rng.choice(FACTS)
    gold = aliases[0]
    same = [f for f in FACTS if f[0] == category and f[2][0] != gold]
    wrong = tuple(f[2][0] for f in rng.sample(same, k=min(3, len(same))))
    steps = (f"The question asks: {question}", f"I recall that the answer is {gold}.")
    equivalents = (
        gold.lower(),
        gold.upper(),
        f"The {gold}",
        f"{gold}.",
        f"  {gold}  ",
        f"'{gold}'",
        *aliases[1:],
    )
    return Problem(category, question, steps, gold, equivalents, wrong, False)


# --------------------------------------------------------------------------- pools per family


def _math_pool(rng: random.Random) -> Problem:
    maker = rng.choice(
        (
            _word_problem,
            _fraction_problem,
            lambda r: _linear_problem(r, integer=r.random() < 0.5),
            _algebra_problem,
            _percent_problem,
            _system_problem,
            _geometry_problem,
        )
    )
    return maker(rng)


def _integer_pool(rng: random.Random) -> Problem:
    for _ in range(100):
        problem = _math_pool(rng)
        if problem.integer:
            return problem
    return _word_problem(rng)


def _aime_pool(rng: random.Random) -> Problem:
    for _ in range(100):
        problem = _integer_pool(rng)
        if 0 <= int(problem.answer) <= 999:
            return problem
    return _percent_problem(rng)


def _gsm8k_pool(rng: random.Random) -> Problem:
    maker = rng.choice((_word_problem, _word_problem, _percent_problem, lambda r: _linear_problem(r, True)))
    for _ in range(100):
        problem = maker(rng)
        if problem.integer:
            return problem
    return _word_problem(rng)


def _pool_for(source: str) -> Callable[[random.Random], Problem]:
    family = _FAMILY_OF[source]
    if family == "gsm8k":
        return _gsm8k_pool
    if family == "qa":
        return _qa_problem
    if family == "geo3k":
        return _geometry_problem
    if source.startswith("aime"):
        return _aime_pool
    if source in ("math_dapo", "math_dapo_reasoning"):
        return _integer_pool  # DAPO-Math-17k rewrote every answer as an integer
    return _math_pool


# --------------------------------------------------------------------------- prompts

_PROMPT_SUFFIX = {
    "gsm8k": 'Think step by step, then give the final answer after "####".',
    "math": "Reason step by step and put the final answer within \\boxed{}.",
    "dapo": 'Solve the problem step by step. End your response with a line of the form "Answer: $Answer".',
    "numina": "Please reason step by step, and put your final answer within \\boxed{}.",
    "geo3k": "First think inside <think> </think> tags, then give the final answer within \\boxed{}.",
    "qa": (
        "Answer the question. Think inside <think> and </think>. You may search with <search> query </search>; "
        "results come back inside <information> and </information>. Give the final answer inside "
        "<answer> and </answer> without explanation."
    ),
}
_ABILITY = {
    "gsm8k": "math",
    "math": "math",
    "dapo": "math",
    "numina": "math",
    "geo3k": "math",
    "qa": "fact-reasoning",
}


def _prompt(family: str, problem: Problem) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{problem.question}\n{_PROMPT_SUFFIX[family]}"}]


# --------------------------------------------------------------------------- responses

_TAIL_SENTENCES = (
    "Let me double-check the reasoning once more.",
    "Each step follows from the previous one, so the result stands.",
    "I am confident in this result.",
    "An alternative approach gives the same conclusion.",
    "Checking the arithmetic again confirms it.",
    "There are no other cases to consider here.",
    "This matches the constraints in the problem statement.",
)
_FILLER = (
    "We restate the given information carefully before moving on.",
    "Consider what the question is really asking for.",
    "It helps to organise the known quantities first.",
    "We proceed one step at a time to avoid mistakes.",
    "Let us verify the intermediate result before continuing.",
)


def _tail(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    size = 0
    while size < chars:
        s = rng.choice(_TAIL_SENTENCES)
        parts.append(s)
        size += len(s) + 1
    return " ".join(parts)


def _filler(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    size = 0
    while size < chars:
        s = rng.choice(_FILLER)
        parts.append(s)
        size += len(s) + 1
    return " ".join(parts)


def _overlong_size(rng: random.Random, max_chars: int) -> int:
    return rng.randint(min(400, max_chars), max(400, max_chars))


def _unparsable_body(rng: random.Random, steps: str) -> str:
    return rng.choice(
        (
            f"{steps}\nHmm, I am not sure how to finish this.",
            f"{steps}\nSo the value we want is",  # cut off mid-sentence
            "I cannot solve this problem.",
            "",
            f"{steps}\nWait, let me reconsider the setup from the start",
        )
    )


def _final_math(family: str, answer: str, rng: random.Random) -> str:
    """The closing line carrying ``answer`` in the family's requested format."""
    if family == "gsm8k":
        return f"#### {answer}"
    if family == "dapo":
        if rng.random() < 0.25:  # some DAPO rollouts only box the answer
            return f"So the final answer is $\\boxed{{{answer}}}$."
        return f"Answer: {answer}"
    if family == "numina":
        return rng.choice(
            (
                f"The answer is $\\boxed{{{answer}}}$.",
                f"Therefore, the final answer is $\\boxed{{{answer}}}$.",
                f"Hence $\\boxed{{{answer}}}$.",
            )
        )
    return rng.choice((f"The final answer is $\\boxed{{{answer}}}$.", f"So we get $\\boxed{{{answer}}}$."))


def _gsm8k_equivalent(problem: Problem, rng: random.Random) -> str:
    n = int(problem.answer)
    forms = [
        f"#### {n}.00",
        f"#### ${n}",
        f"The answer is {n}.",
        f"####{n}",
        f"#### {n} {problem.unit}".rstrip(),
    ]
    if abs(n) >= 1000:
        forms += [f"#### {_commas(n)}"] * 3
    return rng.choice(forms)


def _math_response(family: str, problem: Problem, kind: str, rng: random.Random, max_chars: int) -> str:
    steps = "\n".join(problem.steps)
    if kind == "correct":
        return f"{steps}\n{_final_math(family, problem.answer, rng)}"
    if kind == "wrong":
        return f"{steps}\n{_final_math(family, rng.choice(problem.wrong), rng)}"
    if kind == "unparsable":
        return (
            _unparsable_body(rng, steps) if family != "geo3k" else f"<think>{steps}</think>\nI cannot decide."
        )
    if kind == "equivalent":
        if family == "gsm8k":
            return f"{steps}\n{_gsm8k_equivalent(problem, rng)}"
        answer = rng.choice(problem.equivalents)
        if family == "math" and rng.random() < 0.15:
            return f"{steps}\nThe answer is $\\fbox{{{problem.answer}}}$."
        if family == "dapo" and rng.random() < 0.3:
            return f"{steps}\nAnswer: ${answer}$"
        return f"{steps}\n{_final_math(family, answer, rng)}"
    # overlong: a correct answer followed by a long tail, or very long reasoning before it
    size = _overlong_size(rng, max_chars)
    if rng.random() < 0.5:
        return f"{steps}\n{_final_math(family, problem.answer, rng)}\n\n{_tail(rng, size)}"
    return f"{_filler(rng, size)}\n{steps}\n{_final_math(family, problem.answer, rng)}"


def _geo3k_response(problem: Problem, kind: str, rng: random.Random, max_chars: int) -> str:
    steps = " ".join(problem.steps)
    think = rng.random() < 0.8  # most rollouts follow the <think> format
    head = f"<think>{steps}</think>\n" if think else f"{steps}\n"
    if kind == "correct":
        return f"{head}The answer is \\boxed{{{problem.answer}}}."
    if kind == "wrong":
        return f"{head}The answer is \\boxed{{{rng.choice(problem.wrong)}}}."
    if kind == "equivalent":
        return f"{head}The answer is \\boxed{{{rng.choice(problem.equivalents)}}}."
    if kind == "unparsable":
        return rng.choice((f"{head}I cannot determine the answer.", f"{head}The answer is \\boxed{{", ""))
    size = _overlong_size(rng, max_chars)
    if rng.random() < 0.5:
        return f"{head}The answer is \\boxed{{{problem.answer}}}.\n{_tail(rng, size)}"
    return f"<think>{_filler(rng, size)} {steps}</think>\nThe answer is \\boxed{{{problem.answer}}}."


def _qa_response(problem: Problem, kind: str, rng: random.Random, max_chars: int) -> str:
    think = f"<think>{' '.join(problem.steps)}</think>\n"
    if rng.random() < 0.4:
        think += (
            f"<search> {problem.question} </search>\n\n<information>Doc 1: a reference page that mentions "
            f"{problem.answer}.</information>\n\n"
        )
    if kind == "correct":
        return f"{think}<answer> {problem.answer} </answer>"
    if kind == "wrong":
        return f"{think}<answer> {rng.choice(problem.wrong)} </answer>"
    if kind == "equivalent":
        return f"{think}<answer>{rng.choice(problem.equivalents)}</answer>"
    if kind == "unparsable":
        return rng.choice(
            (f"{think}I do not know.", f"{think}<answer> {problem.answer}", "", f"{think}<answer></answer>")
        )
    size = _overlong_size(rng, max_chars)
    roll = rng.random()
    if roll < 0.35:  # the answer tag repeated many times (the anti-spam rule applies above 10)
        return think + " ".join(f"<answer> {problem.answer} </answer>" for _ in range(rng.randint(11, 20)))
    if roll < 0.7:
        return f"{think}<answer> {problem.answer} </answer>\n{_tail(rng, size)}"
    info = f"<information>{_filler(rng, size)}</information>\n"
    return f"{think}<search> more about it </search>\n{info}<answer> {problem.answer} </answer>"


def _response(source: str, problem: Problem, kind: str, rng: random.Random, max_chars: int) -> str:
    family = _FAMILY_OF[source]
    if family == "qa":
        return _qa_response(problem, kind, rng, max_chars)
    if family == "geo3k":
        return _geo3k_response(problem, kind, rng, max_chars)
    return _math_response(family, problem, kind, rng, max_chars)


def _ground_truth(source: str, problem: Problem, rng: random.Random) -> Any:
    if _FAMILY_OF[source] != "qa":
        return problem.answer
    category, question, aliases = next(f for f in FACTS if f[1] == problem.question)
    del category, question
    # datasets list one or more accepted answers
    return {"target": list(aliases) if rng.random() < 0.6 else [aliases[0]]}


# --------------------------------------------------------------------------- rows


def _row(source: str, kind: str, index: int, rng: random.Random, max_chars: int) -> dict[str, Any]:
    family = _FAMILY_OF[source]
    problem = _pool_for(source)(rng)
    return {
        "data_source": source,
        "prompt": _prompt(family, problem),
        "ability": _ABILITY[family],
        "reward_model": {"style": "rule", "ground_truth": _ground_truth(source, problem, rng)},
        "extra_info": {"split": "test", "index": index, "kind": kind},
        "response": _response(source, problem, kind, rng, max_chars),
    }


def _malformed_rows(start: int) -> list[dict[str, Any]]:
    """Rows that break the dataset contract, to exercise per-row error handling."""
    base = {
        "prompt": [{"role": "user", "content": "What is 6 times 7?"}],
        "ability": "math",
    }
    rows = [
        # no reward_model at all
        {**base, "data_source": "openai/gsm8k", "response": "6 * 7 = 42\n#### 42"},
        # the response is not a string
        {
            **base,
            "data_source": "openai/gsm8k",
            "reward_model": {"style": "rule", "ground_truth": "42"},
            "response": None,
        },
        {
            **base,
            "data_source": "lighteval/MATH",
            "reward_model": {"style": "rule", "ground_truth": "42"},
            "response": ["6 * 7 = 42", "\\boxed{42}"],
        },
        # a QA ground truth that is a bare string instead of {"target": [...]}
        {
            **base,
            "data_source": "searchR1_nq",
            "ability": "fact-reasoning",
            "reward_model": {"style": "rule", "ground_truth": 42},
            "response": "<answer> 42 </answer>",
        },
    ]
    for i, row in enumerate(rows):
        row["extra_info"] = {"split": "test", "index": start + i, "kind": "malformed"}
    return rows


def iter_rows(
    n: int,
    seed: int = 0,
    *,
    sources: Sequence[str] = RULE_SOURCES,
    kinds: Sequence[str] = KINDS,
    max_overlong_chars: int = 1200,
) -> Iterator[dict[str, Any]]:
    """Yield ``n`` rows cycling over every (source, kind) pair, so each pair gets ``n // (S*K)`` or one more."""
    unknown = sorted(set(sources) - set(RULE_SOURCES))
    if unknown:
        raise ValueError(f"unknown data sources {unknown}; allowed: {list(RULE_SOURCES)}")
    bad_kinds = sorted(set(kinds) - set(KINDS))
    if bad_kinds:
        raise ValueError(f"unknown kinds {bad_kinds}; allowed: {list(KINDS)}")
    rng = random.Random(seed)
    pairs = [(s, k) for s in sources for k in kinds]
    for i in range(n):
        if i % len(pairs) == 0:
            rng.shuffle(pairs)
        source, kind = pairs[i % len(pairs)]
        yield _row(source, kind, i, rng, max_overlong_chars)


def generate_rows(
    n: int = 230,
    seed: int = 0,
    *,
    malformed: bool = True,
    sources: Sequence[str] = RULE_SOURCES,
    kinds: Sequence[str] = KINDS,
    max_overlong_chars: int = 1200,
) -> list[dict[str, Any]]:
    """Return ``n`` generated rows (plus a few ``malformed`` ones at the end when ``malformed`` is true)."""
    rows = list(iter_rows(n, seed, sources=sources, kinds=kinds, max_overlong_chars=max_overlong_chars))
    if malformed:
        rows += _malformed_rows(len(rows))
    return rows


def write_jsonl(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Write rows as JSON Lines (UTF-8, non-ASCII kept as is)."""
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=230, help="number of generated rows (default 230)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--output", default="-", help="output JSONL path, '-' for stdout (default)")
    parser.add_argument("--no-malformed", action="store_true", help="do not append the malformed rows")
    parser.add_argument(
        "--max-overlong-chars", type=int, default=1200, help="upper bound on an overlong tail (default 1200)"
    )
    args = parser.parse_args(argv)
    if args.n < 0:
        parser.error("--n must be >= 0")
    rows = generate_rows(
        args.n, args.seed, malformed=not args.no_malformed, max_overlong_chars=args.max_overlong_chars
    )
    if args.output == "-":
        try:
            for row in rows:
                sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. piped into `head`
            sys.stderr.close()
    else:
        write_jsonl(rows, args.output)
        print(f"wrote {len(rows)} rows to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
