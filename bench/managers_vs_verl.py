"""The reward managers (issue 4) side by side with verl 0.9.1's, on this machine's cores.

Sections (one run; the ratios are against verl measured in the same run):

1. **managers** -- the classic batch path for cheap scorers: 1,024 gsm8k + MATH rollouts (correct,
   equivalent, wrong, unparsable, long and truncated chains of thought built from ``../shared/data``) x a
   1,024-token response width, tokenised by a byte-level BPE tokenizer trained here and saved with
   ``save_pretrained`` (both venvs load the same files). In ``.venv-verl`` (verl and rewardloop in one
   interpreter, same tokenizer object, same ``DataProto``), warm and in alternating rounds: verl's
   ``NaiveRewardManager`` on the ``DataProto``; ours ``NaiveRewardManager(tok, 0)(data, return_dict=True)``
   on the ``DataProto`` and on a ``RolloutBatch`` of the same tensors. Also ours in rewardloop's own
   ``.venv`` on the ``RolloutBatch``. Samples/s (best of ``--repeats``), ratios (issue goal: >= 5x), where
   our time goes, and the rows where the reward tensors differ, with the reason.
2. **placement** -- token placement alone, 1,024 x 8,192: ``place_at_last_token`` (from lengths, and
   from a ``response_mask``) vs per-row Python loops (``t[i, len_i - 1] = score_i``; verl's form reads each
   row's length from its mask as a 0-d tensor). Best of ``--repeats``; rows where the results differ.
3. **loop** -- ``compute_rm_score`` on the same batch: ours on the local runner (from section 1) and on
   Ray (``{"backend": "ray", "num_workers": 2}``) vs verl's reward loop (``RewardLoopManager`` with 2
   ``RewardLoopWorker`` actors), each side on its own ``ray.init(num_cpus=2)``.

Writes ``bench/results/managers.json`` and prints a markdown table; ``--tables`` prints it from the JSON.
Needs ``.venv-verl`` (``bench/run_all.sh`` creates it); without it only our contenders run, and it says so.
Nothing here is a timed assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import OURS_PYTHON, REPO, RESULTS, VERL_PYTHON, data_dir, read_jsonl, verl_available, versions
from _common import write_json as _write_json

SIDE = Path(__file__).resolve().parent / "_managers_side.py"
OUT = RESULTS / "managers.json"
BASELINE = "verl_naive"


def log(msg: str) -> None:
    print(f"[managers_vs_verl {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def ratio(ours: float | None, base: float | None) -> float | None:
    return round(ours / base, 2) if ours and base else None


def sps(n: int, best_s: float | None) -> float | None:
    return round(n / best_s, 1) if best_s else None


# --------------------------------------------------------------------------- subprocesses


def run_side(
    python: Path, mode: str, folder: Path, args: argparse.Namespace, tag: str = ""
) -> dict[str, Any]:
    out = folder / f"side_{tag}{mode}.json"
    cmd = [str(python), str(SIDE), "--mode", mode, "--dir", str(folder), "--output", str(out)]
    cmd += ["--repeats", str(args.repeats), "--workers", str(args.workers), "--cpus", str(args.cpus)]
    cmd += ["--tag", tag]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    t0 = time.perf_counter()
    before = load()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=args.timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} under {python} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    report = json.loads(out.read_text())
    report["process_wall_s"] = round(time.perf_counter() - t0, 1)
    report["loadavg_before_after"] = [before, load()]
    return report


def interpreter_versions(python: Path) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json\n"
        "out = {}\n"
        "for p in ('torch', 'transformers', 'tokenizers', 'ray', 'numpy', 'tensordict', 'verl'):\n"
        "    try: out[p] = m.version(p)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))"
    )
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


# --------------------------------------------------------------------------- section 1 and 3


def section_managers(folder: Path, n: int, args: argparse.Namespace, has_verl: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"n": n}
    if has_verl:
        log("managers: verl and ours in .venv-verl, alternating rounds")
        result["verl_venv"] = run_side(VERL_PYTHON, "managers", folder, args)
    log("managers: ours in .venv (RolloutBatch)")
    result["ours_venv"] = run_side(OURS_PYTHON, "managers", folder, args, tag="native_")
    return result


def section_loop(folder: Path, args: argparse.Namespace, has_verl: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    python = VERL_PYTHON if has_verl else OURS_PYTHON
    if args.no_ray:
        return {"skipped": "--no-ray"}
    log("loop: ours on Ray")
    try:
        result["ours_ray"] = run_side(python, "ours-ray", folder, args)
    except Exception as exc:
        result["ours_ray"] = {"error": str(exc)[-2000:]}
    if has_verl:
        log("loop: verl's reward loop on Ray")
        try:
            result["verl_loop"] = run_side(VERL_PYTHON, "verl-loop", folder, args)
        except Exception as exc:
            result["verl_loop"] = {"error": str(exc)[-2000:]}
    return result


# --------------------------------------------------------------------------- section 2


def section_placement(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from rewardloop.managers import place_at_last_token

    b, width = args.placement_rows, args.placement_width
    gen = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, width + 1, (b,), generator=gen)
    lengths[:: max(1, b // 10)] = 0  # a few empty responses
    lengths[1 :: max(1, b // 7)] = width  # and some that fill the width
    mask = (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)).long()
    scores = torch.rand(b, generator=gen)
    score_list = scores.tolist()

    def ours_lengths() -> Any:
        return place_at_last_token(scores, lengths=lengths, width=width)[0]

    def ours_lengths_list() -> Any:  # what the managers pass: a list of Python floats
        return place_at_last_token(score_list, lengths=lengths, width=width)[0]

    def ours_mask() -> Any:
        return place_at_last_token(scores, response_mask=mask)[0]

    def loop_int() -> Any:  # the leanest loop: lengths as Python ints
        out = torch.zeros(b, width, dtype=torch.float32)
        for i, n_i in enumerate(lengths.tolist()):
            out[i, n_i - 1] = score_list[i]
        return out

    def loop_verl() -> Any:  # verl's form: each row's length read from its mask (a 0-d tensor index)
        out = torch.zeros(b, width, dtype=torch.float32)
        for i in range(b):
            valid = mask[i].sum()
            out[i, valid - 1] = score_list[i]
        return out

    def alloc_floor() -> Any:  # what every variant pays: the (b, width) zero tensor
        return torch.zeros(b, width, dtype=torch.float32)

    fns = {
        "alloc_floor": alloc_floor,
        "ours_lengths": ours_lengths,
        "ours_lengths_list": ours_lengths_list,
        "ours_mask": ours_mask,
        "loop_int": loop_int,
        "loop_verl": loop_verl,
    }
    report: dict[str, Any] = {"rows": b, "width": width, "empty_rows": int((lengths == 0).sum())}
    outs = {name: fn() for name, fn in fns.items()}  # warm
    runs: dict[str, list[float]] = {name: [] for name in fns}
    repeats = max(args.repeats, 5)  # cheap: a few more rounds steady the numbers
    report["repeats"] = repeats
    for r in range(repeats):
        names = list(fns)
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t0 = time.perf_counter()
            outs[name] = fns[name]()
            runs[name].append(time.perf_counter() - t0)
    for name in fns:
        report[name] = {"runs_s": runs[name], "best_s": min(runs[name])}
    report["ours_lengths_over_loop_int"] = ratio(
        report["loop_int"]["best_s"], report["ours_lengths"]["best_s"]
    )
    report["ours_lengths_list_over_loop_int"] = ratio(
        report["loop_int"]["best_s"], report["ours_lengths_list"]["best_s"]
    )
    report["ours_mask_over_loop_verl"] = ratio(report["loop_verl"]["best_s"], report["ours_mask"]["best_s"])
    report["agreement"] = _placement_agreement(outs, lengths)
    return report


def _placement_agreement(outs: dict[str, Any], lengths: Any) -> dict[str, Any]:
    """Rows where ours and the loops differ; expected: only the empty rows (the loop writes column -1)."""
    empty = lengths == 0
    out: dict[str, Any] = {}
    for ours in ("ours_lengths", "ours_lengths_list", "ours_mask"):
        for loop in ("loop_int", "loop_verl"):
            differs = (outs[ours] != outs[loop]).any(dim=1)
            out[f"{ours}_vs_{loop}"] = {
                "rows_differ": int(differs.sum()),
                "of_which_empty": int((differs & empty).sum()),
                "loop_wrote_padding_column_of_empty_rows": int((outs[loop][empty, -1] != 0).sum()),
            }
    return out


# --------------------------------------------------------------------------- agreement of reward tensors


def tensor_agreement(folder: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every saved reward tensor against verl's ``NaiveRewardManager`` (or, without verl, ours)."""
    import torch

    tensors = {p.stem.removeprefix("reward_"): torch.load(p) for p in sorted(folder.glob("reward_*.pt"))}
    if not tensors:
        return {}
    base_name = BASELINE if BASELINE in tensors else next(iter(tensors))
    base = tensors[base_name]
    out: dict[str, Any] = {"baseline": base_name}
    for name, t in tensors.items():
        if name == base_name:
            continue
        out[name] = _compare(base, t, rows)
    ours = {k: v for k, v in tensors.items() if "ours" in k}
    if ours:
        first = next(iter(ours))
        out["ours_paths_rows_differ_from_" + first] = {
            k: int((v != ours[first]).any(dim=1).sum()) for k, v in ours.items() if k != first
        }
    return out


