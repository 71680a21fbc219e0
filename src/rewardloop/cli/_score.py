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
from typing import Any, TypeGuard, cast

from .. import __version__
from .._groups import group_stats
from .._io import OutputError, read_rows, save_rows
from .._provenance import scorer_fingerprint
from .._suggest import did_you_mean, unknown_task_message
from .._summary import error_groups, format_errors, format_groups, format_table, summarize, top_errors
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
    "scored_with",
)
#: what ``scored_with`` records: how the file was read and scored, so rescore/report/explain read it the same way
READ_SETTINGS = ("response_key", "group_by", "length_key", "config_fingerprint")
DEFAULT_RESPONSE_KEY = "response"


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
        default=None,
        help="column holding the response text, or a list of n responses (default: response; rescore: the "
        "key the file was scored with)",
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
        "--length-key",
        default=None,
        metavar="FIELD",
        help="column holding each response's length in tokens (a list beside a list of responses), for "
        "reward_kwargs.overlong_buffer_cfg and the overlong_zone monitor; without it they are not applied",
    )
    p.add_argument(
        "--summary-json", help="also write the summary (tasks, groups, errors, timing) as JSON here"
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress (a bar when stderr is a terminal, else a line about every 10 s)",
    )


# ---------------------------------------------------------------------------------------------------------
# what scores the rows


@dataclass
class Selection:
    """What scores the rows: the :class:`RewardManager` of the one builder (``RewardManager.from_config``)
    over the command's reward config, the failure reward written, and what the command cannot apply."""

    manager: Any
    config: Any  # the RewardConfig the manager was built from (flags applied)
    on_error: float | None = None
    unapplied: list[str] = field(default_factory=list)
    scored_with: dict[str, Any] = field(default_factory=dict)  # written into every row (READ_SETTINGS)
    _fingerprints: dict[int, str] = field(default_factory=dict)

    def scorer_for(self, sample: Sample) -> Scorer:
        return cast("Scorer", self.manager.scorer_for(sample))

    def fingerprint(self, scorer: Scorer) -> str:
        key = id(scorer)
        if key not in self._fingerprints:
            self._fingerprints[key] = scorer_fingerprint(scorer)
        return self._fingerprints[key]

    def close(self) -> None:
        self.manager.close()


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


def parse_routes(specs: Sequence[str], prefix: bool) -> list[dict[str, Any]]:
    """``TASK=SCORER[:K=V,...]`` flags as ``reward.routes`` entries (the command's own: the global table is
    untouched)."""
    flag = "--route-prefix" if prefix else "--route"
    out = []
    for spec in specs:
        task, sep, target = spec.partition("=")
        if not sep or not task or not target:
            raise ConfigError(f"{flag} expects TASK=SCORER[:K=V,...], got {spec!r}")
        name, options = parse_scorer_spec(target, flag)
        out.append({"task": task, "scorer": name, "options": options, "prefix": prefix})
    return out


def command_config(args: argparse.Namespace) -> Any:
    """The reward config of this command: ``--config`` with the command-line flags applied on top."""
    from ..config import CustomFunctionConfig, load_reward_config

    cfg = load_reward_config(args.config)
    changes: dict[str, Any] = {}
    routes = parse_routes(args.route, prefix=False) + parse_routes(args.route_prefix, prefix=True)
    if routes:
        changes["routes"] = (*cfg.routes, *routes)  # the flags win over the file's routes
    if args.custom_function:
        from .._loader import split_function_spec

        if args.reward_kwargs is not None and not isinstance(args.reward_kwargs, dict):
            raise ConfigError("--reward-kwargs must be a JSON object")
        if cfg.components:
            raise ConfigError(
                "--custom-function replaces the scorer, but the config sets reward.components; drop one "
                "(a component may name a custom function: {path: FILE.py, function: NAME})"
            )
        path, name = split_function_spec(args.custom_function)
        changes["custom_reward_function"] = CustomFunctionConfig(
            path=path, name=name, reward_kwargs=dict(args.reward_kwargs or {})
        )
    elif args.reward_kwargs is not None:
        raise ConfigError("--reward-kwargs needs --custom-function")
    flags = {"workers": args.workers, "timeout_s": args.timeout, "execution": args.execution}
    # the CLI's own default of 2 workers applies under the config's runner section, the flags over it
    runner = cfg.runner.with_defaults(workers=2)
    changes["runner"] = runner.replace(**{k: v for k, v in flags.items() if v is not None})
    if args.ray:
        changes.update(backend="ray", num_workers=args.ray_actors)
    elif args.ray_address is not None:
        raise ConfigError("--ray-address needs --ray")
    return dataclasses.replace(cfg, **changes)


