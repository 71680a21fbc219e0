"""math_equiv vs Math-Verify on external real model outputs nobody tuned on: agreement with labels, FP, FN, speed.

Data: ``/work/extdata/{dev,test}/<source>.jsonl`` built by ``bench/external_outputs_build.py`` from public
repositories (provenance: ``bench/external_sources.md``; nothing is copied into the repository). Each source is
split 50/50 by a hash of the problem. **dev** is what the math_equiv rules are developed against (in-sample once
it has been read); **test** is read only to report (out-of-sample for whoever did not read it).

Graders, in the same run on the same rows: ``math_equiv`` (defaults) and ``math_verify`` (our Math-Verify scorer),
each through a fresh ``Runner(workers=2)``. Every row has the source's own label; rows where either grader
disagrees with it were read blind and decided by hand (``bench/adjudication/<source>.jsonl``: id, verdict,
one-line reason). Reported per source and split: agreement with the source labels and with the adjudicated
labels (accuracy, FP, FN), how many disagreements are still unadjudicated, and the share of responses
math_equiv's ``quick()`` leaves to the symbolic stage (returns None).

``--speed``: on every source where at least 10% of responses need the symbolic stage, math_equiv vs
math_verify through ``Runner(workers=2)``: ``--rounds`` alternating rounds (fresh runners, cleared caches), the
median ratio of samples/s, and p99 per sample (sequential in one process, and executing in a worker).

``--src DIR`` puts another checkout's ``src`` first (the final numbers run against ``/work/main/src``).
``--dump DIR`` writes the dev split's disagreements (rows, both verdicts, adjudication) for rule work.
Writes ``bench/results/external_outputs.json`` (``--output``) and prints tables.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, clear_scorer_caches, read_jsonl, write_json

REPO = Path(__file__).resolve().parents[1]
ADJUDICATION = REPO / "bench" / "adjudication"
EXTDATA = Path(os.environ.get("REWARDLOOP_EXTDATA", "/work/extdata"))
SOURCES = ("processbench", "gaokao_mcq", "gaokao_fill", "mmlupro", "omnimath")
GRADERS = ("math_equiv", "math_verify")
WORKERS = 2
SYMBOLIC_SHARE_FOR_SPEED = 0.10


def load(source: str, split: str) -> list[dict[str, Any]]:
    parts = ("dev", "test") if split == "all" else (split,)
    rows = []
    for part in parts:
        path = EXTDATA / part / f"{source}.jsonl"
        if path.exists():
            rows += [{**r, "split": part} for r in read_jsonl(path)]
    return rows


def adjudicated(source: str) -> dict[str, dict[str, Any]]:
    path = ADJUDICATION / f"{source}.jsonl"
    return {r["id"]: r for r in read_jsonl(path)} if path.exists() else {}


def samples(rows: list[dict[str, Any]]) -> list[Any]:
    from rewardloop import Sample

    return [Sample(response=r["response"], ground_truth=r["gold"], prompt=r["prompt"]) for r in rows]


def run_grader(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One pass of ``name`` over ``rows`` through a fresh ``Runner(workers=2)`` warmed on other samples."""
    from rewardloop import Runner, Sample, get_scorer

    clear_scorer_caches()
    scorer = get_scorer(name)
    batch_in = samples(rows)
    warm = [
        Sample(response=f"so $\\boxed{{x^{k} + {k}x}}$", ground_truth=f"x({k}+x^{k - 1})")
        for k in range(2, 10)
    ]
    t_start = time.perf_counter()
    with Runner(workers=WORKERS) as runner:
        runner.run_sync(scorer, warm)  # the fresh runner's cost: worker start, imports, warm_up, 8 samples
        t0 = time.perf_counter()
        batch = runner.run_sync(scorer, batch_in)
        wall = time.perf_counter() - t0
    stats = dict(batch.stats)
    return {
        "verdicts": [s.value == 1.0 for s in batch],
        "status": stats.get("status"),
        "wall_s": wall,
        "samples_per_s": len(rows) / wall,
        "fresh_runner_s": t0 - t_start,
        "exec_p99_ms": _ms(stats.get("exec_p99_s")),
        "latency_p99_ms": _ms(stats.get("latency_p99_s")),
    }