def _compare(base: Any, other: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    import torch

    if base.shape != other.shape:
        return {"error": f"shapes differ: {tuple(base.shape)} vs {tuple(other.shape)}"}
    differs = (base != other).any(dim=1)
    value_b, value_o = base.sum(dim=1), other.sum(dim=1)
    value_diff = ~torch.isclose(value_b, value_o)
    reasons: Counter[str] = Counter()
    forms: Counter[str] = Counter()
    examples = []
    for i in torch.nonzero(differs).flatten().tolist():
        row = rows[i]
        if bool(value_diff[i]):
            why = f"value {row['data_source']}/{row['kind']}: verl {value_b[i]:g} ours {value_o[i]:g}"
            forms[_answer_form(row)] += 1
        else:
            why = f"position only ({row['data_source']}/{row['kind']}, {row['response_tokens']} tokens)"
        reasons[why] += 1
        if len(examples) < 12:
            examples.append(
                {
                    "row": i,
                    "data_source": row["data_source"],
                    "kind": row["kind"],
                    "ground_truth": row["ground_truth"],
                    "response_tail": row["response"][-100:],
                    "baseline": float(value_b[i]),
                    "other": float(value_o[i]),
                    "baseline_col": _nonzero_cols(base[i]),
                    "other_col": _nonzero_cols(other[i]),
                }
            )
    return {
        "rows_differ": int(differs.sum()),
        "value_differs": int(value_diff.sum()),
        "position_only": int((differs & ~value_diff).sum()),
        "reasons": dict(reasons.most_common()),
        "value_differs_by_answer_form": dict(forms.most_common()),
        "examples": examples,
    }


_GSM8K_MARK = re.compile(r"####\s*(\S+)")


def _answer_form(row: dict[str, Any]) -> str:
    """How the final answer of a row whose reward differs is written (see docs/verl-differences.md)."""
    if row["data_source"] != "openai/gsm8k":
        return f"{row['data_source']}: see examples"
    marks = _GSM8K_MARK.findall(row["response"])
    if not marks:
        return "gsm8k: no '#### N' marker"
    answer = marks[-1]
    if answer.startswith("$"):
        return "gsm8k: '#### $N' (verl's regex cannot match '$')"
    if re.fullmatch(r"-?\d+\.0+\.?", answer):
        return "gsm8k: '#### N.00' (verl compares strings)"
    if "," in answer:
        return "gsm8k: '#### 1,234' (verl keeps the comma)"
    if answer.endswith("."):
        return "gsm8k: '#### N.' (verl keeps the period)"
    return f"gsm8k: other ({answer[:20]!r})"


def _nonzero_cols(row: Any) -> list[int]:
    import torch

    return torch.nonzero(row).flatten().tolist()


# --------------------------------------------------------------------------- summary


_LABELS = {
    "verl_naive": "verl `NaiveRewardManager`, DataProto (.venv-verl)",
    "ours_naive_dataproto": "ours `NaiveRewardManager`, DataProto (.venv-verl)",
    "ours_naive_rollout": "ours `NaiveRewardManager`, RolloutBatch (.venv-verl)",
    "ours_loop_local_dataproto": "ours `compute_rm_score`, local runner, DataProto (.venv-verl)",
    "ours_loop_local_rollout": "ours `compute_rm_score`, local runner, RolloutBatch (.venv-verl)",
    "native_ours_naive_rollout": "ours `NaiveRewardManager`, RolloutBatch (.venv, own process)",
    "native_ours_loop_local_rollout": "ours `compute_rm_score`, local runner, RolloutBatch (.venv, own process)",
    "verl_loop_ray": "verl reward loop `compute_rm_score`, 2 Ray workers",
    "ours_loop_ray_dataproto": "ours `compute_rm_score`, Ray 2 actors, DataProto",
    "ours_loop_ray_rollout": "ours `compute_rm_score`, Ray 2 actors, RolloutBatch",
}
_LOOP_KEYS = ("ours_loop_local_dataproto", "ours_loop_local_rollout", "native_ours_loop_local_rollout")


def _median(values: list[float]) -> float | None:
    values = sorted(values)
    return values[len(values) // 2] if values else None


def summarise(report: dict[str, Any]) -> dict[str, Any]:
    """One entry per contender: best time, samples/s, ratios to verl's naive manager and reward loop.

    ``x_verl_naive_median_round`` is the median over the alternating rounds of verl's time over ours in the
    same round (only for contenders timed in verl's process): steadier than best-of on a loaded machine.
    """
    n = report["workload"]["rows"]
    m = report.get("managers", {})
    verl_side, native = m.get("verl_venv", {}), m.get("ours_venv", {})
    loop = report.get("loop", {})
    timed: dict[str, dict[str, Any]] = {}
    for key, item in verl_side.items():
        if isinstance(item, dict) and "best_s" in item:
            timed[key] = item
    for key, item in native.items():
        if isinstance(item, dict) and "best_s" in item:
            timed[f"native_{key}"] = item
    for side in ("ours_ray", "verl_loop"):
        for key, item in loop.get(side, {}).items():
            if isinstance(item, dict) and "best_s" in item:
                timed[key] = item
    naive = timed.get("verl_naive", {})
    verl_loop = timed.get("verl_loop_ray", {}).get("best_s")
    out: dict[str, Any] = {}
    for key, item in timed.items():
        best = item["best_s"]
        entry: dict[str, Any] = {
            "what": _LABELS.get(key, key),
            "best_s": round(best, 4),
            "samples_per_s": sps(n, best),
            "x_verl_naive": ratio(naive.get("best_s"), best),
            "status": item.get("status"),
        }
        if key in verl_side and naive and key != "verl_naive":
            per_round = [v / o for v, o in zip(naive["runs_s"], item["runs_s"], strict=False)]
            entry["x_verl_naive_median_round"] = round(_median(per_round) or 0, 2)
        if verl_loop and (key in _LOOP_KEYS or key.startswith(("ours_loop_ray", "verl_loop"))):
            entry["x_verl_loop"] = ratio(verl_loop, best)
        if "startup_s" in item:
            entry["startup_s"] = round(item["startup_s"], 1)
        out[key] = entry
    return out


def analysis(report: dict[str, Any]) -> dict[str, Any]:
    """Where our classic call spends its time (``verl_venv`` breakdown) and what bounds the ratio to verl."""
    side = report.get("managers", {}).get("verl_venv", {})
    parts = side.get("breakdown")
    verl = side.get(BASELINE, {}).get("best_s")
    if not parts or not verl:
        return {}
    decode_floor = parts["alt: backend_tokenizer.decode_batch(lists)"]
    return {
        "verl_naive_best_s": round(verl, 4),
        "ours_parts_s": {
            k: round(v, 4) for k, v in parts.items() if not k.startswith("alt") and isinstance(v, float)
        },
        "decode_now_over_rust_decode_batch": ratio(parts["read_batch (decode + samples)"], decode_floor),
        # issue 13's goal: the whole classic call within 1.3x of the decode floor (timed in the same rounds)
        "whole_call_over_rust_decode_batch": ratio(parts.get("whole classic call"), decode_floor),
        "runner_over_direct_scoring": ratio(
            parts["score (manager + runner)"], parts["alt: scorer.score per sample, no runner"]
        ),
        "max_ratio_if_only_rust_decode_remained": ratio(verl, decode_floor),
    }


def table(report: dict[str, Any]) -> str:
    n = report.get("workload", {}).get("rows")
    lines = [
        f"{n} rows x {report.get('workload', {}).get('response_width')} response tokens; best of "
        f"{report.get('settings', {}).get('repeats')}; load average {report.get('machine', {}).get('loadavg_start')}"
        f" -> {report.get('machine', {}).get('loadavg_end')} on {report.get('machine', {}).get('cpus')} CPUs.",
        "",
        "| contender | best s | samples/s | x verl naive | x verl naive, median round | x verl loop "
        "| statuses | start-up s |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]

    def cell(value: Any) -> str:
        return "" if value is None else str(value)

    for item in report.get("summary", {}).values():
        status = ", ".join(f"{k} {v}" for k, v in (item.get("status") or {}).items())
        lines.append(
            f"| {item['what']} | {item['best_s']} | {item['samples_per_s']} | {cell(item.get('x_verl_naive'))} "
            f"| {cell(item.get('x_verl_naive_median_round'))} | {cell(item.get('x_verl_loop'))} | {status} "
            f"| {cell(item.get('startup_s'))} |"
        )
    a = report.get("analysis")
    if a:
        parts = ", ".join(f"{k} {v}" for k, v in a["ours_parts_s"].items())
        lines += [
            "",
            f"Our classic call, part by part (s): {parts}. The whole call costs "
            f"{a.get('whole_call_over_rust_decode_batch')}x the Rust `decode_batch` of the same ids (the decode "
            "floor, timed in the same rounds). Decoding now costs "
            f"{a['decode_now_over_rust_decode_batch']}x the Rust `decode_batch` of the same ids; the runner costs "
            f"{a['runner_over_direct_scoring']}x calling the scorers directly. Even if only the Rust decode "
            f"remained, ours would be {a['max_ratio_if_only_rust_decode_remained']}x verl's naive manager.",
        ]
    p = report.get("placement")
    if p:
        lines += [
            "",
            f"Token placement, {p['rows']} x {p['width']} ({p['empty_rows']} empty rows), best of runs:",
            "",
            "| placement | best ms | speed-up |",
            "|---|---:|---:|",
            f"| `torch.zeros(b, width)` alone (the floor) | {p['alloc_floor']['best_s'] * 1e3:.2f} | |",
            f"| per-row loop, int lengths | {p['loop_int']['best_s'] * 1e3:.2f} | 1 |",
            f"| `place_at_last_token(tensor, lengths=)` | {p['ours_lengths']['best_s'] * 1e3:.2f} "
            f"| {p['ours_lengths_over_loop_int']} |",
            f"| `place_at_last_token(list, lengths=)` | {p['ours_lengths_list']['best_s'] * 1e3:.2f} "
            f"| {p['ours_lengths_list_over_loop_int']} |",
            f"| verl's loop (length from mask, 0-d tensor index) | {p['loop_verl']['best_s'] * 1e3:.2f} | 1 |",
            f"| `place_at_last_token(response_mask=)` | {p['ours_mask']['best_s'] * 1e3:.2f} "
            f"| {p['ours_mask_over_loop_verl']} |",
        ]
        worst = max(p["agreement"].values(), key=lambda a: a["rows_differ"])
        lines += [
            "",
            f"Rows where ours and a loop differ: at most {worst['rows_differ']}, of which "
            f"{worst['of_which_empty']} are empty responses (the loops write their score into padding column -1; "
            "ours leaves the row at 0).",
        ]
    agreement = report.get("agreement", {})
    if agreement:
        lines += ["", f"Reward tensors vs `{agreement.get('baseline')}` (rows that differ):", ""]
        for name, a in agreement.items():
            if isinstance(a, dict) and "rows_differ" in a:
                reasons = "; ".join(f"{k}: {v}" for k, v in a["reasons"].items()) or "-"
                lines.append(f"- `{name}`: {a['rows_differ']} ({reasons})")
                forms = a.get("value_differs_by_answer_form") or {}
                if forms:
                    lines.append("  - by answer form: " + "; ".join(f"{k}: {v}" for k, v in forms.items()))
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--response-tokens", type=int, default=1024)
    parser.add_argument("--vocab-size", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="reward-loop workers / Ray actors")
    parser.add_argument("--cpus", type=int, default=2, help="ray.init(num_cpus=...)")
    parser.add_argument("--placement-rows", type=int, default=1024)
    parser.add_argument("--placement-width", type=int, default=8192)
    parser.add_argument("--sections", default="managers,placement,loop")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray contenders")
    parser.add_argument("--timeout", type=float, default=900, help="limit per subprocess, seconds")
    parser.add_argument("--output", type=Path, default=OUT)
    parser.add_argument("--tables", action="store_true", help="print the table from --output and exit")
    args = parser.parse_args()
    if args.tables:
        saved = json.loads(args.output.read_text())
        saved["summary"] = summarise(saved)
        saved["analysis"] = analysis(saved)
        print(table(saved))
        return 0
    sections = set(args.sections.split(","))
    has_verl = verl_available()
    if not has_verl:
        log(
            f"verl is not importable from {VERL_PYTHON}; only our contenders run (bench/run_all.sh creates it)"
        )
    report: dict[str, Any] = {
        "versions": {**versions(), "ours_env": interpreter_versions(OURS_PYTHON)},
        "machine": {
            "cpus": os.cpu_count(),
            "usable_cpus": len(os.sched_getaffinity(0)),
            "loadavg_start": load(),
        },
        "settings": {k: v for k, v in vars(args).items() if k not in ("output", "tables")},
    }
    if has_verl:
        report["versions"]["verl_env"] = interpreter_versions(VERL_PYTHON)
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rl-managers-") as tmp:
        folder = Path(tmp)
        rows = prepare(folder, args, report)
        if "managers" in sections:
            report["managers"] = section_managers(folder, len(rows), args, has_verl)
        if "placement" in sections:
            log(f"placement: {args.placement_rows} x {args.placement_width}")
            before = load()
            report["placement"] = section_placement(args)
            report["placement"]["loadavg_before_after"] = [before, load()]
        if "loop" in sections:
            report["loop"] = section_loop(folder, args, has_verl)
        report["agreement"] = tensor_agreement(folder, rows)
    report["summary"] = summarise(report) if "managers" in sections or "loop" in sections else {}
    report["analysis"] = analysis(report)
    report["machine"]["loadavg_end"] = load()
    report["wall_s"] = round(time.perf_counter() - t_start, 1)
    _write_json(report, args.output)
    print(table(report))
    log(f"wrote {args.output.relative_to(REPO) if args.output.is_relative_to(REPO) else args.output}")
    return 0


def prepare(folder: Path, args: argparse.Namespace, report: dict[str, Any]) -> list[dict[str, Any]]:
    from _managers_data import gsm8k_math_rows, train_tokenizer, write_batch

    data = data_dir()
    if data is None:
        log("../shared/data is absent: rows come from examples/make_rollouts.py")
    rows = gsm8k_math_rows(data, args.rows)
    log(f"workload: {len(rows)} rows; training a {args.vocab_size}-token byte-level BPE tokenizer")
    tokenizer = train_tokenizer(rows, args.vocab_size, folder / "tokenizer")
    summary = write_batch(rows, tokenizer, args.response_tokens, folder)
    summary["shared_data"] = data is not None
    report["workload"] = summary
    return list(read_jsonl(folder / "rows.jsonl"))


if __name__ == "__main__":
    raise SystemExit(main())
