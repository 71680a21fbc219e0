"""Workloads of the execution-engine benchmark (``runner_vs_verl.py``); stdlib only.

* :func:`mixed_workload` -- 1,024 labelled responses, 256 per scorer family (``openai/gsm8k``,
  ``lighteval/MATH``, ``math_dapo``/``aime20xx``, ``numina_*``), built from ``../shared/data``:
  GSM8K test answers and the labelled GPT-3 solutions, MATH / MATH-500 solutions, AIME answers. Each
  problem gets one response of a kind drawn from a fixed mix:

  ======================  =====  ================================================================
  kind                    label  response
  ======================  =====  ================================================================
  ``correct``             1      the reference solution (or a GPT-3 solution labelled correct)
  ``equivalent``          1      the same answer written another way (``\\dfrac``, ``a/b``, exact
                                 decimal, ``1,000``, no spaces, no ``\\left``, ``18.00`` ...)
  ``wrong``               0      another problem's answer, an off-by-one, or a GPT-3 solution
                                 labelled wrong
  ``unparsable``          0      no final answer: the solution cut before it, an empty box, a
                                 refusal, an empty response
  ``long_correct``        1      a ~4,000-character chain of thought ending in the right answer
  ``long_wrong``          0      the same, ending in a wrong answer
  ``truncated``           0      a ~4,000-character chain of thought cut before any final answer
  ======================  =====  ================================================================

  The label says whether the final answer is right *and* given in the format the data source's prompt
  asks for (``#### n``, ``\\boxed{}``, ``Answer: x``). Without ``../shared/data`` the rows come from
  ``examples/make_rollouts.py`` (label 1 for ``correct``/``equivalent``, 0 for ``wrong``/``unparsable``,
  none for ``overlong``).
* :func:`grpo_workload` -- 128 MATH prompts x 16 responses, as a GRPO group looks: most responses are
  short final answers that repeat inside the group, the rest are unique chains of thought.
* :func:`adversarial_inputs` -- deep nesting, power towers, 10 MB responses and regex-bomb strings,
  each written in the answer format of every scorer family.

Rows: ``{"id", "data_source", "family", "prompt", "response", "ground_truth", "kind", "label"}``.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from _common import load_make_rollouts
from _corpus import NUMINA_SOURCES, last_box_content, last_box_span, replace_last_box, to_hash_format

FAMILIES = ("gsm8k", "math", "dapo", "numina")
FAMILY_OF_SOURCE = {"openai/gsm8k": "gsm8k", "lighteval/MATH": "math", "math_dapo": "dapo"}
FAMILY_OF_SOURCE.update({s: "numina" for s in NUMINA_SOURCES})

#: responses per family and kind (256 per family, 1,024 in all)
KIND_MIX: dict[str, int] = {
    "correct": 64,
    "equivalent": 48,
    "wrong": 48,
    "unparsable": 24,
    "long_correct": 32,
    "long_wrong": 16,
    "truncated": 24,
}
POSITIVE_KINDS = frozenset({"correct", "equivalent", "long_correct"})
LONG_CHARS = (3500, 4300)  # length of a long chain of thought

_INSTRUCTIONS = {
    "gsm8k": 'Let\'s think step by step and output the final answer after "####".',
    "math": "Please reason step by step, and put your final answer within \\boxed{}.",
    "dapo": (
        "Solve the following math problem step by step. The last line of your response should be of the "
        "form Answer: $Answer (without quotes) where $Answer is the answer to the problem."
    ),
    "numina": "Please reason step by step, and put your final answer within \\boxed{}.",
}
_REFUSALS = ("", "I am not sure how to solve this problem.", "\\boxed{}", "Let me think about this.")


# --------------------------------------------------------------------------- answer forms


def answer_line(family: str, answer: str) -> str:
    """The final-answer line in the format ``family``'s prompt asks for."""
    if family == "gsm8k":
        return f"#### {answer}"
    if family == "dapo":
        return f"Answer: {answer}"
    return f"The final answer is $\\boxed{{{answer}}}$."


_SIMPLE_FRAC = re.compile(r"^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$")
_INT = re.compile(r"^-?\d+$")
_DEC = re.compile(r"^-?\d*\.\d+$")


