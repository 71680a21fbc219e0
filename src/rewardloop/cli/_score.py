"""``rewardloop score`` and ``rewardloop list``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._io import read_rows, write_rows
from .._summary import format_table, summarize
from ..errors import ConfigError, InvalidSampleError, UnknownTaskError
from ..scorers._base import Scorer
from ..scorers._registry import ROUTES, SCORERS, register_route, resolve_scorer
from ..types import Sample, Score, Status


def _parse_routes(specs: list[str], prefix: bool) -> None:
    for spec in specs:
        task, sep, scorer = spec.partition("=")
        if not sep or not task or not scorer:
            flag = "--route-prefix" if prefix else "--route"
            raise ConfigError(f"{flag} expects TASK=SCORER, got {spec!r}")
        register_route(task, scorer, prefix=prefix)


def _custom_scorer(args: argparse.Namespace) -> Scorer | None:
    if not args.custom_function:
        return None
    from .._loader import split_function_spec
    from ..integrations.verl import CustomFunctionScorer, load_custom_function

    if args.reward_kwargs is not None and not isinstance(args.reward_kwargs, dict):
        raise ConfigError("--reward-kwargs must be a JSON object")
    path, name = split_function_spec(args.custom_function)
    return CustomFunctionScorer(load_custom_function(path, name, args.reward_kwargs), name=name)


def _prepare(rows: list[dict[str, Any]], args: argparse.Namespace, custom: Scorer | None):
    """Pair each row with (scorer, sample), or with the failure Score that row already earned."""
    from ..integrations.verl import sample_from_row

    pairs: list[tuple[Scorer, Sample]] = []
    slots: list[int | Score] = []
    for row in rows:
        try:
            sample = sample_from_row(row, args.response_key)
            scorer = custom or resolve_scorer(sample.task)
        except (InvalidSampleError, UnknownTaskError) as exc:
            slots.append(Score.failure(Status.INVALID_INPUT, str(exc)))
            continue
        slots.append(len(pairs))
        pairs.append((scorer, sample))
    return pairs, slots


def run_score(args: argparse.Namespace) -> int:
    from ..execution._runner import Runner

    _parse_routes(args.route, prefix=False)
    _parse_routes(args.route_prefix, prefix=True)
    custom = _custom_scorer(args)
    rows = read_rows(args.input)
    pairs, slots = _prepare(rows, args, custom)

    # the CLI writes failures as rows with their status, so the runner never raises (on_error=None)
    options = {"workers": args.workers, "timeout_s": args.timeout, "on_error": None}
    runner: Any
    if getattr(args, "ray", False):
        from ..execution._ray import RayRunner

        runner = RayRunner(num_actors=args.ray_actors, address=args.ray_address, **options)
    else:
        if getattr(args, "ray_address", None) is not None:
            raise ConfigError("--ray-address needs --ray")
        runner = Runner(**options)

    progress = None
    if not args.no_progress:
        from tqdm import tqdm

        progress = tqdm(total=len(pairs), file=sys.stderr, unit="sample", desc="scoring", dynamic_ncols=True)
    try:
        batch = runner.run_sync(
            [scorer for scorer, _ in pairs],
            [sample for _, sample in pairs],
            on_done=(lambda _i: progress.update(1)) if progress is not None else None,
        )
        scored = list(batch)
    finally:
        runner.close()
        if progress is not None:
            progress.close()

    scores = [scored[s] if isinstance(s, int) else s for s in slots]
    timing = [
        (batch.queue_s[s], batch.exec_s[s]) if isinstance(s, int) and batch.exec_s else (None, None)
        for s in slots
    ]
    out_rows = [
        _scored_row(row, score, args.on_error, t) for row, score, t in zip(rows, scores, timing, strict=True)
    ]
    if args.output:
        write_rows(args.output, out_rows)
    tasks = [
        str(row.get("data_source")) if isinstance(row, dict) and "data_source" in row else "(none)"
        for row in rows
    ]
    summaries = summarize(zip(tasks, scores, strict=True))
    print(format_table(summaries))
    if args.summary_json:
        with open(args.summary_json, "w", encoding="utf-8") as fh:
            json.dump([s.as_dict() for s in summaries], fh, indent=2)
    return 0


def _scored_row(
    row: dict[str, Any],
    score: Score,
    on_error: float | None,
    timing: tuple[float | None, float | None] = (None, None),
) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if not k.startswith("_")} if "_error" in row else dict(row)
    out["score"] = score.reward(on_error)
    out["status"] = score.status.value
    out["metrics"] = dict(score.metrics)
    out["info"] = dict(score.info)
    out["error"] = score.info.get("error") if not score.ok else None
    out["queue_s"], out["exec_s"] = timing  # seconds waiting / executing (null for rows never scored)
    return out


def run_list(args: argparse.Namespace) -> int:
    scorers = []
    for name in SCORERS.names():
        try:
            target = SCORERS.get(name)  # the class: some scorers need options (a server address) to build
            cls = target if isinstance(target, type) else type(target)
            doc = (cls.__doc__ or "").strip().splitlines()
            scorers.append(
                {
                    "name": name,
                    "execution": getattr(cls, "execution", "?"),
                    "timeout_s": getattr(cls, "timeout_s", None),
                    "description": doc[0] if doc else "",
                }
            )
        except Exception as exc:  # a broken plug-in must not hide the others
            scorers.append(
                {"name": name, "execution": "?", "timeout_s": None, "description": f"unavailable: {exc}"}
            )
    routes = [
        {"data_source": r.pattern + ("*" if r.prefix else ""), "scorer": r.scorer, "options": dict(r.options)}
        for r in ROUTES.routes()
    ]
    if args.json:
        print(json.dumps({"scorers": scorers, "routes": routes}, indent=2))
        return 0
    print("Scorers:")
    width = max(len(s["name"]) for s in scorers)
    for s in scorers:
        timeout = f"{s['timeout_s']:g}s" if s["timeout_s"] else "-"
        print(f"  {s['name'].ljust(width)}  {s['execution']:<8} {timeout:>5}  {s['description']}")
    print("\nRouting table (data_source -> scorer; * = prefix):")
    width = max(len(r["data_source"]) for r in routes)
    for r in routes:
        opts = f"  {r['options']}" if r["options"] else ""
        print(f"  {r['data_source'].ljust(width)}  {r['scorer']}{opts}")
    return 0
