"""qa_equiv against human judgments of open-domain QA predictions, beside EM, token F1 and containment; and speed.

Data: ``bench/_qa_data.py`` (dev = EVOUNA, test = Kamalloo et al.'s NQ301, mturk = MTurk ratings of BERT
answers that EM rejects, a second held-out split; split by source; provenance in ``bench/README.md``). The data lives outside the repository (``/work/extdata/qa``, or ``REWARDLOOP_QA_DATA``);
without it the script says so and exits 0.

For every split, on the same rows in the same run:

* ``em`` — ``search_r1_qa`` (verl's Search-R1 exact match after SQuAD normalisation);
* ``f1_0.5`` / ``f1_0.8`` — SQuAD token F1 against the best gold, accepted at that threshold;
* ``containment`` — ``search_r1_qa`` with ``match="substring"`` (a normalised gold inside the prediction);
* ``qa_equiv`` — the rules only (defaults);
* ``qa_equiv+judge`` — the rules, and for the undecided rows a judge on 127.0.0.1. **The judge is a local
  stand-in, not an LLM**: an OpenAI-compatible HTTP server started here that answers "correct" when the
  candidate's token F1 against a gold in the prompt is at least 0.5. It measures the plumbing (only undecided
  rows are sent, both orders, cache) and what a lenient judge on those rows would add and cost; a real LLM
  judge will differ.

Reported per method: ``paraphrase_accept`` — the share of human-correct predictions that EM rejects which the
method accepts; ``false_accept`` — the share of human-incorrect predictions it accepts (EM's own false accepts,
rows people rejected although they equal a gold string, included); ``false_accept_beyond_em`` — the share of
human-incorrect predictions it accepts and EM does not; and accuracy.

Speed: samples/s of ``qa_equiv`` (rules) and ``search_r1_qa`` in the same run on the test rows written as
Search-R1 responses (``<answer>...</answer>``), ``score()`` called in a loop, best of ``--passes`` passes with the
gold and question caches cleared before each pass (within a pass a question's golds are reused by its other
answers, as the responses of one prompt group reuse them in RL). Reported per wall second and per CPU second of
one process (the machine is shared: the 1-minute load average is recorded), per CPU second times two for the
machine's 2 cores, and per wall second of two processes run at the same time (all samples / the slower one).

Writes ``bench/results/qa_equiv.json``.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _common import RESULTS, write_json
from _qa_data import Judged, available, data_root, load, mturk_available
from rewardloop import Runner, Sample
from rewardloop.scorers._qa_norm import clear_caches
from rewardloop.scorers.qa_em import SearchR1QAScorer, normalize_answer
from rewardloop.scorers.qa_equiv import QAEquivScorer

OUT = RESULTS / "qa_equiv.json"
STAND_IN_F1 = 0.5


def token_f1(prediction: str, gold: str) -> float:
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    common = sum((collections.Counter(p) & collections.Counter(g)).values())
    if not p or not g or not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def best_f1(row: Judged) -> float:
    return max(token_f1(row.prediction, g) for g in row.golds)


def samples_of(rows: Sequence[Judged]) -> list[Sample]:
    return [
        Sample(
            response=f"<answer>{r.prediction}</answer>",
            ground_truth=list(r.golds),
            metadata={"question": r.question},
            prompt=r.question,
        )
        for r in rows
    ]


def summarize(rows: Sequence[Judged], accepted: Sequence[bool], exact: Sequence[bool]) -> dict[str, Any]:
    paraphrases = [a for r, a, e in zip(rows, accepted, exact, strict=True) if r.correct and not e]
    wrong = [a for r, a in zip(rows, accepted, strict=True) if not r.correct]
    beyond = [a and not e for r, a, e in zip(rows, accepted, exact, strict=True) if not r.correct]
    right = sum(1 for r, a in zip(rows, accepted, strict=True) if a == r.correct)
    return {
        "paraphrase_accept": round(sum(paraphrases) / max(1, len(paraphrases)), 4),
        "paraphrases_accepted": sum(paraphrases),
        "false_accept": round(sum(wrong) / max(1, len(wrong)), 4),
        "false_accepted": sum(wrong),
        "false_accept_beyond_em": round(sum(beyond) / max(1, len(beyond)), 4),
        "accuracy": round(right / max(1, len(rows)), 4),
    }


# -- the stand-in judge ---------------------------------------------------------------------------------------

_SLOT = re.compile(r"\[Answer 1\]\n(.*?)\n\n\[Answer 2\]\n(.*?)\n\nOne of the two", re.S)


def stand_in_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        first, second = _SLOT.search(body["messages"][-1]["content"]).groups()
        golds, candidate = (first, second) if " | " in first else (second, first)
        if " | " not in first and " | " not in second:  # one gold: the slots are symmetric under F1
            golds, candidate = first, second
        score = max(token_f1(candidate, g) for g in golds.split(" | "))
        verdict = "correct" if score >= STAND_IN_F1 else "incorrect"
        message = {"role": "assistant", "content": f"F1 {score:.2f}. \\boxed{{{verdict}}}"}
        return JSONResponse({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def judged_accepts(rows: Sequence[Judged]) -> tuple[list[bool], dict[str, Any]]:
    from rewardloop.models import ServerThread

    server = ServerThread(stand_in_app())
    server.start()
    try:
        scorer = QAEquivScorer(judge={"address": server.address, "model": "stand-in-f1"})
        with Runner(max_concurrency=16) as runner:
            batch = runner.run_sync(scorer, samples_of(rows))
        scores = list(batch)
    finally:
        server.stop()
    by = collections.Counter(s.info.get("decided_by") for s in scores)
    failed = sum(1 for s in scores if not s.ok)
    return [bool(s.ok and s.value == 1.0) for s in scores], {"decided_by": dict(by), "judge_failures": failed}


# -- accuracy -------------------------------------------------------------------------------------------------


def evaluate(split: str, with_judge: bool) -> dict[str, Any]:
    rows = load(split)
    samples = samples_of(rows)
    em_scorer = SearchR1QAScorer()
    sub_scorer = SearchR1QAScorer(match="substring")
    rules = QAEquivScorer()
    exact = [em_scorer.score(s).value == 1.0 for s in samples]
    f1 = [best_f1(r) for r in rows]
    rule_scores = [rules.score(s) for s in samples]
    methods: dict[str, list[bool]] = {
        "em": exact,
        "f1_0.5": [v >= 0.5 for v in f1],
        "f1_0.8": [v >= 0.8 for v in f1],
        "containment": [sub_scorer.score(s).value == 1.0 for s in samples],
        "qa_equiv": [s.value == 1.0 for s in rule_scores],
    }
    extra: dict[str, Any] = {}
    if with_judge:
        methods["qa_equiv+judge"], extra = judged_accepts(rows)
    correct = sum(r.correct for r in rows)
    out: dict[str, Any] = {
        "rows": len(rows),
        "human_correct": correct,
        "human_incorrect": len(rows) - correct,
        "human_correct_not_exact": sum(1 for r, e in zip(rows, exact, strict=True) if r.correct and not e),
        "sources": dict(collections.Counter(r.source for r in rows)),
        "methods": {name: summarize(rows, acc, exact) for name, acc in methods.items()},
        "qa_equiv_rules": _rule_table(rows, rule_scores),
    }
    if extra:
        out["judge"] = {**extra, "stand_in": f"token F1 >= {STAND_IN_F1} against a gold (not an LLM)"}
    return out


def _rule_table(rows: Sequence[Judged], scores: Sequence[Any]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = collections.defaultdict(
        lambda: {"human_correct": 0, "human_incorrect": 0}
    )
    for row, score in zip(rows, scores, strict=True):
        table[score.info["rule"]]["human_correct" if row.correct else "human_incorrect"] += 1
    return dict(sorted(table.items(), key=lambda kv: -sum(kv[1].values())))


# -- speed ----------------------------------------------------------------------------------------------------


def _rate(scorer: Any, samples: Sequence[Sample], passes: int) -> tuple[float, float]:
    """(samples per wall second, samples per CPU second), best pass of each."""
    best_wall = best_cpu = float("inf")
    for _ in range(passes):
        clear_caches()
        wall, cpu = time.perf_counter(), time.process_time()
        for sample in samples:
            scorer.score(sample)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return len(samples) / best_wall, len(samples) / best_cpu


def _worker(name: str, samples: list[Sample], passes: int, queue: Any, barrier: Any) -> None:
    scorer = QAEquivScorer() if name == "qa_equiv" else SearchR1QAScorer()
    scorer.score(samples[0])
    barrier.wait()
    start = time.perf_counter()
    for _ in range(passes):
        clear_caches()
        for sample in samples:
            scorer.score(sample)
    queue.put(time.perf_counter() - start)


def _two_process_rate(name: str, samples: list[Sample], passes: int) -> float:
    ctx = mp.get_context("fork")
    queue, barrier = ctx.Queue(), ctx.Barrier(2)
    procs = [ctx.Process(target=_worker, args=(name, samples, passes, queue, barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    walls = [queue.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return 2 * passes * len(samples) / max(walls)


def speed(rows: Sequence[Judged], passes: int, repeat: int) -> dict[str, Any]:
    samples = samples_of(rows) * repeat
    qa, em = QAEquivScorer(), SearchR1QAScorer()
    qa.score(samples[0])
    em.score(samples[0])
    one = {"qa_equiv": _rate(qa, samples, passes), "search_r1_qa": _rate(em, samples, passes)}
    two = {name: _two_process_rate(name, samples, passes) for name in ("qa_equiv", "search_r1_qa")}
    return {
        "samples_per_pass": len(samples),
        "passes": passes,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "one_process_samples_per_wall_s": {k: round(v[0]) for k, v in one.items()},
        "one_process_samples_per_cpu_s": {k: round(v[1]) for k, v in one.items()},
        "two_processes_samples_per_wall_s": {k: round(v) for k, v in two.items()},
        "two_cores_samples_per_cpu_s": {k: round(2 * v[1]) for k, v in one.items()},
        "qa_equiv_vs_search_r1_qa_cpu": round(one["qa_equiv"][1] / one["search_r1_qa"][1], 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--no-judge", action="store_true", help="skip the stand-in judge run on the test split"
    )
    parser.add_argument(
        "--judge-dev", action="store_true", help="also run the stand-in judge on the dev split"
    )
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument(
        "--repeat", type=int, default=4, help="repeat the test rows this often for the speed run"
    )
    parser.add_argument(
        "--split",
        choices=("all", "dev"),
        default="all",
        help="dev: score the in-sample dev split only, print it, write nothing (for development)",
    )
    args = parser.parse_args(argv)
    if not available():
        print(f"qa_equiv bench: no data under {data_root()} (see bench/README.md, qa_equiv); skipped")
        return 0
    if args.split == "dev":
        _print({"dev": evaluate("dev", with_judge=args.judge_dev)})
        return 0
    results: dict[str, Any] = {
        "note": (
            "test and mturk = out-of-sample (never looked at while the rules were written; mturk added after "
            "them, scored three times: after them, after the breaker round and after round 3); dev = in-sample"
        ),
        "test": evaluate("test", with_judge=not args.no_judge),
        "dev": evaluate("dev", with_judge=args.judge_dev),
    }
    if mturk_available():
        results["mturk"] = evaluate("mturk", with_judge=False)
    results["speed"] = speed(load("test"), args.passes, args.repeat)
    write_json(results, OUT)
    _print(results)
    return 0


def _print(results: dict[str, Any]) -> None:
    for split in ("test", "dev", "mturk"):
        if split not in results:
            continue
        part = results[split]
        print(
            f"\n{split}: {part['rows']} rows, {part['human_correct_not_exact']} human-correct not exact, "
            f"{part['human_incorrect']} human-incorrect"
        )
        print(
            f"{'method':16s} {'paraphrases':>12s} {'false accept':>13s} {'beyond EM':>10s} {'accuracy':>9s}"
        )
        for name, m in part["methods"].items():
            print(
                f"{name:16s} {m['paraphrase_accept']:12.1%} {m['false_accept']:13.2%} "
                f"{m['false_accept_beyond_em']:10.2%} {m['accuracy']:9.1%}"
            )
    if "speed" in results:
        print("\nspeed:", results["speed"])


if __name__ == "__main__":
    raise SystemExit(main())