def equivalent_forms(gold: str, family: str) -> list[str]:
    """Other spellings of ``gold`` with exactly the same value (no rounding)."""
    if family == "gsm8k":
        n = int(gold) if _INT.match(gold) else None
        out = [f"{gold}.00", f"${gold}"]
        if n is not None and abs(n) >= 1000:
            out.append(f"{n:,}")
        return out
    out: list[str] = []
    if "\\frac" in gold:
        out += [gold.replace("\\frac", "\\dfrac"), gold.replace("\\frac", "\\tfrac")]
    if "\\dfrac" in gold:
        out.append(gold.replace("\\dfrac", "\\frac"))
    if " " in gold:
        out.append(gold.replace(" ", ""))
    if "\\left" in gold:
        out.append(gold.replace("\\left", "").replace("\\right", ""))
    if re.search(r"\\sqrt\{\d\}", gold):
        out.append(re.sub(r"\\sqrt\{(\d)\}", r"\\sqrt\1", gold))
    if "^\\circ" in gold:
        out.append(gold.replace("^\\circ", ""))
    if _INT.match(gold):
        n = int(gold)
        if abs(n) >= 1000:
            out.append(f"{n:,}")
        if 0 <= n < 100 and family == "dapo":
            out.append(f"{n:03d}")  # AIME-style zero padding
        out.append(f"{{{gold}}}")
    m = _SIMPLE_FRAC.match(gold)
    if m:
        sign, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        out.append(f"{sign}{a}/{b}")
        if b and _terminates(b):
            out.append(_decimal(Fraction(int(sign + str(a)), b)))
    if _DEC.match(gold):
        q = Fraction(gold)
        out.append(f"\\frac{{{q.numerator}}}{{{q.denominator}}}")
    return list(dict.fromkeys(v for v in out if v != gold))


