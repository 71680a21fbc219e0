"""``check``: the reward-function checklist as a command, run against a dataset (and optionally a function).

For a dataset in verl's layout, and either the routing table (``default_compute_score``) or a verl-style
custom ``compute_score``, :func:`check_dataset` verifies:

``layout``       every row has ``data_source`` and ``reward_model.ground_truth`` where scorers read them; a
                 ground truth found elsewhere (``answer`` at the top level, ``extra_info.ground_truth`` ...) is
                 named with where it should go.
``routing``      every ``data_source`` routes to a scorer (skipped with a custom function, which gets every row).
``ground_truth`` the scorer accepts each ground truth (no ``invalid_input`` / ``parse_error`` when it scores
                 the reference answer).
``reference``    a response built from the ground truth (``\\boxed{}``, ``#### n``, ``Answer: x``,
                 ``<answer>x</answer>``, the reference solution of code rows, or a ``--reference-key``
                 column) is judged correct.
``penalties``    an empty, a garbage, an overlong and a truncated (unparsable) response each get a reward
                 without failing, lower than the correct answer's, and the same reward on every row of a
                 data source.
``returns``      the function returns a number or a dict with a numeric ``score``, with the same dict keys
                 on every call (verl builds its extra-info columns from the first sample's keys).
``determinism``  scoring every probe again gives identical rewards and statuses.
``speed``        the median execution time per sample is within ``time_budget_s`` (default 1 s; 5 s for sandboxed
                 code and worker-process scorers) and nothing timed out.
``extra_info``   rows carry an ``extra_info`` dict with ``split`` and ``index`` (a warning, not a failure).
``rollouts``     with ``response_key``: the dataset's own responses score without failures.

Only the first ``max_rows`` rows (spread over the data sources) are scored; layout and routing look at
every row. Each call runs under the runner's deadline (``timeout_s``), so a hanging function fails
``speed`` instead of hanging the check.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import UnknownTaskError
from ..scorers import Scorer, coerce_score
from ..types import Sample, Score, Status

__all__ = ["CheckReport", "CheckResult", "check_dataset", "reference_responses"]

Verdict = Literal["pass", "warn", "fail", "skip"]
_MISPLACED = ("ground_truth", "answer", "answers", "solution", "label", "target", "golden_answers")
_GARBAGE = "qwe ]]}} \x00 ∑∫ ### {{ \\frac{ <tag> ... ??? 🙂 \\\\ \t asdf 0x1F"
_UNPARSABLE = "Let me work this out.\nThe final answer is \\boxed{\\frac{3}{"
_MAX_EXAMPLES = 5
INLINE_BUDGET_S = 1.0
ISOLATED_BUDGET_S = 5.0


@dataclass(frozen=True)
class CheckResult:
    """One line of the report: ``status`` is ``pass``, ``warn``, ``fail`` or ``skip``."""

    name: str
    status: Verdict
    summary: str
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckReport:
    """All checks of one run; ``ok`` is False when any check failed."""

    checks: tuple[CheckResult, ...]
    rows: int
    scored_rows: int
    data_sources: Mapping[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def get(self, name: str) -> CheckResult:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rows": self.rows,
            "scored_rows": self.scored_rows,
            "data_sources": dict(self.data_sources),
            "checks": [
                {"name": c.name, "status": c.status, "summary": c.summary, "examples": list(c.examples)}
                for c in self.checks
            ],
        }


# ----------------------------------------------------------------------------------------------------
# rows


@dataclass
class _Row:
    index: int
    data_source: Any
    ground_truth: Any = None
    has_ground_truth: bool = False
    extra_info: Any = None
    response: Any = None
    reference: Any = None
    problem: str | None = None  # why the row cannot be scored


def _literal(value: Any) -> Any:
    if isinstance(value, str) and value[:1] == "{":
        import ast
        import json

        for parse in (json.loads, ast.literal_eval):
            try:
                return parse(value)
            except (ValueError, SyntaxError):
                continue
    return value


def _parse_row(
    index: int, row: Mapping[str, Any], response_key: str | None, reference_key: str | None
) -> _Row:
    out = _Row(index=index, data_source=row.get("data_source"))
    out.extra_info = _literal(row.get("extra_info"))
    out.response = row.get(response_key) if response_key else None
    out.reference = row.get(reference_key) if reference_key else None
    reward_model = _literal(row.get("reward_model"))
    if isinstance(reward_model, Mapping) and "ground_truth" in reward_model:
        out.ground_truth = reward_model["ground_truth"]
        out.has_ground_truth = True
    if not isinstance(out.data_source, str) or not out.data_source:
        out.problem = f"row {index}: 'data_source' is {out.data_source!r}, not a non-empty string"
    elif not out.has_ground_truth:
        out.problem = f"row {index}: no reward_model.ground_truth" + _misplaced_hint(
            row, reward_model, out.extra_info
        )
    elif out.ground_truth is None or (
        isinstance(out.ground_truth, str | list | dict) and not out.ground_truth
    ):
        out.problem = f"row {index}: reward_model.ground_truth is empty ({out.ground_truth!r})"
    return out


def _misplaced_hint(row: Mapping[str, Any], reward_model: Any, extra_info: Any) -> str:
    places = [("the top level", row)]
    if isinstance(reward_model, Mapping):
        places.append(("reward_model", reward_model))
    if isinstance(extra_info, Mapping):
        places.append(("extra_info", extra_info))
    for where, mapping in places:
        for key in _MISPLACED:
            if key in mapping and not (where == "the top level" and key == "reward_model"):
                return f"; found {key!r} in {where}: move it to reward_model.ground_truth"
    return f"; row fields: {sorted(map(str, row))}"


def _pick(rows: list[_Row], max_rows: int) -> list[_Row]:
    """Up to ``max_rows`` scorable rows, taken round-robin over data sources so every source is covered."""
    groups: dict[Any, list[_Row]] = defaultdict(list)
    for r in rows:
        if r.problem is None:
            groups[r.data_source].append(r)
    picked: list[_Row] = []
    queues = [list(g) for g in groups.values()]
    while len(picked) < max_rows and any(queues):
        for q in queues:
            if q and len(picked) < max_rows:
                picked.append(q.pop(0))
    return sorted(picked, key=lambda r: r.index)


# ----------------------------------------------------------------------------------------------------
# probes


def _answer_text(ground_truth: Any) -> str | None:
    if isinstance(ground_truth, Mapping):
        target = ground_truth.get("target")
        return _answer_text(target) if target is not None else None
    if isinstance(ground_truth, list | tuple):
        return _answer_text(ground_truth[0]) if ground_truth else None
    if hasattr(ground_truth, "tolist"):  # numpy arrays from parquet
        return _answer_text(ground_truth.tolist())
    if isinstance(ground_truth, bool | int | float | str):
        text = str(ground_truth).strip()
        return text if text and not text.startswith("{") else None
    return None


def reference_responses(ground_truth: Any, extra_info: Any = None) -> list[str]:
    """Responses that state the ground truth in every answer format the built-in scorers read.

    Code rows (a reference solution in ``extra_info``: ``reference_solution``, ``canonical_solution`` or
    ``solution``) give that program in a fenced block. Empty when no reference can be built.
    """
    out: list[str] = []
    if isinstance(extra_info, Mapping):
        for key in ("reference_solution", "canonical_solution"):
            code = extra_info.get(key)
            if isinstance(code, str) and code.strip():
                out.append(f"```python\n{code}\n```")
    answer = _answer_text(ground_truth)
    if answer is not None:
        out += [
            f"<think>Working it out.</think> The answer is \\boxed{{{answer}}}.",
            f"Working it out.\n#### {answer}",
            f"Working it out.\nAnswer: {answer}",
            f"<think>Working it out.</think> <answer>{answer}</answer>",
            answer,
        ]
    return out


def _penalty_probes(overlong_chars: int) -> dict[str, str]:
    filler = "Let me think about this step by step. "
    return {
        "empty": "",
        "garbage": _GARBAGE,
        "overlong": filler * max(1, overlong_chars // len(filler)),
        "unparsable": _UNPARSABLE,
    }


@dataclass
class _Probe:
    row: _Row
    kind: str  # "reference", "empty", "garbage", "overlong", "unparsable", "rollout"
    response: str
    scorer: Scorer


# ----------------------------------------------------------------------------------------------------
# custom functions: remember what the function returned


def _describe(result: Any) -> str:
    if isinstance(result, Mapping):
        return "dict[" + ",".join(sorted(map(str, result))) + "]"
    return type(result).__name__


class _ProbedFunction(Scorer):
    """A verl-style ``compute_score`` as a scorer that records the kind of value it returned."""

    execution = "thread"
    deterministic = False  # the check repeats calls on purpose: never de-duplicate or cache

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self.fn = fn
        self.name = name  # type: ignore[misc]

    def score(self, sample: Sample) -> Score:
        result = self.fn(
            data_source=sample.task,
            solution_str=sample.response,
            ground_truth=sample.ground_truth,
            extra_info=sample.metadata_copy(),
        )
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
        score = coerce_score(result, source=f"custom reward function {self.name!r}")
        return Score(score.value, score.status, score.metrics, {**score.info, "returned": _describe(result)})


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _load_function(
    spec: str | Callable[..., Any], reward_kwargs: Mapping[str, Any] | None
) -> _ProbedFunction:
    if callable(spec):
        return _ProbedFunction(spec, getattr(spec, "__name__", "custom"))
    from .._loader import split_function_spec
    from ..integrations.verl import load_custom_function

    path, name = split_function_spec(spec)
    return _ProbedFunction(load_custom_function(path, name, reward_kwargs), name)


# ----------------------------------------------------------------------------------------------------
# the checks


def check_dataset(
    data: str | os.PathLike[str] | Sequence[Mapping[str, Any]],
    *,
    custom_function: str | Callable[..., Any] | None = None,
    reward_kwargs: Mapping[str, Any] | None = None,
    response_key: str | None = None,
    reference_key: str | None = None,
    max_rows: int = 20,
    repeats: int = 2,
    timeout_s: float = 10.0,
    time_budget_s: float | None = None,
    overlong_chars: int = 20_000,
    workers: int = 2,
) -> CheckReport:
    """Run every check (see the module docstring) and return the report; never raises for a failed check.

    ``data``: a JSONL / JSON / CSV / Parquet path or a list of rows. ``custom_function``: ``"file.py:name"``
    or a callable with verl's ``compute_score`` signature (default: the routing table). ``repeats``: how
    many times every probe is scored (>= 2 for the determinism check). ``time_budget_s``: median
    seconds allowed per sample (default: 5 s for sandboxed code and worker-process scorers, else 1 s).
    """
    if isinstance(data, str | os.PathLike):
        from ._prepare import read_table

        raw = read_table(data)
    else:
        raw = [dict(r) for r in data]
    rows = [_parse_row(i, r, response_key, reference_key) for i, r in enumerate(raw)]
    custom = _load_function(custom_function, reward_kwargs) if custom_function is not None else None
    sources = Counter(r.data_source if isinstance(r.data_source, str) else repr(r.data_source) for r in rows)

    checks = [_check_layout(rows)]
    routing, scorers = _check_routing(rows, custom)
    checks.append(routing)
    picked = [r for r in _pick(rows, max_rows) if r.data_source in scorers]
    probes = _build_probes(picked, scorers, overlong_chars)
    runs = _score(probes, repeats, timeout_s, workers)
    first = runs[0] if runs else []
    checks += [
        _check_ground_truth(probes, first),
        _check_reference(probes, first, picked),
        _check_penalties(probes, first),
        _check_returns(probes, first, custom),
        _check_determinism(probes, runs),
        _check_speed(probes, runs, time_budget_s, timeout_s),
        _check_extra_info(rows),
    ]
    if response_key:
        checks.append(_check_rollouts(rows, probes, first, response_key))
    return CheckReport(tuple(checks), rows=len(rows), scored_rows=len(picked), data_sources=dict(sources))


def _examples(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(items[:_MAX_EXAMPLES])


def _check_layout(rows: list[_Row]) -> CheckResult:
    bad = [r.problem for r in rows if r.problem]
    if not rows:
        return CheckResult("layout", "fail", "the dataset has no rows")
    if bad:
        return CheckResult(
            "layout", "fail", f"{len(bad)} of {len(rows)} rows cannot be scored", _examples(bad)
        )
    return CheckResult("layout", "pass", f"{len(rows)} rows with data_source and reward_model.ground_truth")


def _check_routing(rows: list[_Row], custom: Scorer | None) -> tuple[CheckResult, dict[Any, Scorer]]:
    names = sorted({r.data_source for r in rows if isinstance(r.data_source, str) and r.data_source})
    if custom is not None:
        summary = f"custom function {custom.name!r} scores every data_source ({len(names)})"
        return CheckResult("routing", "skip", summary), dict.fromkeys(names, custom)
    from ..scorers import resolve_scorer

    scorers: dict[Any, Scorer] = {}
    unrouted: dict[str, str] = {}
    for name in names:
        try:
            scorers[name] = resolve_scorer(name)
        except UnknownTaskError as exc:
            unrouted[name] = str(exc)
    counts = Counter(r.data_source for r in rows)
    if unrouted:
        examples = [f"{name!r} ({counts[name]} rows): no scorer" for name in unrouted]
        hint = next(iter(unrouted.values()))
        examples.append(hint.split(". ", 1)[-1] + " Or pass --custom-function.")
        return CheckResult(
            "routing", "fail", f"{len(unrouted)} data_source(s) have no scorer", _examples(examples)
        ), scorers
    routed = ", ".join(f"{n} -> {s.name}" for n, s in scorers.items())
    return CheckResult("routing", "pass", routed or "no data sources"), scorers


def _build_probes(picked: list[_Row], scorers: Mapping[Any, Scorer], overlong_chars: int) -> list[_Probe]:
    penalties = _penalty_probes(overlong_chars)
    probes: list[_Probe] = []
    for row in picked:
        scorer = scorers[row.data_source]
        refs = ([row.reference] if isinstance(row.reference, str) else []) + reference_responses(
            row.ground_truth, row.extra_info
        )
        probes += [_Probe(row, "reference", text, scorer) for text in refs]
        probes += [_Probe(row, kind, text, scorer) for kind, text in penalties.items()]
        if isinstance(row.response, str):
            probes.append(_Probe(row, "rollout", row.response, scorer))
    return probes


def _score(
    probes: list[_Probe], repeats: int, timeout_s: float, workers: int
) -> list[list[tuple[Score, float]]]:
    """Score every probe ``repeats`` times: a list of runs, each ``(score, exec_s)`` per probe."""
    if not probes:
        return []
    from ..execution import Runner

    samples = [
        Sample(
            response=p.response,
            ground_truth=p.row.ground_truth,
            task=p.row.data_source,
            metadata=p.row.extra_info if isinstance(p.row.extra_info, Mapping) else {},
        )
        for p in probes
    ]
    runs = []
    with Runner(
        dedup=False, cache_size=0, on_error=None, timeout_s=timeout_s, workers=workers, retries=0
    ) as runner:
        for _ in range(max(1, repeats)):
            batch = runner.run_sync([p.scorer for p in probes], samples)
            exec_s = batch.exec_s or (0.0,) * len(batch)
            runs.append(list(zip(batch, exec_s, strict=True)))
    return runs


def _where(p: _Probe) -> str:
    return f"row {p.row.index} ({p.row.data_source})"


def _grouped(items: Sequence[tuple[_Probe, str]]) -> list[str]:
    """One line per distinct (data source, message), naming every row it happened on, in first-seen order."""
    rows: dict[tuple[Any, str], list[int]] = {}
    for p, message in items:
        seen = rows.setdefault((p.row.data_source, message), [])
        if p.row.index not in seen:
            seen.append(p.row.index)
    lines = []
    for (source, message), indices in rows.items():
        shown = ", ".join(map(str, indices[:8])) + (", ..." if len(indices) > 8 else "")
        lines.append(f"{'rows' if len(indices) > 1 else 'row'} {shown} ({source}): {message}")
    return lines


def _check_ground_truth(probes: list[_Probe], first: list[tuple[Score, float]]) -> CheckResult:
    if not probes:
        return CheckResult("ground_truth", "skip", "no scorable rows")
    bad: dict[int, str] = {}
    rows = set()
    for p, (s, _) in zip(probes, first, strict=True):
        rows.add(p.row.index)
        if p.kind == "reference" and s.status in (Status.INVALID_INPUT, Status.PARSE_ERROR):
            bad.setdefault(p.row.index, f"{_where(p)}: {s.status.value}: {s.info.get('error')}")
    if bad:
        return CheckResult(
            "ground_truth",
            "fail",
            f"the scorer rejects the ground truth of {len(bad)} of {len(rows)} rows",
            _examples(list(bad.values())),
        )
    return CheckResult("ground_truth", "pass", f"the scorer accepts the ground truth of all {len(rows)} rows")


def _is_correct(score: Score) -> bool:
    from .._summary import is_correct

    return bool(is_correct(score))


def _check_reference(
    probes: list[_Probe], first: list[tuple[Score, float]], picked: list[_Row]
) -> CheckResult:
    if not picked:
        return CheckResult("reference", "skip", "no scorable rows")
    correct: set[int] = set()
    tried: dict[int, list[str]] = defaultdict(list)
    for p, (s, _) in zip(probes, first, strict=True):
        if p.kind != "reference":
            continue
        if _is_correct(s):
            correct.add(p.row.index)
        else:
            shown = s.value if s.ok else s.status.value
            tried[p.row.index].append(f"{p.response[:40]!r} -> {shown}")
    no_reference = [r for r in picked if r.index not in tried and r.index not in correct]
    wrong = [r for r in picked if r.index in tried and r.index not in correct]
    examples = [f"row {r.index} ({r.data_source}): tried " + "; ".join(tried[r.index][:3]) for r in wrong]
    examples += [f"row {r.index} ({r.data_source}): no reference answer could be built" for r in no_reference]
    if wrong:
        return CheckResult(
            "reference",
            "fail",
            f"the reference answer is not judged correct on {len(wrong)} of {len(picked)} rows",
            _examples(examples),
        )
    if no_reference:
        return CheckResult(
            "reference",
            "warn",
            f"{len(no_reference)} of {len(picked)} rows have no buildable reference",
            _examples(examples),
        )
    return CheckResult(
        "reference", "pass", f"the reference answer scores as correct on all {len(picked)} rows"
    )


def _best_reference(probes: list[_Probe], first: list[tuple[Score, float]]) -> dict[int, float]:
    best: dict[int, float] = {}
    for p, (s, _) in zip(probes, first, strict=True):
        if p.kind == "reference" and s.ok and _is_correct(s):
            best[p.row.index] = max(best.get(p.row.index, -math.inf), float(s.value))  # type: ignore[arg-type]
    return best


def _check_penalties(probes: list[_Probe], first: list[tuple[Score, float]]) -> CheckResult:
    kinds = ("empty", "garbage", "overlong", "unparsable")
    if not probes:
        return CheckResult("penalties", "skip", "no scorable rows")
    best = _best_reference(probes, first)
    found: list[tuple[_Probe, str]] = []
    values: dict[tuple[Any, str], set[float]] = defaultdict(set)
    for p, (s, _) in zip(probes, first, strict=True):
        if p.kind not in kinds:
            continue
        if not s.ok:
            found.append((p, f"{p.kind} response -> {s.status.value}: {s.info.get('error')}"))
            continue
        value = float(s.value)  # type: ignore[arg-type]
        if not math.isfinite(value):
            found.append((p, f"{p.kind} response -> {value}"))
            continue
        values[(p.row.data_source, p.kind)].add(value)
        if p.row.index in best and value >= best[p.row.index]:
            found.append((p, f"{p.kind} response gets {value:g}, as much as the correct answer"))
    problems = _grouped(found)
    unstable = [
        f"{src}: {kind} responses get {', '.join(f'{x:g}' for x in sorted(v))} on different rows"
        for (src, kind), v in values.items()
        if len(v) > 1
    ]
    if problems or unstable:
        return CheckResult(
            "penalties",
            "fail",
            f"{len(found) + len(unstable)} unstable or missing penalties",
            _examples(problems + unstable),
        )
    shown = ", ".join(
        f"{kind}={sorted(v)[0]:g}" for (src, kind), v in sorted(values.items(), key=str)[: len(kinds)]
    )
    return CheckResult("penalties", "pass", f"stable penalties ({shown})")


def _check_returns(
    probes: list[_Probe], first: list[tuple[Score, float]], custom: Scorer | None
) -> CheckResult:
    if custom is None:
        return CheckResult("returns", "pass", "built-in scorers return verl's float / dict-with-score")
    if not probes:
        return CheckResult("returns", "skip", "no scorable rows")
    bad: list[tuple[_Probe, str]] = []
    kinds: Counter[str] = Counter()
    for p, (s, _) in zip(probes, first, strict=True):
        returned = s.info.get("returned")
        if returned is not None:
            kinds[returned] += 1
        if s.status is Status.SCORER_ERROR:
            bad.append((p, f"{p.kind} response: {s.info.get('error')}"))
    dict_kinds = [k for k in kinds if k.startswith("dict[")]
    if bad:
        summary = f"{len(bad)} of {len(probes)} calls raised or returned an unusable value"
        return CheckResult("returns", "fail", summary, _examples(_grouped(bad)))
    if len(dict_kinds) > 1 or (dict_kinds and len(kinds) > 1):
        shown = [f"{k} x{n}" for k, n in kinds.most_common()]
        return CheckResult(
            "returns",
            "fail",
            "the function returns different shapes (verl keys its columns on the first)",
            _examples(shown),
        )
    return CheckResult("returns", "pass", "returns " + ", ".join(sorted(kinds)))


def _check_determinism(probes: list[_Probe], runs: list[list[tuple[Score, float]]]) -> CheckResult:
    if len(runs) < 2:
        return CheckResult("determinism", "skip", "needs repeats >= 2")
    differing = []
    for i, p in enumerate(probes):
        seen = [(run[i][0].status.value, run[i][0].value) for run in runs]
        if len(set(seen)) > 1:
            differing.append(
                f"{_where(p)}: {p.kind} response -> {[v if st == 'ok' else st for st, v in seen]}"
            )
    if differing:
        return CheckResult(
            "determinism",
            "fail",
            f"{len(differing)} of {len(probes)} probes scored differently across {len(runs)} runs",
            _examples(differing),
        )
    return CheckResult("determinism", "pass", f"{len(probes)} probes identical across {len(runs)} runs")


def _budget(scorer: Scorer, budget: float | None) -> float:
    """Seconds a sample may take: the given budget, else 5 s for sandboxed (code) and worker-process
    scorers, which pay a process start or a round trip per call, and 1 s for everything else."""
    if budget is not None:
        return budget
    from ..scorers.code import CodeScorer

    isolated = isinstance(scorer, CodeScorer) or getattr(scorer, "execution", "inline") == "process"
    return ISOLATED_BUDGET_S if isolated else INLINE_BUDGET_S


def _check_speed(
    probes: list[_Probe], runs: list[list[tuple[Score, float]]], budget: float | None, timeout_s: float
) -> CheckResult:
    if not runs:
        return CheckResult("speed", "skip", "no scorable rows")
    timeouts = _grouped(
        [
            (p, f"{p.kind} response timed out after {timeout_s:g} s")
            for run in runs
            for p, (s, _) in zip(probes, run, strict=True)
            if s.status is Status.TIMEOUT
        ]
    )
    by_scorer: dict[str, list[float]] = defaultdict(list)
    limits: dict[str, float] = {}
    for run in runs:
        for p, (_, t) in zip(probes, run, strict=True):
            by_scorer[p.scorer.name].append(t)
            limits[p.scorer.name] = _budget(p.scorer, budget)
    parts, slow, over = [], [], []
    for name, times in by_scorer.items():
        p50, worst = statistics.median(times), max(times)
        parts.append(
            f"{name}: median {p50 * 1e3:.1f} ms, max {worst * 1e3:.1f} ms (budget {limits[name]:g} s)"
        )
        if p50 > limits[name]:
            slow.append(f"{name}: median {p50:.2f} s per sample is over the {limits[name]:g} s budget")
        elif worst > limits[name]:
            over.append(f"{name}: the slowest sample took {worst:.2f} s (budget {limits[name]:g} s)")
    summary = "; ".join(parts)
    if timeouts or slow:
        return CheckResult("speed", "fail", summary, _examples(timeouts + slow))
    if over:
        return CheckResult("speed", "warn", summary, _examples(over))
    return CheckResult("speed", "pass", summary)


def _check_extra_info(rows: list[_Row]) -> CheckResult:
    missing = []
    for r in rows:
        if not isinstance(r.extra_info, Mapping):
            missing.append(f"row {r.index}: extra_info is {type(r.extra_info).__name__}, not a dict")
        else:
            keys = [k for k in ("split", "index") if k not in r.extra_info]
            if keys:
                missing.append(f"row {r.index}: extra_info has no {', '.join(keys)}")
    if missing:
        return CheckResult(
            "extra_info",
            "warn",
            f"{len(missing)} of {len(rows)} rows lack extra_info fields",
            _examples(missing),
        )
    return CheckResult("extra_info", "pass", "every row has extra_info with split and index")


def _check_rollouts(
    rows: list[_Row], probes: list[_Probe], first: list[tuple[Score, float]], key: str
) -> CheckResult:
    with_response = [r for r in rows if isinstance(r.response, str)]
    if not with_response:
        return CheckResult("rollouts", "fail", f"no row has a string {key!r} column")
    failed, total = [], 0
    for p, (s, _) in zip(probes, first, strict=True):
        if p.kind == "rollout":
            total += 1
            if not s.ok:
                failed.append(f"{_where(p)}: {s.status.value}: {s.info.get('error')}")
    if failed:
        return CheckResult(
            "rollouts", "fail", f"{len(failed)} of {total} responses failed to score", _examples(failed)
        )
    return CheckResult("rollouts", "pass", f"{total} responses from {key!r} scored without failures")
