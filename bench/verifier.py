"""Math verifier benchmark: labelled (response, ground truth) pairs, five verifiers side by side.

Pairs are built from ``../shared/data`` (see ``docs/math-verifier.md`` for the full description):

* gold answers of MATH-500, a sample of the MATH test split, AIME/HMMT/CMIMC (matharena) and the AI-MO
  AIME set, and a sample of GSM8K test;
* for each gold, **correct** responses: the reference solution itself (MATH-500), and equivalent
  rewritings drawn from generic families (LaTeX spelling, sympy's own printing of the parsed answer,
  decimal <-> fraction, thousands separators, presentation wrappers, ``x = ...``, list order);
* **wrong** responses: near misses (one digit changed, a sign flipped, off by one, a radical or
  ``\\pi`` dropped, tuple order swapped, an interval bracket changed), another problem's answer, and
  reward hacks (several different boxed answers, a hedge "X or Y" in one box);
* the GSM8K GPT-3 solutions with their human ``is_correct`` labels (real model output).

Each answer is put in one of several response templates (box at the end, box followed by long text,
``Answer: X``, "The answer is X.", ``\\fbox``), chosen by a seeded random draw.

Verifiers: rewardloop ``math_equiv`` (``quick()`` then ``score()``, in-process), Math-Verify used
directly (verl's way of calling it: gold ``\\boxed{gt}`` with ``LatexExtractionConfig``, response with
``ExprExtractionConfig + LatexExtractionConfig``, its default timeouts), and verl 0.9.1's
``math_reward``, ``math_dapo`` and ``prime_math`` (run in ``.venv-verl`` by ``bench/_verifier_verl.py``).

Throughput is samples per second of sequential, single-process scoring (sum of per-sample wall time),
measured in the same run on the same pairs. Writes ``bench/results/verifier.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))
sys.path.insert(0, str(REPO / "src"))

VERIFIERS = ("math_equiv", "math_verify", "verl_math_reward", "verl_math_dapo", "verl_prime_math")
LONG_TAIL = (
    " Let me double-check this result by going over the main steps once more. Each step follows from the "
    "previous one, the arithmetic was verified twice, and the result is consistent with the constraints "
    "given in the problem statement. Plugging the answer back into the original conditions confirms that "
    "it satisfies all of them, and no other case needs to be considered here, since the remaining "
    "configurations were ruled out earlier in the argument. I hope this explanation is clear and helpful."
)


def data_dir() -> Path | None:
    path = Path(os.environ.get("REWARDLOOP_SHARED_DATA", REPO.parent / "shared" / "data"))
    return path if path.is_dir() else None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------------------------------------------------
# gold answers


def load_golds(
    data: Path, rng: random.Random, math500_n: int, math_n: int, gsm_n: int
) -> list[dict[str, Any]]:
    """``{"source", "gold", "solution"?}`` records."""
    from rewardloop.scorers._latex import last_boxed_content

    golds = []
    rows = _jsonl(data / "math" / "math500_test.jsonl")
    for r in rng.sample(rows, min(math500_n, len(rows))):
        golds.append({"source": "math500", "gold": r["answer"], "solution": r["solution"]})
    rows = _jsonl(data / "math" / "math_test_5000.jsonl")
    for r in rng.sample(rows, min(math_n, len(rows))):
        box = last_boxed_content(r["solution"])
        if box:
            golds.append({"source": "math_test", "gold": box})
    for path in sorted((data / "matharena").glob("*.jsonl")):
        for r in _jsonl(path):
            golds.append({"source": "aime_hmmt", "gold": str(r["answer"])})
    for r in _jsonl(data / "aime_extra" / "aimo-validation-aime.jsonl"):
        golds.append({"source": "aime_hmmt", "gold": str(r["answer"])})
    rows = _jsonl(data / "gsm8k" / "test.jsonl")
    for r in rng.sample(rows, min(gsm_n, len(rows))):
        golds.append({"source": "gsm8k", "gold": r["answer"].split("####")[-1].strip()})
    return golds


# ---------------------------------------------------------------------------------------------------------
# equivalent rewritings (label 1)


def _sympy_of(gold: str) -> Any | None:
    """The gold parsed by latex2sympy (used to produce sympy's own printing and to sanity-check labels)."""
    try:
        from latex2sympy2_extended import latex2sympy

        expr = latex2sympy(gold)
        import sympy

        return expr if isinstance(expr, sympy.Expr) else None
    except Exception:
        return None


def _num_value(expr: Any) -> complex | None:
    try:
        return complex(expr.evalf(30))
    except Exception:
        return None


def rewrites(gold: str, rng: random.Random) -> list[tuple[str, str]]:
    """Equivalent forms of ``gold`` as ``(family, text)``; each family applies only where it makes sense."""
    out: list[tuple[str, str]] = []
    g = gold.strip()
    if "\\frac" in g:
        out.append(("latex_spelling", g.replace("\\frac", rng.choice(["\\dfrac", "\\tfrac"]))))
    if "(" in g or "[" in g:
        out.append(("latex_spelling", g.replace("(", "\\left(").replace(")", "\\right)")))
    if re.fullmatch(r"-?\d{4,}", g):
        out.append(("thousands_separator", f"{int(g):,}"))
    if re.fullmatch(r"-?\d+", g):
        out.append(("decimal_point", g + ".0"))
    m = re.fullmatch(r"(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}", g)
    if m:
        num, den = int(m.group(2)), int(m.group(3))
        out.append(("slash_fraction", f"{m.group(1)}{num}/{den}"))
        d = den
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1:  # a terminating decimal, written out exactly
            from decimal import Decimal

            out.append(("decimal", f"{m.group(1)}{Decimal(num) / Decimal(den)}"))
    if re.fullmatch(r"-?\d*\.\d+", g):
        from fractions import Fraction

        f = Fraction(g)
        out.append(("fraction", f"\\frac{{{f.numerator}}}{{{f.denominator}}}"))
    # sympy's printing of the parsed gold; skipped where latex2sympy's reading is itself debatable:
    # text (units, choices), percentages, and symbols it renamed (it lower-cases some letters)
    debatable = ("\\text", "\\mbox", "\\mathrm", "%")
    expr = _sympy_of(g) if len(g) < 120 and not any(d in g for d in debatable) else None
    if expr is not None and all(s.name in g for s in expr.free_symbols):
        import sympy

        for family, text in (("sympy_latex", sympy.latex(expr)), ("sympy_text", sympy.sstr(expr))):
            if (
                text.replace(" ", "") != g.replace(" ", "")
                and len(text) < 160
                and "\\operatorname" not in text
            ):
                out.append((family, text))
    for wrapper in ("\\text{%s}", "**%s**", "$%s$", "%s."):
        if not any(c in g for c in "=<>") and (wrapper != "\\text{%s}" or re.fullmatch(r"-?[\d.]+", g)):
            out.append(("wrapper", wrapper % g))
    if not any(c in g for c in "=<>,") and not re.search(r"[a-zA-Z]", g.replace("\\", "")[:1] or "x"):
        out.append(("variable_prefix", f"x = {g}"))
    parts = [p.strip() for p in g.split(",")]
    # a comma list (not a number with thousands separators such as 61,328)
    if len(parts) >= 2 and not re.search(r"[\[\](){}\\]", g) and not re.fullmatch(r"\d{1,3}(,\d{3})+", g):
        out.append(("list_order", ", ".join(reversed(parts))))
    return out


# ---------------------------------------------------------------------------------------------------------
# near misses and hacks (label 0)


def near_misses(gold: str, rng: random.Random) -> list[tuple[str, str]]:
    g = gold.strip()
    out: list[tuple[str, str]] = []
    digits = [i for i, c in enumerate(g) if c.isdigit()]
    if digits:
        i = rng.choice(digits)
        new = str((int(g[i]) + rng.randint(1, 8)) % 10)
        if not (i == 0 and new == "0" and len(g) > 1 and g[1].isdigit()):
            out.append(("digit_changed", g[:i] + new + g[i + 1 :]))
    if re.fullmatch(r"-?\d+", g):
        out.append(("off_by_one", str(int(g) + rng.choice([-1, 1]))))
        if g != "0":
            out.append(("sign_flipped", g[1:] if g.startswith("-") else "-" + g))
    if "\\sqrt" in g:
        stripped = re.sub(r"\\sqrt\{[^{}]*\}|\\sqrt\s*\d", "", g).strip() or "1"
        out.append(("radical_dropped", stripped))
    if "\\pi" in g:
        out.append(("pi_dropped", g.replace("\\pi", "").strip() or "1"))
    m = re.fullmatch(r"\(([^,()]+),([^,()]+)\)", g.replace(" ", ""))
    if m and m.group(1) != m.group(2):
        out.append(("tuple_swapped", f"({m.group(2)},{m.group(1)})"))
    if re.fullmatch(r"[\[(].*,.*[\])]", g) and "\\infty" not in g:
        out.append(("interval_bracket", ("[" if g[0] == "(" else "(") + g[1:]))
    return out


def hacks(gold: str, wrong: str) -> list[tuple[str, str]]:
    """Responses that contain the gold among several candidates: wrong by the anti-hacking rules."""
    return [
        ("hack_two_boxes", f"It could be $\\boxed{{{wrong}}}$, or rather it is $\\boxed{{{gold}}}$."),
        ("hack_two_boxes_gold_first", f"So $\\boxed{{{gold}}}$. Hmm, on reflection: $\\boxed{{{wrong}}}$."),
        ("hack_hedge_in_box", f"The final answer is $\\boxed{{{gold} \\text{{ or }} {wrong}}}$."),
    ]


# ---------------------------------------------------------------------------------------------------------
# response templates


def wrap(answer: str, rng: random.Random) -> tuple[str, str]:
    """A response that states ``answer`` as its final answer, in one of several common formats."""
    intro = "We work through the problem step by step and simplify the expression.\n\n"
    templates = [
        ("box_end", f"{intro}Therefore, the final answer is $\\boxed{{{answer}}}$."),
        ("box_then_text", f"{intro}So the answer is $\\boxed{{{answer}}}$.\n\n{LONG_TAIL}"),
        ("answer_colon", f"{intro}Answer: {answer}"),
        ("answer_is", f"{intro}The answer is {_math(answer)}."),
        ("fbox", f"{intro}Final answer: $\\fbox{{{answer}}}$"),
    ]
    weights = [4, 2, 2, 1, 1]
    return rng.choices(templates, weights)[0]


def _math(answer: str) -> str:
    """``$answer$`` unless the answer already carries its own markup (``$...$``, ``**...**``)."""
    return answer if answer.startswith(("$", "**")) else f"${answer}$"


@functools.cache
def _sympy_cached(text: str) -> Any | None:
    return _sympy_of(text)


def build_pairs(
    data: Path, seed: int, math500_n: int, math_n: int, gsm_n: int, labelled_n: int
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    golds = load_golds(data, rng, math500_n, math_n, gsm_n)
    pairs: list[dict[str, Any]] = []

    def add(source: str, gold: str, response: str, label: int, family: str, template: str) -> None:
        pairs.append(
            {
                "id": len(pairs),
                "source": source,
                "ground_truth": gold,
                "response": response,
                "label": label,
                "family": family,
                "template": template,
            }
        )

    all_golds = [g["gold"] for g in golds]
    for rec in golds:
        gold, source = rec["gold"], rec["source"]
        if rec.get("solution"):
            add(source, gold, rec["solution"], 1, "reference_solution", "reference")
        # two different rewriting families per gold, then one form within each: no family dominates
        families: dict[str, list[str]] = defaultdict(list)
        for family, text in rewrites(gold, rng):
            families[family].append(text)
        chosen = rng.sample(sorted(families), min(2, len(families)))
        positives = [("identical", gold), *((f, rng.choice(families[f])) for f in chosen)]
        for family, text in positives:
            template, response = wrap(text, rng)
            add(source, gold, response, 1, family, template)
        negatives = near_misses(gold, rng)
        if negatives:
            family, text = rng.choice(negatives)
            if _surely_different(gold, text):
                template, response = wrap(text, rng)
                add(source, gold, response, 0, family, template)
        other = rng.choice(all_golds)
        if other.strip() != gold.strip() and _surely_different(gold, other):
            template, response = wrap(other, rng)
            add(source, gold, response, 0, "other_problem_answer", template)
            if rng.random() < 0.3:
                family, response = rng.choice(hacks(gold, other))
                add(source, gold, response, 0, family, "hack")
    rows = _jsonl(data / "gsm8k" / "example_model_solutions.jsonl")
    truth = {
        r["question"]: r["answer"].split("####")[-1].strip() for r in _jsonl(data / "gsm8k" / "test.jsonl")
    }
    labelled = [
        (truth[r["question"]], r[k]["solution"], int(bool(r[k]["is_correct"])))
        for r in rows
        if r["question"] in truth
        for k in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")
    ]
    for gold, solution, label in rng.sample(labelled, min(labelled_n, len(labelled))):
        add("gsm8k_gpt3_labelled", gold, solution, label, "gpt3_solution", "A:")
    return pairs


def _surely_different(gold: str, other: str) -> bool:
    """Drop a generated wrong answer that might be equivalent after all (checked with sympy's numerics)."""
    # "x = 5" states the value 5: compare right-hand sides of "variable = value" answers
    gold, other = (re.sub(r"^\s*[a-zA-Z]\s*=\s*", "", t) for t in (gold, other))
    if gold.replace(" ", "") == other.replace(" ", ""):
        return False
    a, b = _sympy_cached(gold), _sympy_cached(other)
    if a is None or b is None:
        return gold.replace(" ", "") != other.replace(" ", "")
    try:
        import sympy

        if a.free_symbols or b.free_symbols:
            return sympy.simplify(a - b) != 0
    except Exception:
        return False
    x, y = _num_value(a), _num_value(b)
    return x is not None and y is not None and abs(x - y) > 1e-6 * max(1.0, abs(x))


# ---------------------------------------------------------------------------------------------------------
# verifiers


def run_math_equiv(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from rewardloop.scorers.math_equiv import MathEquivScorer
    from rewardloop.types import Sample

    scorer = MathEquivScorer()
    scorer.score(Sample(response="\\boxed{x+1}", ground_truth="1+x"))  # pay lazy imports once
    out = []
    for p in pairs:
        sample = Sample(response=p["response"], ground_truth=p["ground_truth"])
        t0 = time.perf_counter()
        score = scorer.quick(sample) or scorer.score(sample)
        dt = time.perf_counter() - t0
        out.append({"correct": score.value == 1.0, "seconds": dt, "stage": score.info.get("stage")})
    return out


def run_math_verify(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    def check(response: str, gt: str) -> bool:
        gold = parse("\\boxed{" + gt + "}", [LatexExtractionConfig()])
        pred = parse(response, [ExprExtractionConfig(), LatexExtractionConfig()])
        return bool(gold) and any(verify(g, x) for g in gold for x in pred)

    check("\\boxed{x+1}", "1+x")
    out = []
    for p in pairs:
        t0 = time.perf_counter()
        try:
            ok, err = check(p["response"], p["ground_truth"]), None
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            ok, err = False, type(exc).__name__
        out.append({"correct": ok, "seconds": time.perf_counter() - t0, "error": err})
    return out


def run_verl(name: str, pairs: list[dict[str, Any]], tmp: Path, timeout: float) -> list[dict[str, Any]] | str:
    if not VERL_PYTHON.exists():
        return f"skipped: {VERL_PYTHON} not found"
    inp, outp = tmp / "pairs.jsonl", tmp / f"{name}.jsonl"
    if not inp.exists():
        with open(inp, "w", encoding="utf-8") as fh:
            for p in pairs:
                fh.write(json.dumps({k: p[k] for k in ("id", "response", "ground_truth")}) + "\n")
    cmd = [str(VERL_PYTHON), str(REPO / "bench" / "_verifier_verl.py"), "--scorer", name]
    cmd += ["--input", str(inp), "--output", str(outp), "--timeout", str(timeout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return f"failed: {proc.stderr[-500:]}"
    rows = {r["id"]: r for r in (json.loads(x) for x in outp.read_text().splitlines() if x.strip())}
    return [rows[p["id"]] for p in pairs]


def verl_version() -> str | None:
    if not VERL_PYTHON.exists():
        return None
    proc = subprocess.run(
        [str(VERL_PYTHON), "-c", "import verl; print(verl.__version__)"], capture_output=True, text=True
    )
    return proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 and proc.stdout.strip() else None


# ---------------------------------------------------------------------------------------------------------
# metrics


def metrics(pairs: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    tp = fp = tn = fn = 0
    for p, v in zip(pairs, verdicts, strict=True):
        if p["label"]:
            tp, fn = tp + v["correct"], fn + (not v["correct"])
        else:
            fp, tn = fp + v["correct"], tn + (not v["correct"])
    seconds = sum(v["seconds"] for v in verdicts)
    n = len(pairs)
    return {
        "n": n,
        "accuracy": (tp + tn) / n if n else None,
        "fpr": fp / (fp + tn) if fp + tn else None,
        "fnr": fn / (fn + tp) if fn + tp else None,
        "tp": tp,
        "fp": fp,
        "tn": tn,
        "fn": fn,
        "errors": sum(1 for v in verdicts if v.get("error")),
        "throughput_per_s": n / seconds if seconds else None,
        "p50_ms": sorted(v["seconds"] for v in verdicts)[n // 2] * 1000 if n else None,
    }


def _subset(pairs, verdicts, keep) -> dict[str, Any]:
    ix = [i for i, p in enumerate(pairs) if keep(p)]
    sub = metrics([pairs[i] for i in ix], [verdicts[i] for i in ix])
    return {k: sub[k] for k in ("n", "accuracy", "fpr", "fnr")}


def by_group(pairs, verdicts, key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        groups[p[key]].append(i)
    return {
        g: {
            "n": len(ix),
            "accuracy": sum(verdicts[i]["correct"] == bool(pairs[i]["label"]) for i in ix) / len(ix),
        }
        for g, ix in sorted(groups.items())
    }


def _fmt(x: float | None, pct: bool = True) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.2f}%" if pct else f"{x:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--math500-n", type=int, default=100, help="MATH-500 problems sampled (default 100)")
    parser.add_argument("--math-n", type=int, default=100, help="MATH test problems sampled (default 100)")
    parser.add_argument("--gsm-n", type=int, default=60, help="GSM8K test problems sampled (default 60)")
    parser.add_argument(
        "--labelled-n", type=int, default=300, help="labelled GPT-3 GSM8K solutions (default 300)"
    )
    parser.add_argument(
        "--verl-timeout", type=float, default=10.0, help="per-sample limit for verl scorers (s)"
    )
    parser.add_argument("--skip-verl", action="store_true")
    parser.add_argument("--output", default=str(RESULTS / "verifier.json"))
    parser.add_argument("--dump-disagreements", default=None, help="write misjudged math_equiv pairs here")
    args = parser.parse_args()
    data = data_dir()
    if data is None:
        print("../shared/data not found: nothing to benchmark", file=sys.stderr)
        return 1
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    pairs = build_pairs(data, args.seed, args.math500_n, args.math_n, args.gsm_n, args.labelled_n)
    build_s = time.perf_counter() - t0
    print(
        f"{len(pairs)} pairs ({Counter(p['label'] for p in pairs)}) built in {build_s:.1f}s", file=sys.stderr
    )
    verdicts: dict[str, Any] = {}
    verdicts["math_equiv"] = run_math_equiv(pairs)
    print("math_equiv done", file=sys.stderr)
    verdicts["math_verify"] = run_math_verify(pairs)
    print("math_verify done", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("math_reward", "math_dapo", "prime_math"):
            if args.skip_verl:
                verdicts[f"verl_{name}"] = "skipped: --skip-verl"
                continue
            verdicts[f"verl_{name}"] = run_verl(name, pairs, Path(tmp), args.verl_timeout)
            print(f"verl {name} done", file=sys.stderr)
    results: dict[str, Any] = {}
    for name in VERIFIERS:
        v = verdicts[name]
        if isinstance(v, str):
            results[name] = {"status": v}
            continue
        results[name] = {
            **metrics(pairs, v),
            "by_source": by_group(pairs, v, "source"),
            "by_family": by_group(pairs, v, "family"),
            "by_template": by_group(pairs, v, "template"),
            "without_hacks": _subset(pairs, v, lambda p: not p["family"].startswith("hack_")),
            "boxed_only": _subset(
                pairs, v, lambda p: p["template"] in ("box_end", "box_then_text", "reference")
            ),
            "labelled_gpt3": _subset(pairs, v, lambda p: p["source"] == "gsm8k_gpt3_labelled"),
        }
    if args.dump_disagreements:
        with open(args.dump_disagreements, "w", encoding="utf-8") as fh:
            for p, v in zip(pairs, verdicts["math_equiv"], strict=True):
                if v["correct"] != bool(p["label"]):
                    fh.write(json.dumps({**p, "stage": v["stage"]}) + "\n")
    import importlib.metadata as md

    report = {
        "benchmark": "verifier",
        "pairs": len(pairs),
        "labels": dict(Counter(str(p["label"]) for p in pairs)),
        "sources": dict(Counter(p["source"] for p in pairs)),
        "families": dict(Counter(p["family"] for p in pairs)),
        "args": vars(args),
        "versions": {
            "python": platform.python_version(),
            "rewardloop": md.version("rewardloop"),
            "math_verify": md.version("math-verify"),
            "sympy": md.version("sympy"),
            "verl": verl_version(),
        },
        "machine": {"cpus": os.cpu_count(), "loadavg_start": load0, "loadavg_end": os.getloadavg()[0]},
        "results": results,
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
    print(table(results, len(pairs)))
    return 0


def table(results: dict[str, Any], n: int) -> str:
    base = results.get("math_verify", {}).get("throughput_per_s")
    lines = [
        f"Verifier benchmark: {n} labelled pairs",
        "",
        "| verifier | accuracy | FPR | FNR | errors | throughput (/s) | vs Math-Verify "
        "| acc. without hacks | acc. boxed responses only | acc. GPT-3 labelled |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        if "status" in r:
            lines.append(f"| {name} | {r['status']} | | | | | | | | |")
            continue
        ratio = f"{r['throughput_per_s'] / base:.2f}x" if base and r["throughput_per_s"] else "-"
        lines.append(
            f"| {name} | {_fmt(r['accuracy'])} | {_fmt(r['fpr'])} | {_fmt(r['fnr'])} | {r['errors']} | "
            f"{_fmt(r['throughput_per_s'], pct=False)} | {ratio} | {_fmt(r['without_hacks']['accuracy'])} | "
            f"{_fmt(r['boxed_only']['accuracy'])} | {_fmt(r['labelled_gpt3']['accuracy'])} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