def _terminates(d: int) -> bool:
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _decimal(q: Fraction) -> str:
    sign, q = ("-" if q < 0 else ""), abs(q)
    whole, rest = divmod(q.numerator, q.denominator)
    digits = ""
    while rest:
        rest *= 10
        digits += str(rest // q.denominator)
        rest %= q.denominator
    return f"{sign}{whole}" + (f".{digits}" if digits else "")


def wrong_answer(gold: str, others: list[str], rng: random.Random) -> str:
    """An off-by-one for an integer (half the time), else another problem's answer."""
    if _INT.match(gold) and rng.random() < 0.5:
        return str(int(gold) + rng.choice((-1, 1, 2, 10)))
    for _ in range(20):
        other = rng.choice(others)
        if other.replace(" ", "") != gold.replace(" ", ""):
            return other
    return f"{gold}+1"


# --------------------------------------------------------------------------- text helpers

_BOX = re.compile(r"\\boxed\s*\{([^{}]*)\}")


def sanitize(text: str) -> str:
    """Reasoning text with no final-answer markers (boxes unwrapped, ``####``/``Answer:`` reworded)."""
    text = re.sub(r"<<[^<>]*>>", "", text)  # GSM8K calculator annotations
    for _ in range(3):
        text = _BOX.sub(r"\1", text)
    text = text.replace("\\boxed", "").replace("\\fbox", "")
    text = re.sub(r"#+", "", text)
    return re.sub(r"(?i)answer(\s*):", r"answer\1is", text)


def _filler(pool: list[str], rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < chars:
        parts.append("Let me double-check this another way.\n" + sanitize(rng.choice(pool)))
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- problems


class _Problem:
    __slots__ = ("body", "gold", "problem", "solution", "source")

    def __init__(self, source: str, problem: str, gold: str, body: str, solution: str) -> None:
        self.source, self.problem, self.gold, self.body, self.solution = source, problem, gold, body, solution


def _math_problems(data: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    """(problem, solution, gold) from MATH-500 and the MATH test set, shuffled."""
    out: list[tuple[str, str, str]] = []
    for name in ("math500_test.jsonl", "math_test_5000.jsonl"):
        path = data / "math" / name
        if not path.exists():
            continue
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            gold = last_box_content(row["solution"])
            if gold and len(row["solution"]) < 2500:
                out.append((row["problem"], row["solution"], gold))
    rng.shuffle(out)
    return out


def _aime_problems(data: Path) -> list[tuple[str, str, str, str | None]]:
    """(source, problem, answer, solution or None) from matharena and the AI-MO AIME validation set."""
    out: list[tuple[str, str, str, str | None]] = []
    for name, source in (("aime_2024_I", "aime2024"), ("aime_2024_II", "aime2024")):
        path = data / "matharena" / f"{name}.jsonl"
        if path.exists():
            out += [(source, r["problem"], str(r["answer"]), None) for r in _jsonl(path)]
    for name, source in (("aime_2025_I", "aime2025"), ("aime_2025_II", "aime2025")):
        path = data / "matharena" / f"{name}.jsonl"
        if path.exists():
            out += [(source, r["problem"], str(r["answer"]), None) for r in _jsonl(path)]
    extra = data / "aime_extra" / "aimo-validation-aime.jsonl"
    if extra.exists():
        for r in _jsonl(extra):
            if len(r["solution"]) < 2500:
                out.append(("math_dapo", r["question"], str(r["answer"]), r["solution"]))
    return out


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rows: list[dict[str, Any]] = []

    def add(self, family: str, source: str, problem: str, response: str, gold: str, kind: str) -> None:
        self.rows.append(
            {
                "id": len(self.rows),
                "data_source": source,
                "family": family,
                "prompt": f"{problem}\n\n{_INSTRUCTIONS[family]}",
                "response": response,
                "ground_truth": gold,
                "kind": kind,
                "label": int(kind in POSITIVE_KINDS),
            }
        )


def _kinds(rng: random.Random) -> list[str]:
    kinds = [k for k, n in KIND_MIX.items() for _ in range(n)]
    rng.shuffle(kinds)
    return kinds


def _emit(b: _Builder, family: str, p: _Problem, kind: str, golds: list[str], pool: list[str]) -> None:
    """One response of ``kind`` for problem ``p`` (math-style families)."""
    rng = b.rng
    if kind in ("correct", "long_correct"):
        answer = p.gold
    elif kind == "equivalent":
        forms = equivalent_forms(p.gold, family)
        answer = rng.choice(forms) if forms else p.gold
        kind = kind if forms else "correct"
    elif kind in ("wrong", "long_wrong"):
        answer = wrong_answer(p.gold, golds, rng)
    else:
        answer = ""
    if kind == "unparsable":
        text = p.body.rstrip() if rng.random() < 0.6 else rng.choice(_REFUSALS)
    elif kind in ("long_correct", "long_wrong", "truncated"):
        target = rng.randint(*LONG_CHARS)
        head = f"Let me think step by step.\n\n{sanitize(p.body)}\n\n"
        chain = head + _filler(pool, rng, target - len(head))
        if kind == "truncated":
            text = chain[:target]
        else:
            text = (
                f"{chain[: target - 120].rstrip()}\n\nSo, putting it together.\n{answer_line(family, answer)}"
            )
    elif family in ("math", "numina") and p.solution and last_box_span(p.solution):
        text = replace_last_box(p.solution, answer)
    else:
        text = f"{p.body.rstrip()}\n\n{answer_line(family, answer)}"
    b.add(family, p.source, p.problem, text, p.gold, kind)


def _gsm8k_rows(b: _Builder, data: Path, n_per_kind: dict[str, int]) -> bool:
    test, labelled = data / "gsm8k" / "test.jsonl", data / "gsm8k" / "example_model_solutions.jsonl"
    if not (test.exists() and labelled.exists()):
        return False
    rng = b.rng
    tests = _jsonl(test)
    golds = [t["answer"].split("####")[-1].strip().replace(",", "") for t in tests]
    model_rows = _jsonl(labelled)
    order = list(range(len(tests)))
    rng.shuffle(order)
    pool = [t["answer"].split("####")[0] for t in tests]
    kinds = [k for k, n in n_per_kind.items() for _ in range(n)]
    rng.shuffle(kinds)
    for kind, i in zip(kinds, order, strict=False):
        gold, question = golds[i], tests[i]["question"]
        body = re.sub(r"<<[^<>]*>>", "", tests[i]["answer"].split("####")[0]).rstrip()
        p = _Problem("openai/gsm8k", question, gold, body, "")
        gpt3 = [
            model_rows[i][m]
            for m in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")
        ]
        if kind in ("correct", "wrong") and rng.random() < 0.5:
            # a real GPT-3 solution with its human label, `A: n` rewritten to GSM8K's `#### n`
            matching = [s for s in gpt3 if s["is_correct"] == (kind == "correct")]
            if matching:
                b.add(
                    "gsm8k", p.source, question, to_hash_format(rng.choice(matching)["solution"]), gold, kind
                )
                continue
        _emit(b, "gsm8k", p, kind, golds, pool)
    return True


def _math_family_rows(
    b: _Builder, family: str, problems: list[tuple[str, str, str]], sources: Callable[[int], str]
) -> None:
    golds = [g for _, _, g in problems]
    pool = [s for _, s, _ in problems]
    for j, (kind, (problem, solution, gold)) in enumerate(zip(_kinds(b.rng), problems, strict=False)):
        span = last_box_span(solution)
        body = solution[: span[0]] if span else solution
        _emit(b, family, _Problem(sources(j), problem, gold, body, solution), kind, golds, pool)


def _dapo_rows(
    b: _Builder, problems: list[tuple[str, str, str]], aime: list[tuple[str, str, str, str | None]]
) -> None:
    """DAPO family: AIME problems (``aime2024``/``aime2025`` when they have no written solution) and MATH."""
    rng = b.rng
    golds = [g for _, _, g in problems] + [a for _, _, a, _ in aime]
    pool = [s for _, s, _ in problems]
    items: list[_Problem] = []
    for source, problem, answer, solution in aime:
        body = sanitize(solution) if solution else f"We need to find the requested quantity.\n{problem}"
        items.append(_Problem(source, problem, answer, body, ""))
    for problem, solution, gold in problems:
        span = last_box_span(solution)
        items.append(
            _Problem("math_dapo", problem, gold, sanitize(solution[: span[0]] if span else solution), "")
        )
    items = items[:256]
    rng.shuffle(items)
    for kind, p in zip(_kinds(rng), items, strict=False):
        _emit(b, "dapo", p, kind, golds, pool)


def mixed_workload(data: Path | None, seed: int = 0) -> list[dict[str, Any]]:
    """The 1,024-response labelled workload (see the module docstring)."""
    rng = random.Random(seed)
    b = _Builder(rng)
    if data is None or not (data / "math").is_dir():
        return _fallback_rows(seed)
    problems = _math_problems(data, rng)
    if not _gsm8k_rows(b, data, KIND_MIX):
        return _fallback_rows(seed)
    _math_family_rows(b, "math", problems[0:256], lambda j: "lighteval/MATH")
    _dapo_rows(b, problems[256:512], _aime_problems(data))
    _math_family_rows(b, "numina", problems[512:768], lambda j: NUMINA_SOURCES[j % len(NUMINA_SOURCES)])
    for i, row in enumerate(b.rows):
        row["id"] = i
    return b.rows


def _fallback_rows(seed: int, n: int = 1024) -> list[dict[str, Any]]:
    """``examples/make_rollouts.py`` rows of the four families (no shared data)."""
    mr = load_make_rollouts()
    wanted = {"openai/gsm8k": "gsm8k", "lighteval/MATH": "math", "math_dapo": "dapo"}
    wanted.update({s: "numina" for s in NUMINA_SOURCES})
    labels = {"correct": 1, "equivalent": 1, "wrong": 0, "unparsable": 0}
    rows: list[dict[str, Any]] = []
    per_family: Counter[str] = Counter()
    for row in mr.iter_rows(20 * n, seed, max_overlong_chars=4000):
        family = wanted.get(row["data_source"])
        if family is None or per_family[family] >= n // len(FAMILIES):
            continue
        per_family[family] += 1
        kind = row["extra_info"]["kind"]
        rows.append(
            {
                "id": len(rows),
                "data_source": row["data_source"],
                "family": family,
                "prompt": row["prompt"][-1]["content"] if row.get("prompt") else "",
                "response": row["response"],
                "ground_truth": row["reward_model"]["ground_truth"],
                "kind": kind,
                "label": labels.get(kind),
            }
        )
        if len(rows) == n:
            break
    return rows


# --------------------------------------------------------------------------- GRPO-shaped batch


def grpo_workload(
    data: Path | None, *, prompts: int = 128, group: int = 16, seed: int = 0, source: str = "numina_olympiads"
) -> list[dict[str, Any]]:
    """``prompts`` x ``group`` responses; short answers repeat inside a group, chains of thought do not.

    Per prompt the policy is right with probability p ~ U(0.2, 0.9) and otherwise picks one of two wrong
    answers; 60% of responses are one of three short answer sentences, 40% a unique chain of thought.
    """
    rng = random.Random(seed)
    if data is not None and (data / "math").is_dir():
        problems = [p for p in _math_problems(data, rng) if len(p[2]) <= 20][:prompts]
    else:
        problems = []
        for row in load_make_rollouts().iter_rows(40 * prompts, seed):
            if row["data_source"] == "lighteval/MATH" and row["extra_info"]["kind"] == "correct":
                problems.append(
                    (row["prompt"][-1]["content"], row["response"], row["reward_model"]["ground_truth"])
                )
            if len(problems) == prompts:
                break
    golds = [g for _, _, g in problems]
    rows: list[dict[str, Any]] = []
    templates = (
        "\\boxed{{{}}}",
        "The answer is $\\boxed{{{}}}$.",
        "Therefore, the final answer is $\\boxed{{{}}}$.",
    )
    for prompt_index, (problem, solution, gold) in enumerate(problems):
        p_right = rng.uniform(0.2, 0.9)
        wrongs = [wrong_answer(gold, golds, rng) for _ in range(2)]
        span = last_box_span(solution)
        body = sanitize(solution[: span[0]] if span else solution)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", body) if s]
        for k in range(group):
            right = rng.random() < p_right
            answer = gold if right else rng.choice(wrongs)
            if rng.random() < 0.6:
                response = rng.choice(templates).format(answer)
            else:
                picked = rng.sample(sentences, k=max(1, len(sentences) * 2 // 3)) if sentences else []
                response = (
                    f"Attempt {k}: " + " ".join(picked) + f"\n\nThe final answer is $\\boxed{{{answer}}}$."
                )
            rows.append(
                {
                    "id": len(rows),
                    "prompt_index": prompt_index,
                    "data_source": source,
                    "family": "numina",
                    "prompt": problem,
                    "response": response,
                    "ground_truth": gold,
                    "kind": "correct" if right else "wrong",
                    "label": int(right),
                }
            )
    return rows


# --------------------------------------------------------------------------- adversarial corpus

ADVERSARIAL_FAMILIES: dict[str, str] = {
    # family -> the verl data source (or "math_verify" for verl's math_verify.compute_score)
    "gsm8k": "openai/gsm8k",
    "math": "lighteval/MATH",
    "dapo": "math_dapo",
    "numina": "numina_olympiads",
    "math_verify": "math_verify",
}


def _payloads() -> list[tuple[str, str]]:
    """(name, answer payload): what goes where each family reads its final answer."""
    return [
        ("deep_braces", "{" * 20000 + "42" + "}" * 20000),
        ("deep_frac", "\\frac{1}{" * 1000 + "2" + "}" * 1000),
        ("deep_parens", "(" * 20000 + "42" + ")" * 20000),
        ("power_tower", "9^{9^{9^{9}}}"),
        ("power_tower_plain", "9**9**9**9"),
        ("huge_factorial", "100000000!"),
        ("dollar_bomb", "$" * 100000),
        ("text_brace_bomb", "\\text{" * 100000),
        ("frac_bomb", "\\frac" * 100000),
        ("comma_digits", "1," * 200000 + "1"),
        ("digit_run_1m", "9" * 1000000),
    ]


def adversarial_inputs() -> list[dict[str, Any]]:
    """One response per (adversarial input, family). Gold is ``"42"`` everywhere.

    Besides the payloads: ``ten_mb_prose`` (10 MB of text, then the answer), ``ten_mb_box`` (a 10 MB
    expression ``1+1+...`` as the final answer) and ``open_box_bomb`` (``\\boxed{`` x 200,000).
    """
    out: list[dict[str, Any]] = []
    for family, source in ADVERSARIAL_FAMILIES.items():
        fmt = "math" if family == "math_verify" else family
        cases = [(name, answer_line(fmt, payload)) for name, payload in _payloads()]
        cases.append(("ten_mb_prose", "word " * 2_000_000 + answer_line(fmt, "42")))
        cases.append(("ten_mb_box", answer_line(fmt, "1+" * 5_000_000 + "1")))
        cases.append(("open_box_bomb", "\\boxed{" * 200_000 + answer_line(fmt, "42")))
        for name, response in cases:
            out.append(
                {
                    "id": len(out),
                    "name": name,
                    "family": family,
                    "data_source": source,
                    "response": response,
                    "ground_truth": "42",
                }
            )
    return out
