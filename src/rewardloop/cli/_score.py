"""``rewardloop score``, and the scoring pipeline that ``rewardloop rescore`` shares.

Pipeline: read rows -> expand list-valued responses (verl generation output: ``responses`` holds the n
rollouts of one prompt) into one row each, sharing a group id -> build a :class:`Sample` and pick the
scorer of each row (a custom function, or the routing table) -> run them on one Runner -> write every
row back with its score, status, provenance (scorer, fingerprint, version) and timings -> print the
summary (per data_source, GRPO groups, top errors, throughput and latency) -> exit code.

Exit codes: 0 done; 1 every row failed, or more than ``--max-failure-rate`` of them (the output is
still written); 2 a usage, configuration or output error (a failed write saves the rows elsewhere and
says where).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from .._groups import group_stats
from .._io import OutputError, read_rows, save_rows
from .._provenance import scorer_fingerprint
from .._suggest import did_you_mean, unknown_task_message
from .._summary import format_errors, format_groups, format_table, summarize, top_errors
from ..errors import ConfigError, InvalidSampleError, UnknownTaskError
from ..scorers import Scorer
from ..types import Sample, Score, Status

__all__ = ["DEFAULT_MAX_FAILURE_RATE", "SCORING_COLUMNS", "add_parser", "add_scoring_options", "run"]

DEFAULT_MAX_FAILURE_RATE = 0.1
#: the columns ``score`` adds to every row (``rescore`` drops them to get the rollouts back)
SCORING_COLUMNS = (
    "score",
    "status",
    "metrics",
    "info",
    "error",
    "queue_s",
    "exec_s",
    "scorer",
    "scorer_fingerprint",
    "rewardloop_version",
    "group_id",
    "response_index",
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a JSONL/Parquet file of rollouts in verl's dataset layout",
        description="Score every row; write them back with score, status, metrics, info, error, the scorer "
        "and its fingerprint; print per-data_source accuracy, GRPO group statistics, the top errors, "
        "throughput and latency. Exit 1 when every row failed or more than --max-failure-rate did.",
    )
    p.add_argument(
        "input", help="rows with data_source, reward_model.ground_truth, extra_info and a response column"
    )
    p.add_argument(
        "-o", "--output", help="where to write the scored rows (.jsonl or .parquet); default: none"
    )
    add_scoring_options(p)


def add_scoring_options(p: argparse.ArgumentParser) -> None:
    """The options of ``score`` that ``rescore`` shares: how rows are read, scored and judged."""
    p.add_argument(
        "--response-key",
        default="response",
        help="column holding the response text, or a list of n responses (default: response)",
    )
    p.add_argument(
        "--config",
        metavar="REWARD.yaml",
        default=None,
        help="verl's reward section (or a whole trainer config) with rewardloop's runner keys",
    )
    p.add_argument(
        "--custom-function",
        metavar="FILE.py:NAME",
        help="score with a verl-style compute_score function instead of the routing table",
    )
    p.add_argument(
        "--reward-kwargs",
        type=json.loads,
        default=None,
        metavar="JSON",
        help="JSON object of keyword arguments for the custom function (they win over call kwargs)",
    )
    p.add_argument(
        "--route",
        action="append",
        default=[],
        metavar="TASK=SCORER[:K=V,...]",
        help="route a data_source to a registered scorer, with options (e.g. openai/gsm8k=gsm8k:method=flexible)",
    )
    p.add_argument(
        "--route-prefix",
        action="append",
        default=[],
        metavar="PREFIX=SCORER[:K=V,...]",
        help="route every data_source starting with PREFIX to a scorer (repeatable)",
    )
    p.add_argument(
        "--timeout", type=float, default=None, help="per-sample deadline in seconds (default: the scorer's)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="parallel worker processes (per Ray actor with --ray; default: the config's, else 2)",
    )
    p.add_argument(
        "--execution",
        choices=("inline", "thread", "process"),
        default=None,
        help="run every sync scorer this way (process: killable worker processes; default: as each declares)",
    )
    p.add_argument("--ray", action="store_true", help="score on a pool of Ray actors (needs rewardloop[ray])")
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="Ray cluster to join (e.g. auto or host:6379; default: RAY_ADDRESS, else a new local one)",
    )
    p.add_argument(
        "--ray-actors", type=int, default=2, metavar="N", help="Ray actors to score on (default: 2)"
    )
    p.add_argument(
        "--on-error",
        type=float,
        default=None,
        help="reward written for failed samples (default: the config's runner.on_error, else null: excluded)",
    )
    p.add_argument(
        "--max-failure-rate",
        type=float,
        default=DEFAULT_MAX_FAILURE_RATE,
        metavar="R",
        help=f"exit 1 when more than this share of rows fail (default: {DEFAULT_MAX_FAILURE_RATE}); "
        "every row failing always exits 1",
    )
    p.add_argument(
        "--group-by",
        default=None,
        metavar="FIELD",
        help="GRPO group id (dotted path, e.g. uid or extra_info.index; default: uid, else extra_info.index, "
        "else the input row of a list of responses)",
    )
    p.add_argument(
        "--summary-json", help="also write the summary (tasks, groups, errors, timing) as JSON here"
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is only drawn when stderr is a terminal)",
    )


# ---------------------------------------------------------------------------------------------------------
# what scores the rows


@dataclass
class Selection:
    """The scorer choice and the runner settings of one command."""

    custom: Scorer | None
    router: Any
    routes: Any  # the command's --route / --route-prefix table, consulted before the global routing table
    runner_settings: dict[str, Any]
    ray: bool = False
    ray_actors: int = 2
    ray_address: str | None = None
    on_error: float | None = None
    _fingerprints: dict[int, str] = field(default_factory=dict)

    def scorer_for(self, sample: Sample) -> Scorer:
        if self.custom is not None:
            return self.custom
        try:
            route = self.routes.resolve(sample.task)
        except UnknownTaskError:
            return self.router.resolve(sample.task)
        from ..scorers import get_scorer

        return self.router._options(get_scorer(route.scorer, **route.options))

    def fingerprint(self, scorer: Scorer) -> str:
        key = id(scorer)
        if key not in self._fingerprints:
            self._fingerprints[key] = scorer_fingerprint(scorer)
        return self._fingerprints[key]

    def runner(self) -> Any:
        if self.ray:
            from ..execution import RayRunner

            return RayRunner(self.runner_settings, num_actors=self.ray_actors, address=self.ray_address)
        if self.ray_address is not None:
            raise ConfigError("--ray-address needs --ray")
        from ..execution import Runner

        return Runner(self.runner_settings)


def parse_scorer_spec(spec: str, where: str) -> tuple[str, dict[str, Any]]:
    """``SCORER`` or ``SCORER:K=V,K=V`` (values parsed as JSON when they parse) -> (name, options)."""
    name, _, opts = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{where}: scorer option {item!r} in {spec!r} must look like KEY=VALUE")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return name.strip(), options


def parse_routes(table: Any, specs: Sequence[str], prefix: bool) -> None:
    """Add ``TASK=SCORER[:K=V,...]`` routes to ``table`` (this command's own table: the global one is untouched)."""
    from ..scorers import Route, get_scorer

    flag = "--route-prefix" if prefix else "--route"
    for spec in specs:
        task, sep, target = spec.partition("=")
        if not sep or not task or not target:
            raise ConfigError(f"{flag} expects TASK=SCORER[:K=V,...], got {spec!r}")
        name, options = parse_scorer_spec(target, flag)
        get_scorer(name, **options)  # an unknown scorer or a bad option fails now, not once per row
        table.add(Route(task, name, options, prefix=prefix))


def build_selection(args: argparse.Namespace) -> Selection:
    """Scorer and runner from ``--config`` (verl's reward section) with the command-line flags on top."""
    from ..config import CustomFunctionConfig, load_reward_config
    from ..managers import Router, code_options, custom_function_scorer, runner_config_from
    from ..scorers import RouteTable

    routes = RouteTable()
    parse_routes(routes, args.route, prefix=False)
    parse_routes(routes, args.route_prefix, prefix=True)
    cfg = load_reward_config(args.config)
    if args.custom_function:
        from .._loader import split_function_spec

        if args.reward_kwargs is not None and not isinstance(args.reward_kwargs, dict):
            raise ConfigError("--reward-kwargs must be a JSON object")
        path, name = split_function_spec(args.custom_function)
        section = CustomFunctionConfig(path=path, name=name, reward_kwargs=dict(args.reward_kwargs or {}))
        cfg = dataclasses.replace(cfg, custom_reward_function=section)
    elif args.reward_kwargs is not None:
        raise ConfigError("--reward-kwargs needs --custom-function")
    _warn_unused(cfg)
    settings = runner_config_from(cfg)
    settings["workers"] = args.workers if args.workers is not None else settings.get("workers", 2)
    if args.timeout is not None:
        settings["timeout_s"] = args.timeout
    if args.execution is not None:
        settings["execution"] = args.execution
    on_error = args.on_error
    configured = settings.get("on_error")
    if on_error is None and isinstance(configured, int | float) and not isinstance(configured, bool):
        on_error = float(configured)
    settings["on_error"] = None  # failures stay statuses; the output applies ``on_error`` itself
    return Selection(
        custom=custom_function_scorer(cfg),
        router=Router(code_options(cfg)),
        routes=routes,
        runner_settings=settings,
        ray=bool(args.ray) or cfg.backend == "ray",
        ray_actors=args.ray_actors if args.ray else cfg.num_workers,
        ray_address=args.ray_address,
        on_error=on_error,
    )


def _warn_unused(cfg: Any) -> None:
    penalty, _ = cfg.overlong
    if penalty is not None and penalty.enable:
        print(
            "rewardloop: note: reward_kwargs.overlong_buffer_cfg is not applied by `score` (it needs token "
            "lengths); rewards are the scorers' own",
            file=sys.stderr,
        )
    if cfg.reward_model.enable:
        print(
            "rewardloop: note: reward_model.enable starts model servers in training only; route data sources "
            "to the reward_model scorer (--route NAME=reward_model:address=...,model=...) to score with one",
            file=sys.stderr,
        )


# ---------------------------------------------------------------------------------------------------------
# rows -> items


@dataclass
class Item:
    """One row to score (after expansion): the row, its task and group, and its sample or its failure."""

    row: dict[str, Any]
    task: str
    group: str | None
    sample: Sample | None = None
    scorer: Scorer | None = None
    failure: Score | None = None


def dotted(row: Any, path: str) -> Any:
    """``row['a']['b']`` for ``"a.b"`` (None when any part is missing)."""
    value = row
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _group_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def expand_rows(
    rows: Sequence[dict[str, Any]], response_key: str
) -> list[tuple[dict[str, Any], int, int | None]]:
    """``(row, input row number, response index)``: a row whose response is a list of strings (verl's
    generation output) becomes one row per string. Other lists (e.g. one chat as a list of messages) are
    left alone, and fail as malformed responses."""
    out: list[tuple[dict[str, Any], int, int | None]] = []
    for i, row in enumerate(rows):
        responses = row.get(response_key) if isinstance(row, dict) and "_error" not in row else None
        if isinstance(responses, list | tuple) and responses and all(isinstance(r, str) for r in responses):
            for j, response in enumerate(responses):
                out.append(({**row, response_key: response}, i, j))
        else:
            out.append((row, i, None))
    return out


def _group_of(row: dict[str, Any], number: int, expanded: bool, group_by: str | None) -> str | None:
    if group_by is not None:
        return _group_text(dotted(row, group_by))
    for value in (row.get("group_id"), row.get("uid"), dotted(row, "extra_info.index")):
        if value is not None:
            return _group_text(value)
    return f"row {number}" if expanded else None


def prepare(
    rows: Sequence[dict[str, Any]], response_key: str, selection: Selection, group_by: str | None
) -> list[Item]:
    """One :class:`Item` per (expanded) row, with the scorer that will score it or the failure it earned."""
    from ..integrations.verl import sample_from_row

    items = []
    for row, number, index in expand_rows(rows, response_key):
        task = str(row["data_source"]) if isinstance(row, dict) and "data_source" in row else "(none)"
        item = Item(dict(row), task, _group_of(row, number, index is not None, group_by))
        if index is not None:
            item.row["response_index"] = index
        try:
            item.sample = sample_from_row(row, response_key)
            item.scorer = selection.scorer_for(item.sample)
        except UnknownTaskError as exc:
            item.failure = Score.failure(Status.INVALID_INPUT, unknown_task_message(exc))
        except InvalidSampleError as exc:
            hint = did_you_mean(response_key, row) if response_key not in row and "_error" not in row else ""
            hint = hint.replace("did you mean", "did you mean --response-key") if hint else ""
            item.failure = Score.failure(Status.INVALID_INPUT, f"{exc}{hint}")
        items.append(item)
    return items


# ---------------------------------------------------------------------------------------------------------
# scoring


@dataclass
class Outcome:
    items: list[Item]
    scores: list[Score]
    timing: list[tuple[float | None, float | None]]
    stats: dict[str, Any]
    wall_s: float


def execute(items: list[Item], selection: Selection, progress: bool) -> Outcome:
    """Score the items that have a sample on one runner; every item ends with a :class:`Score`."""
    todo = [i for i, item in enumerate(items) if item.failure is None]
    t0 = time.perf_counter()
    bar = _progress_bar(len(todo)) if progress else None
    runner = selection.runner()
    try:
        batch = runner.run_sync(
            [items[i].scorer for i in todo],
            [items[i].sample for i in todo],
            on_done=(lambda _i: bar.update(1)) if bar is not None else None,
        )
    finally:
        runner.close()
        if bar is not None:
            bar.close()
    wall_s = time.perf_counter() - t0
    scores: list[Score] = [item.failure for item in items]  # type: ignore[misc]
    timing: list[tuple[float | None, float | None]] = [(None, None)] * len(items)
    for j, i in enumerate(todo):
        scores[i] = batch[j]
        if batch.exec_s:
            timing[i] = (batch.queue_s[j], batch.exec_s[j])
    return Outcome(items, scores, timing, dict(batch.stats), wall_s)


def _progress_bar(total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit="sample", desc="scoring", dynamic_ncols=True)


def show_progress(args: argparse.Namespace) -> bool:
    """A progress bar only on a terminal: a log file or a pipe gets no carriage-return noise."""
    return not args.no_progress and sys.stderr.isatty()


def scored_row(
    item: Item,
    score: Score,
    on_error: float | None,
    timing: tuple[Any, Any],
    fingerprint: Callable[[Scorer], str],
) -> dict[str, Any]:
    """The output row: the input fields, then the score, status, metrics, info, error, provenance, timings."""
    row = item.row
    out = {k: v for k, v in row.items() if not k.startswith("_")} if "_error" in row else dict(row)
    out["score"] = score.reward(on_error)
    out["status"] = score.status.value
    out["metrics"] = dict(score.metrics)
    out["info"] = dict(score.info)
    out["error"] = score.info.get("error") if not score.ok else None
    out["scorer"] = item.scorer.name if item.scorer is not None else None
    out["scorer_fingerprint"] = fingerprint(item.scorer) if item.scorer is not None else None
    out["rewardloop_version"] = __version__
    out["group_id"] = item.group
    out["queue_s"], out["exec_s"] = timing  # seconds waiting / executing (null for rows never scored)
    return out


def output_rows(outcome: Outcome, selection: Selection) -> list[dict[str, Any]]:
    return [
        scored_row(item, score, selection.on_error, t, selection.fingerprint)
        for item, score, t in zip(outcome.items, outcome.scores, outcome.timing, strict=True)
    ]


# ---------------------------------------------------------------------------------------------------------
# summary and exit code


def summary(outcome: Outcome, max_failure_rate: float) -> dict[str, Any]:
    """The summary as a JSON-able dict (what ``--summary-json`` writes)."""
    tasks = [item.task for item in outcome.items]
    n = len(outcome.scores)
    failed = sum(not s.ok for s in outcome.scores)
    stats = outcome.stats
    return {
        "rows": n,
        "failed": failed,
        "failure_rate": round(failed / n, 6) if n else None,
        "max_failure_rate": max_failure_rate,
        "tasks": [s.as_dict() for s in summarize(zip(tasks, outcome.scores, strict=True))],
        "groups": [
            g.as_dict()
            for g in group_stats(
                (item.task, item.group, s) for item, s in zip(outcome.items, outcome.scores, strict=True)
            )
        ],
        "errors": [{"status": st, "message": m, "count": c} for st, m, c in top_errors(outcome.scores)],
        "performance": {
            "wall_s": round(outcome.wall_s, 6),
            "samples_per_s": round(n / outcome.wall_s, 3) if outcome.wall_s > 0 else None,
            "latency_p50_s": stats.get("latency_p50_s"),
            "latency_p99_s": stats.get("latency_p99_s"),
            "exec_p50_s": stats.get("exec_p50_s"),
            "exec_p99_s": stats.get("exec_p99_s"),
            "deduplicated": stats.get("deduplicated"),
        },
        "rewardloop_version": __version__,
    }


def print_summary(outcome: Outcome, data: dict[str, Any]) -> None:
    tasks = [item.task for item in outcome.items]
    print(format_table(summarize(zip(tasks, outcome.scores, strict=True))))
    groups = group_stats(
        (item.task, item.group, s) for item, s in zip(outcome.items, outcome.scores, strict=True)
    )
    if groups and groups[-1].max_n >= 2:
        print(
            "\nGRPO groups: pass@k (unbiased estimator), mean@n reward, reward std, share of all-equal groups"
        )
        print(format_groups(groups))
    errors = top_errors(outcome.scores)
    if errors:
        print(f"\nTop errors ({data['failed']} failed rows):")
        print(format_errors(errors))
    perf = data["performance"]
    line = f"\n{data['rows']} rows in {perf['wall_s']:.2f} s"
    if perf["samples_per_s"] is not None:
        line += f" ({perf['samples_per_s']:.1f} rows/s)"
    if perf["latency_p50_s"] is not None:
        line += f"; latency p50 {_ms(perf['latency_p50_s'])}, p99 {_ms(perf['latency_p99_s'])}"
    print(line)


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{1000 * seconds:.1f} ms"


def exit_code(data: dict[str, Any]) -> int:
    """1 when every row failed or the failure rate passed the limit (said on stderr), else 0."""
    n, failed, limit = data["rows"], data["failed"], data["max_failure_rate"]
    if n and failed == n:
        print(
            f"rewardloop: error: every row failed ({failed} of {n}); see the top errors above",
            file=sys.stderr,
        )
        return 1
    if n and failed / n > limit:
        print(
            f"rewardloop: error: {failed} of {n} rows failed ({100 * failed / n:.1f}%), more than "
            f"--max-failure-rate {limit:g}; see the top errors above",
            file=sys.stderr,
        )
        return 1
    return 0


def write_output(path: str | None, rows: list[dict[str, Any]]) -> OutputError | None:
    """Write the rows (saying so on stderr); a failed write is returned (the rows were saved elsewhere)."""
    if not path:
        return None
    try:
        n = save_rows(path, rows)
    except OutputError as exc:
        return exc
    print(f"wrote {n} rows to {path}", file=sys.stderr)
    return None


def write_text(path: str, text: str) -> None:
    """Write a report file; a failure is an :class:`OutputError` naming the path (exit 2), not a traceback."""
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise OutputError(f"could not write {path!r}: {exc}", None) from exc


def finish(args: argparse.Namespace, outcome: Outcome, rows: list[dict[str, Any]]) -> int:
    """Write the output and the summary, print them, and return the exit code."""
    failed_write = write_output(args.output, rows)
    data = summary(outcome, args.max_failure_rate)
    print_summary(outcome, data)
    code = exit_code(data)
    data["exit_code"] = 2 if failed_write else code
    if args.summary_json:
        write_text(args.summary_json, json.dumps(data, indent=2))
    if failed_write is not None:
        print(f"rewardloop: error: {failed_write}", file=sys.stderr)
        return 2
    return code


def check_rate(value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"--max-failure-rate must be between 0 and 1, got {value}")


def run(args: argparse.Namespace) -> int:
    check_rate(args.max_failure_rate)
    selection = build_selection(args)
    rows = read_rows(args.input)
    if not rows:
        raise ConfigError(f"{args.input!r} holds no rows")
    items = prepare(rows, args.response_key, selection, args.group_by)
    outcome = execute(items, selection, show_progress(args))
    return finish(args, outcome, output_rows(outcome, selection))
