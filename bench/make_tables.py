"""Print the markdown result tables of bench/README.md from bench/results/*.json.

.venv/bin/python bench/make_tables.py > /tmp/tables.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def _load(name: str) -> dict[str, Any] | None:
    path = RESULTS / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def parity(report: dict[str, Any]) -> list[str]:
    out = [
        f"Corpus: {report['corpus']['n']} responses (seed {report['corpus']['seed']}, shared data: "
        f"{'yes' if report['corpus']['shared_data'] else 'no'}); verl {report['versions'].get('verl', '?')}.",
        "",
        "| data_source | n | agree | disagree | verl_error | ours_error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for source, c in sorted(report["by_data_source"].items()):
        out.append(
            f"| `{source}` | {c['n']} | {c['agree']} | {c['disagree']} | {c['verl_error']} | {c['ours_error']} |"
        )
    o = report["overall"]
    out.append(
        f"| **total** | **{o.get('n', 0)}** | **{o.get('agree', 0)}** | **{o.get('disagree', 0)}** | "
        f"**{o.get('verl_error', 0)}** | **{o.get('ours_error', 0)}** |"
    )
    out += ["", "| category | count | right | what happens |", "|---|---:|---|---|"]
    for name, c in report["categories"].items():
        out.append(f"| `{name}` | {c['count']} | {c['right']} | {c['about']} |")
    return out


def throughput(report: dict[str, Any]) -> list[str]:
    out = [
        f"{report['method']}; corpus {report['corpus']['n']} responses.",
        "",
        "| data_source | n | verl samples/s | ours samples/s | ours / verl |",
        "|---|---:|---:|---:|---:|",
    ]
    for source, r in sorted(report["by_data_source"].items()):
        out.append(
            f"| `{source}` | {r['n']} | {_num(r['verl_samples_per_s'])} | {_num(r['ours_samples_per_s'])} | "
            f"{_num(r['ratio_ours_over_verl'], 2)} |"
        )
    o = report["overall"]
    out.append(
        f"| **overall** | **{o['n']}** | **{_num(o['verl_samples_per_s'])}** | **{_num(o['ours_samples_per_s'])}** "
        f"| **{_num(o['ratio_ours_over_verl'], 2)}** |"
    )
    return out


def gsm8k(report: dict[str, Any]) -> list[str]:
    out = [
        f"{report['n']} labelled GPT-3 solutions, {report['labelled_correct']} labelled correct.",
        "",
        "| impl | way | agreement | TP | FN | FP | TN |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for impl in ("ours", "verl"):
        for way, r in report.get(impl, {}).items():
            c = r["confusion"]
            out.append(
                f"| {impl} | {way} | {r['agreement']:.4f} | {c['label_correct_scored_1']} | "
                f"{c['label_correct_scored_0']} | {c['label_wrong_scored_1']} | {c['label_wrong_scored_0']} |"
            )
    return out


def _num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}" if digits or x >= 100 else f"{x:.1f}"


def main() -> int:
    for title, name, render in (
        ("Parity with verl", "parity_verl.json", parity),
        ("Throughput", "throughput.json", throughput),
        ("GSM8K labels", "gsm8k_labels.json", gsm8k),
    ):
        report = _load(name)
        if report is None:
            print(f"<!-- {name}: not found -->\n", file=sys.stdout)
            continue
        print(f"### {title}\n")
        print("\n".join(render(report)))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
