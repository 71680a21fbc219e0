"""Score a GRPO-shaped rollouts file with a composite reward, a group term, shapers and the monitors.

Nothing is trained. Run from the repository root::

    python examples/grpo_composite/score_grpo.py [ROLLOUTS.jsonl] [-o SCORED.jsonl]

The reward of one response (``rollouts.jsonl`` here: 6 prompts x 4 responses, written by
``make_rollouts.py``):

* ``acc``: verl's MATH scorer (``hendrycks_math``: 1 when the last box matches, else 0), weight 1.0;
* ``format``: open-r1's think/answer format (1/0), weight 0.2;
* ``repetition``: open-r1's 3-gram repetition penalty (0 to -1), weight 0.5;
* ``length``: Kimi 1.5's length term within each prompt's group (same ``uid``), weight 0.1;
* then DAPO's overlong penalty (response length in whitespace words stands in for tokens here);
* then the monitors: every sample is flagged independently of the verifier, and two flags are configured
  to change the reward: an exit/monkey-patching trick in code gets -1.0, a hedged answer 0.0.

The report prints the per-component means, the summary and group tables of ``rewardloop score``, the
monitor counts with what each flag saw, and the logger metrics a trainer would receive.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from rewardloop import RewardManager, Sample, Score, get_scorer
from rewardloop._groups import group_id, group_stats
from rewardloop._summary import format_groups, format_table, summarize
from rewardloop.managers import Composite, OverlongPenalty
from rewardloop.monitors import MonitorSuite, default_monitors
from rewardloop.shaping import FormatReward, GroupLengthReward, RepetitionPenalty

HERE = Path(__file__).resolve().parent
MAX_LEN, BUFFER = 512, 128  # words: the "token" budget of this example
PENALIZE = {"code_tricks": -1.0, "hedging": 0.0}


def load(path: Path) -> tuple[list[dict[str, Any]], list[Sample]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    samples = [
        Sample(
            response=r["response"],
            ground_truth=r["reward_model"]["ground_truth"],
            task=r["data_source"],
            prompt=r["prompt"],
            metadata=r.get("extra_info") or {},
            uid=r["uid"],
        )
        for r in rows
    ]
    return rows, samples


def reward_function() -> Composite:
    acc = get_scorer("hendrycks_math")
    return Composite(
        [
            ("acc", acc, 1.0),
            ("format", FormatReward(), 0.2),
            ("repetition", RepetitionPenalty(ngram_size=3, max_penalty=-1.0), 0.5),
            ("length", GroupLengthReward(acc), 0.1),
        ]
    )


def score(samples: list[Sample]) -> tuple[list[Score], Any, list[int]]:
    lengths = [len(s.response.split()) for s in samples]
    shapers = [OverlongPenalty(MAX_LEN, BUFFER, log=True)]
    with RewardManager(reward_function(), shapers=shapers) as manager:
        batch = manager.score(samples, lengths)
    suite = MonitorSuite(default_monitors(max_len=MAX_LEN, buffer_len=BUFFER), penalize=PENALIZE)
    scores, report = suite.apply(samples, list(batch), lengths)
    return scores, report, lengths


def print_report(rows: list[dict[str, Any]], samples: list[Sample], scores: list[Score], report: Any) -> None:
    out = sys.stdout.write
    out(f"{len(samples)} responses, {len({s.uid for s in samples})} prompts\n\n")
    out("component means (ok samples):\n")
    for name in ("acc", "format", "repetition", "length", "overlong_reward"):
        values = [s.metrics.get(name) for s in scores if s.metrics.get(name) is not None]
        out(f"  {name:<16} {statistics.fmean(values):+.3f}\n" if values else f"  {name:<16} -\n")
    out(
        "\n"
        + format_table(summarize((s.task or "-", sc) for s, sc in zip(samples, scores, strict=True)))
        + "\n"
    )
    stats = group_stats((s.task or "-", group_id(s), sc) for s, sc in zip(samples, scores, strict=True))
    out("\n" + format_groups(stats) + "\n")
    out("\nmonitor flags (samples): " + ", ".join(f"{k}={v}" for k, v in report.counts().items()) + "\n")
    for i, flags in enumerate(report.flags):
        if flags:
            kind = rows[i].get("extra_info", {}).get("kind")
            penalty = scores[i].info.get("monitor_penalty")
            tail = f"  -> reward {scores[i].value:+.2f} ({', '.join(penalty)})" if penalty else ""
            out(f"  {samples[i].uid} #{i:<2} {kind:<10} {report.reasons(i)}{tail}\n")
    out("\nlogger metrics: " + json.dumps({k: round(v, 3) for k, v in report.log_metrics().items()}) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rollouts", nargs="?", type=Path, default=HERE / "rollouts.jsonl")
    parser.add_argument("-o", "--output", type=Path, help="write the scored rows here (JSONL)")
    args = parser.parse_args(argv)
    rows, samples = load(args.rollouts)
    scores, report, lengths = score(samples)
    print_report(rows, samples, scores, report)
    if args.output is not None:
        with args.output.open("w", encoding="utf-8") as f:
            for row, s, n in zip(rows, scores, lengths, strict=True):
                scored = {**row, "score": s.value, "status": s.status.value, "metrics": s.metrics}
                f.write(json.dumps({**scored, "info": s.info, "response_length": n}, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