def build_selection(args: argparse.Namespace, scorer: Scorer | None = None) -> Selection:
    """The manager of ``--config`` with the flags on top, built by the one builder the service and the
    trainers use; failures stay statuses in it, and the output applies ``on_error`` itself."""
    from ..managers import RewardManager, runner_from_config

    cfg = command_config(args)
    on_error = args.on_error
    configured = cfg.runner.given().get("on_error")
    if on_error is None and isinstance(configured, int | float) and not isinstance(configured, bool):
        on_error = float(configured)
    run_cfg = dataclasses.replace(cfg, runner=cfg.runner.replace(on_error=None))
    runner = runner_from_config(run_cfg, address=args.ray_address)
    try:
        manager = RewardManager.from_config(run_cfg, scorer=scorer, runner=runner)
    except BaseException:
        runner.close()
        raise
    manager._owns_runner = True
    unapplied = [
        f"{note} (give --length-key FIELD)"
        for note in manager.unapplied(lengths=getattr(args, "length_key", None) is not None)
    ]
    if cfg.reward_model.enable:
        unapplied.append(
            "reward_model.enable: model servers start in training only; route data sources to the "
            "reward_model scorer (--route NAME=reward_model:address=...,model=...) to score with one"
        )
    for note in unapplied:
        print(f"rewardloop: note: not applied: {note}", file=sys.stderr)
    scored_with = {
        "response_key": args.response_key or DEFAULT_RESPONSE_KEY,
        "group_by": args.group_by,
        "length_key": getattr(args, "length_key", None),
        "config_fingerprint": cfg.fingerprint(),
    }
    return Selection(
        manager=manager, config=cfg, on_error=on_error, unapplied=unapplied, scored_with=scored_with
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
    length: int | None = None  # the response's length in tokens (--length-key), for overlong shaping


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
    generation output), or a list of chats, becomes one row per response. One chat (a list of messages) is
    one response; other lists are left alone and fail as malformed responses."""
    out: list[tuple[dict[str, Any], int, int | None]] = []
    for i, row in enumerate(rows):
        responses = row.get(response_key) if isinstance(row, dict) and "_error" not in row else None
        if several_responses(responses):
            for j, response in enumerate(responses):
                out.append(({**row, response_key: response}, i, j))
        else:
            out.append((row, i, None))
    return out


def several_responses(responses: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """n responses: a non-empty list of strings, or of chats (each a non-empty list of message dicts)."""
    if not isinstance(responses, list | tuple) or not responses:
        return False
    if all(isinstance(r, str) for r in responses):
        return True
    return all(isinstance(r, list | tuple) and r and all(isinstance(m, dict) for m in r) for r in responses)


def _group_of(row: dict[str, Any], number: int, expanded: bool, group_by: str | None) -> str | None:
    if group_by is not None:
        return _group_text(dotted(row, group_by))
    for value in (row.get("group_id"), row.get("uid"), dotted(row, "extra_info.index")):
        if value is not None:
            return _group_text(value)
    return f"row {number}" if expanded else None


def prepare(
    rows: Sequence[dict[str, Any]],
    response_key: str,
    selection: Selection,
    group_by: str | None,
    length_key: str | None = None,
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
            sample = sample_from_row(row, response_key)
            if sample.uid is None and item.group is not None:  # a group scorer sees the GRPO group
                sample = dataclasses.replace(sample, uid=item.group)
            item.sample = sample
            item.scorer = selection.scorer_for(sample)
            if length_key is not None:
                item.length = _length(dotted(row, length_key), _index(row, index), length_key)
        except UnknownTaskError as exc:
            item.failure = Score.failure(Status.INVALID_INPUT, unknown_task_message(exc))
        except InvalidSampleError as exc:
            hint = did_you_mean(response_key, row) if response_key not in row and "_error" not in row else ""
            hint = hint.replace("did you mean", "did you mean --response-key") if hint else ""
            item.failure = Score.failure(Status.INVALID_INPUT, f"{exc}{hint}")
        items.append(item)
    return items


def _index(row: dict[str, Any], index: int | None) -> int | None:
    stored = row.get("response_index")  # a scored file's expanded row (rescore)
    return index if index is not None else stored if isinstance(stored, int) else None


def _length(value: Any, index: int | None, key: str) -> int:
    if isinstance(value, list | tuple) and index is not None and index < len(value):
        value = value[index]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidSampleError(
            f"--length-key {key!r} must be a token count (an integer >= 0), got {value!r:.80}"
        )
    return value


# ---------------------------------------------------------------------------------------------------------
# scoring


@dataclass
class Outcome:
    items: list[Item]
    scores: list[Score]
    timing: list[tuple[float | None, float | None]]
    stats: dict[str, Any]
    wall_s: float
    unapplied: list[str] = field(default_factory=list)  # what the config asks for that this run did not apply


def execute(items: list[Item], selection: Selection, progress: bool | str) -> Outcome:
    """Score the items that have a sample through the manager; every item ends with a :class:`Score`.

    ``progress``: True (a bar, on a terminal), ``"log"`` (a line about every 10 s, without one), or False."""
    todo = [i for i, item in enumerate(items) if item.failure is None]
    t0 = time.perf_counter()
    bar: Any = None
    if progress == "log":
        bar = ProgressLog(len(todo))
    elif progress:
        bar = _progress_bar(len(todo))
    lengths = [items[i].length for i in todo]
    try:
        batch = selection.manager.score(
            [items[i].sample for i in todo],
            lengths if any(n is not None for n in lengths) else None,
            on_done=(lambda _i: bar.update(1)) if bar is not None else None,
        )
    finally:
        selection.close()
        if bar is not None:
            bar.close()
    wall_s = time.perf_counter() - t0
    scores: list[Score] = [item.failure for item in items]  # type: ignore[misc]
    timing: list[tuple[float | None, float | None]] = [(None, None)] * len(items)
    for j, i in enumerate(todo):
        scores[i] = batch[j]
        if batch.exec_s:
            timing[i] = (batch.queue_s[j], batch.exec_s[j])
    return Outcome(items, scores, timing, dict(batch.stats), wall_s, list(selection.unapplied))


def _progress_bar(total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit="sample", desc="scoring", dynamic_ncols=True)


PROGRESS_INTERVAL_ENV = "REWARDLOOP_PROGRESS_INTERVAL_S"


class ProgressLog:
    """Without a terminal (CI, nohup, a log file): one progress line on stderr about every 10 s
    (``REWARDLOOP_PROGRESS_INTERVAL_S``), from a timer thread, so a stalled run still says where it is."""

    def __init__(self, total: int, interval_s: float | None = None) -> None:
        import os
        import threading

        self.total, self.done = total, 0
        self.interval_s = interval_s or float(os.environ.get(PROGRESS_INTERVAL_ENV) or 10.0)
        self.t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rewardloop-progress", daemon=True)
        self._thread.start()

    def update(self, n: int = 1) -> None:
        self.done += n

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            elapsed = time.monotonic() - self.t0
            rate = self.done / elapsed if elapsed > 0 else 0.0
            eta = f", about {(self.total - self.done) / rate:.0f} s left" if rate > 0 else ""
            share = 100 * self.done / self.total if self.total else 100.0
            print(
                f"rewardloop: scored {self.done}/{self.total} ({share:.1f}%) in {elapsed:.0f} s, "
                f"{rate:.1f} rows/s{eta}",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def show_progress(args: argparse.Namespace) -> bool | str:
    """A progress bar on a terminal; without one (a log file or a pipe: no carriage-return noise) a line
    about every 10 s; nothing with ``--no-progress``."""
    if args.no_progress:
        return False
    return True if sys.stderr.isatty() else "log"


def scored_row(
    item: Item,
    score: Score,
    on_error: float | None,
    timing: tuple[Any, Any],
    fingerprint: Callable[[Scorer], str],
    scored_with: dict[str, Any] | None = None,
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
    out["scored_with"] = dict(scored_with or {})
    return out


def output_rows(outcome: Outcome, selection: Selection) -> list[dict[str, Any]]:
    return [
        scored_row(item, score, selection.on_error, t, selection.fingerprint, selection.scored_with)
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
        "errors_more": _more_errors(outcome.scores),
        "performance": {
            "wall_s": round(outcome.wall_s, 6),
            "samples_per_s": round(n / outcome.wall_s, 3) if outcome.wall_s > 0 else None,
            "latency_p50_s": stats.get("latency_p50_s"),
            "latency_p99_s": stats.get("latency_p99_s"),
            "exec_p50_s": stats.get("exec_p50_s"),
            "exec_p99_s": stats.get("exec_p99_s"),
            "deduplicated": stats.get("deduplicated"),
        },
        "not_applied": list(outcome.unapplied),
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
        print_errors(errors, data)
    perf = data["performance"]
    line = f"\n{data['rows']} rows in {perf['wall_s']:.2f} s"
    if perf["samples_per_s"] is not None:
        line += f" ({perf['samples_per_s']:.1f} rows/s)"
    if perf["latency_p50_s"] is not None:
        line += f"; latency p50 {_ms(perf['latency_p50_s'])}, p99 {_ms(perf['latency_p99_s'])}"
    print(line)


def _more_errors(scores: Sequence[Score], shown: int = 5) -> dict[str, int]:
    rest = error_groups(scores)[shown:]
    return {"kinds": len(rest), "rows": sum(c for _, _, c, _ in rest)}


def print_errors(errors: list[tuple[str, str, int]], data: dict[str, Any]) -> None:
    """The top errors, with how many more kinds were left out."""
    failed = data["failed"]
    more = data.get("errors_more") or {}
    print(f"\nTop errors ({failed} failed row{'s' if failed != 1 else ''}):")
    print(format_errors(errors, more.get("kinds", 0), more.get("rows", 0)))


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


def stored_setting(rows: Sequence[Any], key: str) -> Any:
    """A setting of ``scored_with`` (:data:`READ_SETTINGS`) recorded in a scored file, None when absent."""
    for row in rows:
        recorded = row.get("scored_with") if isinstance(row, dict) else None
        if isinstance(recorded, dict):
            return recorded.get(key)
    return None


def run(args: argparse.Namespace) -> int:
    check_rate(args.max_failure_rate)
    args.response_key = args.response_key or DEFAULT_RESPONSE_KEY
    selection = build_selection(args)
    rows = read_rows(args.input)
    if not rows:
        raise ConfigError(f"{args.input!r} holds no rows")
    items = prepare(rows, args.response_key, selection, args.group_by, args.length_key)
    outcome = execute(items, selection, show_progress(args))
    return finish(args, outcome, output_rows(outcome, selection))