def symbolic_share(rows: list[dict[str, Any]]) -> float:
    """Share of rows math_equiv's ``quick()`` does not settle (the symbolic stage decides them). A ``quick()``
    that raises is settled as the runner settles it (a failed score), and counted by :func:`quick_errors`."""
    from rewardloop import get_scorer

    scorer = get_scorer("math_equiv")
    undecided = 0
    for sample in samples(rows):
        with contextlib.suppress(Exception):
            undecided += scorer.quick(sample) is None
    return undecided / len(rows) if rows else 0.0


def quick_errors(rows: list[dict[str, Any]]) -> list[str]:
    """Ids of the rows on which math_equiv's ``quick()`` raises (a bug: the runner turns it into a failed score)."""
    from rewardloop import get_scorer

    scorer = get_scorer("math_equiv")
    bad = []
    for r, sample in zip(rows, samples(rows), strict=True):
        try:
            scorer.quick(sample)
        except Exception as exc:
            bad.append(f"{r['id']}: {type(exc).__name__}")
    return bad


def sequential_p99(name: str, rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """p50 / p99 of ``quick() or score()`` per sample in this process, after ``warm_up()`` (ms)."""
    from rewardloop import Sample, get_scorer

    clear_scorer_caches()
    scorer = get_scorer(name)
    if hasattr(scorer, "warm_up"):
        scorer.warm_up()
    scorer.score(Sample(response="so $\\boxed{x^2 + 2x}$", ground_truth="x(x+2)"))
    times = []
    for s in samples(rows):
        t0 = time.perf_counter()
        with contextlib.suppress(Exception):  # timed like any other sample: the runner scores it as failed
            _ = scorer.quick(s) or scorer.score(s)
        times.append(time.perf_counter() - t0)
    return {"sequential_p50_ms": _ms(_pct(times, 50)), "sequential_p99_ms": _ms(_pct(times, 99))}


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def confusion(labels: list[bool], verdicts: list[bool]) -> dict[str, Any]:
    tp = sum(lab and v for lab, v in zip(labels, verdicts, strict=True))
    fp = sum((not lab) and v for lab, v in zip(labels, verdicts, strict=True))
    fn = sum(lab and not v for lab, v in zip(labels, verdicts, strict=True))
    n = len(labels)
    return {"n": n, "agreement": round((n - fp - fn) / n, 4) if n else None, "fp": fp, "fn": fn, "tp": tp}


def evaluate(source: str, rows: list[dict[str, Any]], verdicts: dict[str, list[bool]]) -> dict[str, Any]:
    adj = adjudicated(source)
    out: dict[str, Any] = {}
    for split in [*sorted({r["split"] for r in rows}), "all"]:
        idx = [i for i, r in enumerate(rows) if split == "all" or r["split"] == split]
        if not idx:
            continue
        src_labels = [bool(rows[i]["label"]) for i in idx]
        disputed = [i for i in idx if any(verdicts[g][i] != rows[i]["label"] for g in verdicts)]
        missing = [i for i in disputed if rows[i]["id"] not in adj]
        adj_labels = [
            bool(adj[rows[i]["id"]]["verdict"]) if rows[i]["id"] in adj else rows[i]["label"] for i in idx
        ]
        entry: dict[str, Any] = {
            "n": len(idx),
            "source_labels_true": sum(src_labels),
            "disputed": len(disputed),
            "unadjudicated_disputed": len(missing),
            "labels_changed_by_adjudication": sum(
                a != s for a, s in zip(adj_labels, src_labels, strict=True)
            ),
        }
        for g, v in verdicts.items():
            vs = [v[i] for i in idx]
            entry[g] = {
                "vs_source_labels": confusion(src_labels, vs),
                "vs_adjudicated": confusion(adj_labels, vs),
            }
        out[split] = entry
    return out


def speed(source: str, rows: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    """``rounds`` alternating rounds of both graders on fresh runners; median ratio; p99 per sample."""
    runs: dict[str, list[dict[str, Any]]] = {g: [] for g in GRADERS}
    for k in range(rounds):
        order = GRADERS if k % 2 == 0 else tuple(reversed(GRADERS))
        for g in order:
            runs[g].append(run_grader(g, rows))
        print(
            f"  speed {source} round {k + 1}: "
            + ", ".join(f"{g} {runs[g][-1]['samples_per_s']:.0f}/s" for g in GRADERS),
            file=sys.stderr,
        )
    ratios = [
        a["samples_per_s"] / b["samples_per_s"]
        for a, b in zip(runs["math_equiv"], runs["math_verify"], strict=True)
    ]
    # the same ratio when each pass is charged its fresh runner's start (workers, imports, warm-up)
    with_start = [
        (b["wall_s"] + b["fresh_runner_s"]) / (a["wall_s"] + a["fresh_runner_s"])
        for a, b in zip(runs["math_equiv"], runs["math_verify"], strict=True)
    ]
    result: dict[str, Any] = {
        "n": len(rows),
        "rounds": rounds,
        "vs_math_verify_per_round": [round(r, 2) for r in ratios],
        "vs_math_verify_median": round(sorted(ratios)[len(ratios) // 2], 2),
        "what": f"samples/s through a fresh Runner(workers={WORKERS}) per pass, {rounds} alternating rounds",
        "vs_math_verify_range": [round(min(ratios), 2), round(max(ratios), 2)],
        "vs_math_verify_with_fresh_runner_median": round(sorted(with_start)[len(with_start) // 2], 2),
    }
    for g in GRADERS:
        sps = sorted(r["samples_per_s"] for r in runs[g])
        result[g] = {
            "samples_per_s_median": round(sps[len(sps) // 2], 1),
            "samples_per_s_per_round": [round(r["samples_per_s"], 1) for r in runs[g]],
            "exec_p99_ms_median": sorted(r["exec_p99_ms"] or 0 for r in runs[g])[len(runs[g]) // 2],
            "exec_p99_ms_per_round": [r["exec_p99_ms"] for r in runs[g]],
            # starting the fresh runner (workers, imports, warm_up, 8 warm-up samples): not in samples/s
            "fresh_runner_s_median": round(
                sorted(r["fresh_runner_s"] for r in runs[g])[len(runs[g]) // 2], 2
            ),
            "pass_s_median": round(sorted(r["wall_s"] for r in runs[g])[len(runs[g]) // 2], 2),
            **sequential_p99(g, rows),
        }
    return result


ALWAYS_TIMED = ("olympiad",)


def speed_sets(sources: list[str], cap: int) -> dict[str, list[dict[str, Any]]]:
    """What the speed comparison runs on: every source whole (dev and test: no label is read), and the pool of
    olympiad-level problems (ProcessBench's OlympiadBench part and Omni-MATH), fixed in advance, not picked by
    the share it turns out to have. A set is timed when at least 10% of it needs the symbolic stage; the
    olympiad pool is always timed and its share reported beside it. Each set is capped at ``cap`` rows by a
    hash-ordered sample (Math-Verify needs minutes per pass on the long olympiad answers of a loaded machine)."""
    sets = {s: load(s, "all") for s in sources}
    pool = [r for r in sets.get("processbench", []) if (r.get("meta") or {}).get("subset") == "olympiadbench"]
    pool += sets.get("omnimath", [])
    if pool:
        sets["olympiad"] = pool
    return {k: _sample(v, cap) for k, v in sets.items() if v}


def _sample(rows: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """At most ``cap`` rows: those with the smallest SHA-256 of their id, in their original order."""
    if len(rows) <= cap:
        return rows
    keep = set(sorted((r["id"] for r in rows), key=lambda i: hashlib.sha256(i.encode()).hexdigest())[:cap])
    return [r for r in rows if r["id"] in keep]


def _provenance() -> dict[str, Any]:
    import rewardloop

    src = Path(rewardloop.__file__).resolve().parents[1]
    commit = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {"rewardloop_src": str(src), "commit": commit or None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument(
        "--speed", action="store_true", help="also measure speed where >=10%% need the symbolic stage"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--speed-cap", type=int, default=600, help="rows per speed set at most")
    parser.add_argument("--speed-only", action="store_true", help="skip the accuracy part (with --speed)")
    parser.add_argument("--src", default=None, help="a checkout's src/ to import rewardloop from (put first)")
    parser.add_argument("--dump", default=None, help="write the dev split's disagreements to this folder")
    parser.add_argument("--output", default=None)
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="recompute the label metrics of --output from the verdicts its run saved and the current "
        "adjudication files (after adjudicating new disagreements), without scoring again",
    )
    args = parser.parse_args()
    output = Path(args.output) if args.output else RESULTS / "external_outputs.json"
    if args.rescore:
        return rescore(output)
    # the parent and the runner's worker processes (fresh interpreters, which read PYTHONPATH) import the same code
    src = str(Path(args.src).resolve() if args.src else REPO / "src")
    sys.path.insert(0, src)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    if not EXTDATA.is_dir():
        print(f"{EXTDATA} not found: build it with bench/external_outputs_build.py", file=sys.stderr)
        return 0
    report: dict[str, Any] = {
        "benchmark": "external_outputs",
        "split": args.split,
        "code": _provenance(),
        "machine": {"cpus": os.cpu_count(), "loadavg_start": os.getloadavg()[0]},
        "sources": {},
    }
    for source in [] if args.speed_only else args.sources.split(","):
        rows = load(source, args.split)
        if not rows:
            print(f"{source}: no rows for split {args.split}", file=sys.stderr)
            continue
        print(f"{source}: {len(rows)} rows ({args.split})", file=sys.stderr)
        graded = {g: run_grader(g, rows) for g in GRADERS}
        verdicts = {g: graded[g]["verdicts"] for g in GRADERS}
        entry: dict[str, Any] = {
            "n": len(rows),
            "symbolic_share": round(symbolic_share(rows), 4),
            "quick_errors": quick_errors(rows),
            "by_split": evaluate(source, rows, verdicts),
            "status": {g: graded[g]["status"] for g in GRADERS},
        }
        report["sources"][source] = entry
        _write_disputed(source, rows, verdicts)
        _save_verdicts(output, source, rows, verdicts)
        if args.dump:
            _dump(Path(args.dump) / f"{source}.jsonl", source, rows, verdicts)
    if args.speed or args.speed_only:
        report["speed"] = {}
        report["speed_rows"] = "dev and test splits of every source (speed only: no label is read)"
        for name, rows in speed_sets(args.sources.split(","), args.speed_cap).items():
            share = symbolic_share(rows)
            entry = {"n": len(rows), "symbolic_share": round(share, 4)}
            if share >= SYMBOLIC_SHARE_FOR_SPEED or name in ALWAYS_TIMED:
                entry.update(speed(name, rows, args.rounds))
            report["speed"][name] = entry
            print(f"{name}: {len(rows)} rows, {100 * share:.1f}% need the symbolic stage", file=sys.stderr)
    report["machine"]["loadavg_end"] = os.getloadavg()[0]
    write_json(report, output)
    print(table(report))
    return 0


def _verdicts_path(output: Path) -> Path:
    """Where a run keeps its per-row verdicts (ids and booleans), outside the repository."""
    return EXTDATA / "verdicts" / f"{output.stem}.json"


def _save_verdicts(
    output: Path, source: str, rows: list[dict[str, Any]], verdicts: dict[str, list[bool]]
) -> None:
    path = _verdicts_path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    saved[source] = {"rows": [[r["id"], r["split"]] for r in rows], "verdicts": verdicts}
    path.write_text(json.dumps(saved), encoding="utf-8")


def rescore(output: Path) -> int:
    """Recompute ``by_split`` of every source in ``output`` from its saved verdicts and today's adjudication."""
    report = json.loads(output.read_text(encoding="utf-8"))
    saved = json.loads(_verdicts_path(output).read_text(encoding="utf-8"))
    for source, entry in report["sources"].items():
        labels = {}
        for split in {s for _, s in saved[source]["rows"]}:
            labels.update({r["id"]: r["label"] for r in load(source, split)})
        rows = [{"id": i, "split": s, "label": labels[i]} for i, s in saved[source]["rows"]]
        entry["by_split"] = evaluate(source, rows, saved[source]["verdicts"])
        _write_disputed(source, rows, saved[source]["verdicts"])
    write_json(report, output)
    print(table(report))
    return 0


def _write_disputed(source: str, rows: list[dict[str, Any]], verdicts: dict[str, list[bool]]) -> None:
    """Ids (only) of the rows where a grader disagrees with the source label, per split, for blind reading
    with ``bench/external_adjudicate.py``: which grader said what is not written."""
    for split in sorted({r["split"] for r in rows}):
        ids = [
            r["id"]
            for i, r in enumerate(rows)
            if r["split"] == split and any(v[i] != r["label"] for v in verdicts.values())
        ]
        path = EXTDATA / "disputed" / split / f"{source}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")


def _dump(path: Path, source: str, rows: list[dict[str, Any]], verdicts: dict[str, list[bool]]) -> None:
    """The dev split's rows where a grader disagrees with the source or the adjudicated label."""
    adj = adjudicated(source)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows):
            if r["split"] != "dev":
                continue
            rec = adj.get(r["id"])
            label = bool(rec["verdict"]) if rec else bool(r["label"])
            mine = {g: verdicts[g][i] for g in verdicts}
            if all(v == r["label"] for v in mine.values()) and label == r["label"]:
                continue
            fh.write(
                json.dumps(
                    {
                        **{k: r[k] for k in ("id", "source", "prompt", "response", "gold")},
                        "source_label": r["label"],
                        "adjudicated": label,
                        "reason": rec["reason"] if rec else None,
                        **mine,
                        "meta": r.get("meta"),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            n += 1
    print(f"  dumped {n} dev disagreements to {path}", file=sys.stderr)


def table(report: dict[str, Any]) -> str:
    lines = [
        f"code: {report['code']}",
        "",
        "| source | split | n | symbolic stage | grader | vs source labels: agree / FP / FN |"
        " vs adjudicated: agree / FP / FN | unadjudicated |",
        "|---|---|---:|---:|---|---|---|---:|",
    ]
    for source, d in report["sources"].items():
        for split, e in d["by_split"].items():
            for g in GRADERS:
                s, a = e[g]["vs_source_labels"], e[g]["vs_adjudicated"]
                lines.append(
                    f"| {source} | {split} | {e['n']} | {100 * d['symbolic_share']:.1f}% | {g} | "
                    f"{100 * s['agreement']:.2f}% / {s['fp']} / {s['fn']} | "
                    f"{100 * a['agreement']:.2f}% / {a['fp']} / {a['fn']} | {e['unadjudicated_disputed']} |"
                )
    lines += [
        "",
        "Against the adjudicated labels: math_equiv vs Math-Verify (agreement, FP, FN); at or ahead = agreement at"
        " least Math-Verify's with no more FP.",
        "",
        "| source | split | n | math_equiv | Math-Verify | math_equiv at or ahead |",
        "|---|---|---:|---|---|---|",
    ]
    for source, d in report["sources"].items():
        for split, e in d["by_split"].items():
            if split == "all":
                continue
            me, mv = e["math_equiv"]["vs_adjudicated"], e["math_verify"]["vs_adjudicated"]
            ahead = me["agreement"] >= mv["agreement"] and me["fp"] <= mv["fp"]
            lines.append(
                f"| {source} | {split} | {e['n']} | {100 * me['agreement']:.2f}% / {me['fp']} / {me['fn']} | "
                f"{100 * mv['agreement']:.2f}% / {mv['fp']} / {mv['fn']} | {'yes' if ahead else 'no'} |"
            )
    speeds = {s: d for s, d in report.get("speed", {}).items() if "vs_math_verify_median" in d}
    for s, d in report.get("speed", {}).items():
        lines.append(
            f"speed set {s}: {d['n']} rows, {100 * d['symbolic_share']:.1f}% need the symbolic stage"
        )
    if speeds:
        lines += [
            "",
            "| speed set | n | math_equiv / Math-Verify (median of rounds) | per round | samples/s ours / MV |"
            " p99 sequential ms ours / MV | p99 in worker ms ours / MV |",
            "|---|---:|---:|---|---|---|---|",
        ]
        for s, sp in speeds.items():
            me, mv = sp["math_equiv"], sp["math_verify"]
            lines.append(
                f"| {s} | {sp['n']} | {sp['vs_math_verify_median']}x | {', '.join(map(str, sp['vs_math_verify_per_round']))} | "
                f"{me['samples_per_s_median']} / {mv['samples_per_s_median']} | "
                f"{me['sequential_p99_ms']} / {mv['sequential_p99_ms']} | {me['exec_p99_ms_median']} / {mv['exec_p99_ms_median']} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
