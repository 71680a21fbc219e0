"""The parity / throughput corpus: responses for every verl rule data source.

Two parts:

* **procedural** -- ``examples/make_rollouts.py`` at large ``n`` (always available);
* **real** -- built from ``../shared/data`` when present (never copied into the repo):

  - MATH-500 and MATH test solutions (gold = the last ``\\boxed{}`` of the solution): the solution itself,
    the gold written another way (``\\dfrac``, spacing, ``x = ``, units, decimals ...), the solution with its
    final box replaced by another problem's answer, and the solution cut before its final box; routed to the
    MATH, math_dapo-family and numina sources;
  - GSM8K GPT-3 solutions (``example_model_solutions.jsonl``): the ``A: n`` ending rewritten to ``#### n``
    (GSM8K's strict format), and a quarter kept raw;
  - the Search-R1 example rollouts and NQ-open / FlashRAG NQ questions with their answer lists, wrapped in
    ``<answer>`` tags (exact, case/article/punctuation variants, another question's answer, no tag);
  - AIME answers (matharena AIME 2024/2025, AI-MO AIME 2022-2024 with AoPS solutions) on ``aime20xx``
    sources, and HMMT / CMIMC LaTeX answers on the math_dapo and numina sources;

* **adversarial** -- a few degenerate responses per source (empty, whitespace, ``\\boxed{`` x 5000,
  ``####`` x 5000, a 20 000-digit number, 200 kB of text).

Each corpus row: ``{"id", "data_source", "response", "ground_truth", "origin", "kind"}``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from _common import load_make_rollouts

MATH_SOURCES = ("lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500")
DAPO_SOURCES = ("math_dapo", "math", "math_dapo_reasoning")
NUMINA_SOURCES = (
    "numina_aops_forum",
    "numina_synthetic_math",
    "numina_amc_aime",
    "numina_synthetic_amc",
    "numina_cn_k12",
    "numina_olympiads",
)
QA_SOURCES = (
    "searchR1_nq",
    "searchR1_triviaqa",
    "searchR1_popqa",
    "searchR1_hotpotqa",
    "searchR1_2wikimultihopqa",
    "searchR1_musique",
    "searchR1_bamboogle",
)


# --------------------------------------------------------------------------- boxed helpers (bench-local)


def last_box_span(text: str) -> tuple[int, int] | None:
    """(start, end) of the last ``\\boxed{...}`` (brace-matched) in ``text``, or None."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth = 0
    for i in range(start + len("\\boxed"), len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return start, i + 1
    return None


def last_box_content(text: str) -> str | None:
    span = last_box_span(text)
    return None if span is None else text[span[0] + len("\\boxed{") : span[1] - 1]


def replace_last_box(text: str, answer: str) -> str:
    span = last_box_span(text)
    if span is None:
        return text
    return f"{text[: span[0]]}\\boxed{{{answer}}}{text[span[1] :]}"


# --------------------------------------------------------------------------- gold mutations

_SIMPLE_FRAC = re.compile(r"^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$")
_INT = re.compile(r"^-?\d+$")
_DEC = re.compile(r"^-?\d*\.\d+$")


def gold_variants(gold: str) -> list[str]:
    """Other spellings of a LaTeX answer that denote the same value (as a grader should see it)."""
    out: list[str] = []
    if "\\frac" in gold and "\\dfrac" not in gold:
        out += [gold.replace("\\frac", "\\dfrac"), gold.replace("\\frac", "\\tfrac")]
    if "\\dfrac" in gold:
        out.append(gold.replace("\\dfrac", "\\frac"))
    if " " in gold:
        out.append(gold.replace(" ", ""))
    if "," in gold and ", " not in gold:
        out.append(gold.replace(",", ", "))
    if "\\left" in gold:
        out.append(gold.replace("\\left", "").replace("\\right", ""))
    if re.search(r"\\sqrt\{\d\}", gold):
        out.append(re.sub(r"\\sqrt\{(\d)\}", r"\\sqrt\1", gold))
    if "\\text{" in gold:
        out.append(re.sub(r"\\text\{([^{}]*)\}", r"\1", gold))
    if "^\\circ" in gold:
        out.append(gold.replace("^\\circ", ""))
    if _INT.match(gold):
        n = int(gold)
        out += [f"{n}.0", f"{n}^\\circ", f"\\${n}", f"{n} \\text{{ units}}", f"x = {n}"]
        if abs(n) >= 1000:
            out.append(f"{n:,}")
        if 0 < n < 1000 and len(gold) < 3:
            out.append(gold.zfill(3))  # AIME-style zero padding
    m = _SIMPLE_FRAC.match(gold)
    if m:
        sign, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        out.append(f"{sign}{a}/{b}")
        if b:
            q = Fraction(int(sign + str(a)), b)
            if _terminating(q):
                out.append(_exact_decimal(q))
            if f"{float(q):g}" != _exact_decimal(q):
                out.append(f"{float(q):g}")  # six significant digits: close, not equal
        if a < 10 and b < 10:
            out.append(f"{sign}\\frac{a}{b}")
    if _DEC.match(gold):
        q = Fraction(gold)
        out.append(f"\\frac{{{q.numerator}}}{{{q.denominator}}}")
    out.append(f"x = {gold}")
    out.append(f"{{{gold}}}")
    return list(dict.fromkeys(v for v in out if v != gold))


def _exact_decimal(q: Fraction) -> str:
    """The decimal expansion of ``q``, exact when it terminates (else 12 places)."""
    sign, q = ("-" if q < 0 else ""), abs(q)
    whole, rest = divmod(q.numerator, q.denominator)
    digits = []
    for _ in range(12):
        if not rest:
            break
        rest *= 10
        digits.append(str(rest // q.denominator))
        rest %= q.denominator
    return f"{sign}{whole}" + (f".{''.join(digits)}" if digits else "")


def _terminating(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


# --------------------------------------------------------------------------- corpus parts


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rows: list[dict[str, Any]] = []

    def add(self, source: str, response: str, gold: Any, origin: str, kind: str) -> None:
        self.rows.append(
            {
                "id": len(self.rows),
                "data_source": source,
                "response": response,
                "ground_truth": gold,
                "origin": origin,
                "kind": kind,
            }
        )


def _procedural(b: _Builder, n: int, seed: int) -> None:
    mr = load_make_rollouts()
    for row in mr.iter_rows(n, seed, max_overlong_chars=6000):
        gold = row["reward_model"]["ground_truth"]
        b.add(row["data_source"], row["response"], gold, "procedural", row["extra_info"]["kind"])


def _math_answer_line(family: str, answer: str, rng: random.Random) -> str:
    if family == "dapo":
        return f"Answer: {answer}" if rng.random() < 0.7 else f"The final answer is $\\boxed{{{answer}}}$."
    if family == "numina" and rng.random() < 0.3:
        return rng.choice((f"The answer is {answer}.", f"So the answer is ${answer}$", f"Answer: {answer}"))
    if family == "math" and rng.random() < 0.1 and " " not in answer:
        return f"The final answer is $\\boxed {answer}$."
    return f"The final answer is $\\boxed{{{answer}}}$."


def _math_problems(b: _Builder, problems: list[tuple[str, str]], origin: str, routes: list[str]) -> None:
    """``problems`` = [(solution, gold)]; each problem goes to one source drawn from ``routes``."""
    rng = b.rng
    golds = [g for _, g in problems]
    for solution, gold in problems:
        source = rng.choice(routes)
        family = "dapo" if source in DAPO_SOURCES else "numina" if source.startswith("numina") else "math"
        b.add(source, solution, gold, origin, "correct")
        variants = gold_variants(gold)
        if variants:
            body = solution[: last_box_span(solution)[0]] if last_box_span(solution) else solution
            line = _math_answer_line(family, rng.choice(variants), rng)
            b.add(source, f"{body.rstrip()}\n{line}", gold, origin, "equivalent")
        other = rng.choice(golds)
        if other != gold:
            b.add(source, replace_last_box(solution, other), gold, origin, "wrong")
        if family == "dapo":
            b.add(source, f"{solution}\nAnswer: {gold}", gold, origin, "correct")
        if rng.random() < 0.3:
            span = last_box_span(solution)
            if span:
                b.add(source, solution[: span[0]], gold, origin, "unparsable")


def _math(b: _Builder, data: Path, n_math: int, n_geo: int) -> None:
    path500 = data / "math" / "math500_test.jsonl"
    if path500.exists():
        problems = []
        for row in map(json.loads, path500.read_text(encoding="utf-8").splitlines()):
            gold = last_box_content(row["solution"])
            if gold is not None:
                problems.append((row["solution"], gold))
        _math_problems(b, problems, "math500", list(MATH_SOURCES))
    path = data / "math" / "math_test_5000.jsonl"
    if path.exists():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        b.rng.shuffle(rows)
        problems = []
        for row in rows[:n_math]:
            gold = last_box_content(row["solution"])
            if gold is not None:
                problems.append((row["solution"], gold))
        routes = [*MATH_SOURCES, *DAPO_SOURCES[1:2], *NUMINA_SOURCES]
        _math_problems(b, problems, "math_test", routes)
        geometry = [r for r in rows[n_math:] if r.get("type") == "Geometry"][:n_geo]
        _geo3k(
            b, [(r["solution"], g) for r in geometry if (g := last_box_content(r["solution"])) is not None]
        )


def _geo3k(b: _Builder, problems: list[tuple[str, str]]) -> None:
    """MATH geometry solutions in geometry3k's ``<think>...</think> \\boxed{}`` format."""
    rng = b.rng
    golds = [g for _, g in problems]
    source = "hiyouga/geometry3k"
    for solution, gold in problems:
        span = last_box_span(solution)
        body = solution[: span[0]].rstrip() if span else solution
        b.add(
            source,
            f"<think>{body}</think>\nThe answer is \\boxed{{{gold}}}.",
            gold,
            "math_geometry",
            "correct",
        )
        b.add(source, solution, gold, "math_geometry", "correct")  # no <think>: format part missed
        variants = gold_variants(gold)
        if variants:
            answer = rng.choice(variants)
            b.add(source, f"<think>{body}</think>\n\\boxed{{{answer}}}", gold, "math_geometry", "equivalent")
        other = rng.choice(golds)
        if other != gold:
            b.add(source, f"<think>{body}</think>\n\\boxed{{{other}}}", gold, "math_geometry", "wrong")


def _gsm8k(b: _Builder, data: Path) -> None:
    path = data / "gsm8k" / "example_model_solutions.jsonl"
    test = data / "gsm8k" / "test.jsonl"
    if not (path.exists() and test.exists()):
        return
    # commas removed, as verl's examples/data_preprocess/gsm8k.py stores the gold
    golds = [
        json.loads(line)["answer"].split("####")[-1].strip().replace(",", "")
        for line in test.read_text().splitlines()
    ]
    for gold, line in zip(golds, path.read_text(encoding="utf-8").splitlines(), strict=True):
        row = json.loads(line)
        for model in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"):
            solution = row[model]["solution"]
            kind = "correct" if row[model]["is_correct"] else "wrong"
            b.add("openai/gsm8k", to_hash_format(solution), gold, f"gsm8k_{model}", kind)
            if b.rng.random() < 0.25:
                b.add("openai/gsm8k", solution, gold, f"gsm8k_{model}_raw", kind)


_A_LINE = re.compile(r"(?:^|\n)A: ?([^\n]*)\s*$")


def to_hash_format(solution: str) -> str:
    """Rewrite a GSM8K example solution's final ``A: n`` line as ``#### n`` (GSM8K's answer format)."""
    m = _A_LINE.search(solution)
    if m is None:
        return solution
    return f"{solution[: m.start()]}\n#### {m.group(1).strip()}".lstrip("\n")


def _qa_variants(answer: str, rng: random.Random) -> str:
    return rng.choice(
        (answer.lower(), answer.upper(), f"the {answer}", f"{answer}.", f'"{answer}"', f" {answer} ")
    )


def _qa(b: _Builder, data: Path, n_nq: int) -> None:
    rng = b.rng
    items: list[tuple[str, list[str]]] = []
    nq = data / "nq_open" / "NQ-open.dev.jsonl"
    if nq.exists():
        rows = [json.loads(line) for line in nq.read_text(encoding="utf-8").splitlines()]
        rng.shuffle(rows)
        items += [(r["question"], list(r["answer"])) for r in rows[:n_nq]]
    flash = data / "flashrag_nq_sample" / "nq_test_sample.jsonl"
    if flash.exists():
        items += [
            (r["question"], list(r["golden_answers"]))
            for r in map(json.loads, flash.read_text(encoding="utf-8").splitlines())
            if r
        ]
    for i, (question, answers) in enumerate(items):
        source = QA_SOURCES[i % len(QA_SOURCES)]
        gold = {"target": answers}
        think = f"<think>I need to find: {question}</think>\n"
        b.add(source, f"{think}<answer> {rng.choice(answers)} </answer>", gold, "nq", "correct")
        b.add(
            source,
            f"{think}<answer>{_qa_variants(rng.choice(answers), rng)}</answer>",
            gold,
            "nq",
            "equivalent",
        )
        other = rng.choice(items)[1][0]
        if other not in answers:
            b.add(source, f"{think}<answer> {other} </answer>", gold, "nq", "wrong")
        if rng.random() < 0.2:
            b.add(source, f"{think}I am not sure.", gold, "nq", "unparsable")
    rollouts = data / "search_r1" / "search_r1_example_rollouts.json"
    if rollouts.exists():
        cases = json.loads(rollouts.read_text(encoding="utf-8"))["cases"]
        for source in QA_SOURCES:
            for case in cases:
                answer = case["final_answer_tag_content"].strip()
                traj = case["trajectory"]
                b.add(source, traj, {"target": [answer]}, "search_r1_rollout", "correct")
                b.add(
                    source,
                    traj,
                    {"target": [answer.lower().rstrip(".") + "."]},
                    "search_r1_rollout",
                    "equivalent",
                )
                b.add(source, traj, {"target": ["Beijing"]}, "search_r1_rollout", "wrong")
                others = [c["final_answer_tag_content"].strip() for c in cases if c is not case]
                b.add(source, traj, {"target": others}, "search_r1_rollout", "wrong")


def _aime(b: _Builder, data: Path) -> None:
    rng = b.rng
    items: list[tuple[str, str, str | None]] = []  # (source, answer, solution)
    arena = data / "matharena"
    for name, source in (
        ("aime_2024_I", "aime2024"),
        ("aime_2024_II", "aime2024"),
        ("aime_2025_I", "aime2025"),
        ("aime_2025_II", "aime2025"),
    ):
        path = arena / f"{name}.jsonl"
        if path.exists():
            items += [(source, r["answer"], None) for r in map(json.loads, path.read_text().splitlines())]
    extra = data / "aime_extra" / "aimo-validation-aime.jsonl"
    if extra.exists():
        for r in map(json.loads, extra.read_text(encoding="utf-8").splitlines()):
            year = re.search(r"/(\d{4})_AIME", r["url"])
            items.append((f"aime{year.group(1) if year else ''}", str(r["answer"]), r["solution"]))
    answers = [a for _, a, _ in items]
    for source, answer, solution in items:
        b.add(source, f"Let me think.\nAnswer: {answer}", answer, "aime", "correct")
        b.add(source, f"So the answer is $\\boxed{{{answer}}}$.", answer, "aime", "correct")
        stripped = str(int(answer)) if answer.isdigit() else answer
        padded = stripped.zfill(3)
        for variant in {stripped, padded} - {answer}:
            b.add(source, f"Answer: {variant}", answer, "aime", "equivalent")
        b.add(source, f"Answer: $\\boxed{{{answer}}}$", answer, "aime", "equivalent")
        other = rng.choice(answers)
        if other != answer:
            b.add(source, f"Answer: {other}", answer, "aime", "wrong")
        if solution:
            b.add(source, solution, answer, "aime_solution", "correct")
    # HMMT / CMIMC LaTeX answers: math_dapo and numina sources
    for name in ("hmmt_feb_2024", "hmmt_feb_2025", "cmimc_2024"):
        path = arena / f"{name}.jsonl"
        if not path.exists():
            continue
        for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            answer = r["answer"]
            for source in (rng.choice(DAPO_SOURCES), rng.choice(NUMINA_SOURCES)):
                family = "dapo" if source in DAPO_SOURCES else "numina"
                b.add(source, _math_answer_line(family, answer, rng), answer, name, "correct")
                for variant in gold_variants(answer)[:3]:
                    b.add(source, _math_answer_line(family, variant, rng), answer, name, "equivalent")
                other = rng.choice(answers)
                b.add(source, _math_answer_line(family, other, rng), answer, name, "wrong")


def _adversarial(b: _Builder) -> None:
    from make_rollouts import FAMILY_SOURCES

    def gold_for(source: str) -> Any:
        return {"target": ["Paris"]} if source.startswith("searchR1") else "42"

    texts: list[tuple[str, Callable[[], str]]] = [
        ("empty", lambda: ""),
        ("whitespace", lambda: " \n\t " * 10),
        ("open_boxes", lambda: "\\boxed{" * 5000),
        ("hash_runs", lambda: "#### " * 5000),
        ("digit_run", lambda: "The answer is " + "9" * 20000),
        ("answer_runs", lambda: "Answer: " * 5000),
        (
            "long_text_then_answer",
            lambda: "word " * 40000 + "\\boxed{42} Answer: 42 #### 42 <answer>Paris</answer>",
        ),
        ("unicode", lambda: "答案是 \\boxed{４２} ⁴² Answer: ٤٢ <answer>Pàris</answer>"),
    ]
    for sources in FAMILY_SOURCES.values():
        for source in sources:
            for name, make in texts:
                b.add(source, make(), gold_for(source), f"adversarial_{name}", "unparsable")


def build_corpus(
    data: Path | None,
    *,
    seed: int = 0,
    n_procedural: int = 3450,
    n_math: int = 1200,
    n_geo: int = 250,
    n_nq: int = 700,
):
    """Return the list of corpus rows (see the module docstring)."""
    b = _Builder(seed)
    _procedural(b, n_procedural, seed)
    if data is not None:
        _math(b, data, n_math, n_geo)
        _gsm8k(b, data)
        _qa(b, data, n_nq)
        _aime(b, data)
    _adversarial(b)
    return b.rows


def iter_sources(rows: list[dict[str, Any]]) -> Iterator[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.setdefault(row["data_source"], None)
    yield from seen
