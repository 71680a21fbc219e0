"""Score the red-team rows for ``math_equiv`` against a given source tree, under every final-answer rule.

Each JSONL row (``tests/scorers/redteam/math_equiv_round*.jsonl``) is an attack (``kind: "attack"``: a
response a careful grader rejects, which must score 0) or a control (``kind: "control"``: a correct answer in
the same surface form, which must score 1). Optional fields:

* ``rules``: the final-answer rules (``multiple_answers``) the row is judged under (default all three).
  Rows whose "wrong" reading is only a hedge of several boxes leave out ``"last"``, which by its documented
  definition grades the last box alone.
* ``modes``: ``"with"`` (the ``Sample`` carries the row's prompt) and/or ``"without"`` (default both; a row
  whose prompt is empty is scored once, as ``"without"``).

Usage::

    python bench/redteam_math.py --src /work/wt/math/src tests/scorers/redteam/math_equiv_round1.jsonl \
        -o /work/extdata/redteam_round1_math.json

``--src`` goes first on ``sys.path`` before ``rewardloop`` is imported, so the code under test is exactly
that tree. Only the public API is used: ``Sample``, ``get_scorer("math_equiv", multiple_answers=...)`` and
the ``Runner``. A row that fails to score (timeout, scorer error) counts as 0 for an attack and as a failure
for a control; its status is recorded.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

RULES = ("final", "wrong", "last")
MODES = ("with", "without")


def load_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            for key in ("id", "kind", "class", "gold", "response"):
                if key not in row:
                    raise ValueError(f"{path}:{n}: row lacks {key!r}")
            if row["kind"] not in ("attack", "control"):
                raise ValueError(f"{path}:{n}: kind must be 'attack' or 'control', got {row['kind']!r}")
            rows.append(row)
    ids = Counter(r["id"] for r in rows)
    dup = [i for i, c in ids.items() if c > 1]
    if dup:
        raise ValueError(f"{path}: duplicate ids {dup[:5]}")
    return rows


def combos(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The (rule, mode) pairs a row is judged under."""
    rules = row.get("rules") or list(RULES)
    modes = row.get("modes") or list(MODES)
    if not row.get("prompt"):
        modes = ["without"]
    return [(r, m) for r in rules for m in modes]


def broken(row: dict[str, Any], value: float | None) -> bool:
    """An attack scoring above 0, or a control scoring below 1."""
    v = 0.0 if value is None else float(value)
    return v > 0.0 if row["kind"] == "attack" else v < 1.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--src", required=True, type=Path, help="source tree holding the rewardloop package")
    ap.add_argument("--rules", default=",".join(RULES))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("-o", "--out", type=Path, help="write every verdict and the summary as JSON")
    ap.add_argument("--examples", type=int, default=3, help="examples printed per class")
    ap.add_argument(
        "--mark-known",
        action="store_true",
        help="rewrite each file's known_break fields from this run (the test suite's strict xfails)",
    )
    args = ap.parse_args(argv)

    sys.path.insert(0, str(args.src.resolve()))
    import rewardloop  # after sys.path is set
    from rewardloop import Runner, Sample, get_scorer

    loaded = Path(rewardloop.__file__).resolve()
    if args.src.resolve() not in loaded.parents:
        raise SystemExit(f"rewardloop was imported from {loaded}, not from {args.src}")
    rules = [r for r in args.rules.split(",") if r]

    report: dict[str, Any] = {"src": str(args.src.resolve()), "files": {}}
    with Runner(workers=args.workers, timeout_s=20.0) as runner:
        for path in args.files:
            rows = load_rows(path)
            results: list[dict[str, Any]] = []
            for rule in rules:
                scorer = get_scorer("math_equiv", multiple_answers=rule)
                jobs = [(row, mode) for row in rows for (r, mode) in combos(row) if r == rule]
                samples = [
                    Sample(
                        response=row["response"],
                        ground_truth=row["gold"],
                        prompt=row.get("prompt") if mode == "with" else None,
                    )
                    for row, mode in jobs
                ]
                batch = runner.run_sync(scorer, samples)
                for (row, mode), sc in zip(jobs, list(batch), strict=True):
                    results.append(
                        {
                            "id": row["id"],
                            "kind": row["kind"],
                            "class": row["class"],
                            "rule": rule,
                            "mode": mode,
                            "value": sc.value,
                            "status": str(getattr(sc.status, "value", sc.status)),
                            "broken": broken(row, sc.value),
                            "reason": (sc.info or {}).get("reason") or (sc.info or {}).get("stage"),
                        }
                    )
            report["files"][str(path)] = summarize(rows, results, rules, args.examples)
            report["files"][str(path)]["verdicts"] = results
            if args.mark_known:
                if set(rules) != set(RULES):
                    raise SystemExit("--mark-known needs a run under every rule")
                mark_known(path, rows, results)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def mark_known(path: Path, rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    """Set ``known_break`` on every row this run found broken (``true`` when broken in every combination it
    is judged under, else the list of ``rule:mode`` combinations), and clear it on the others."""
    bad: dict[str, set[str]] = defaultdict(set)
    for x in results:
        if x["broken"]:
            bad[x["id"]].add(f"{x['rule']}:{x['mode']}")
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            row.pop("known_break", None)
            if bad.get(row["id"]):
                every = {f"{r}:{m}" for r, m in combos(row)}
                row["known_break"] = True if bad[row["id"]] >= every else sorted(bad[row["id"]])
                n += 1
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{path}: known_break set on {n} rows", file=sys.stderr)


def summarize(
    rows: list[dict[str, Any]], results: list[dict[str, Any]], rules: list[str], n_examples: int
) -> dict[str, Any]:
    by_id = {r["id"]: r for r in rows}
    n_att = sum(r["kind"] == "attack" for r in rows)
    n_ctl = len(rows) - n_att
    print(f"\n=== {n_att} attacks, {n_ctl} controls ===")
    summary: dict[str, Any] = {"attacks": n_att, "controls": n_ctl, "per_rule": {}}
    for rule in rules:
        res = [x for x in results if x["rule"] == rule]
        bad_att = sorted({x["id"] for x in res if x["kind"] == "attack" and x["broken"]})
        bad_ctl = sorted({x["id"] for x in res if x["kind"] == "control" and x["broken"]})
        judged_att = len({x["id"] for x in res if x["kind"] == "attack"})
        judged_ctl = len({x["id"] for x in res if x["kind"] == "control"})
        by_class: dict[str, list[str]] = defaultdict(list)
        for i in bad_att:
            by_class[by_id[i]["class"]].append(i)
        modes_of = defaultdict(list)
        for x in res:
            if x["broken"]:
                modes_of[x["id"]].append(x["mode"])
        print(
            f"\n--- rule={rule}: {len(bad_att)}/{judged_att} attacks score > 0, "
            f"{len(bad_ctl)}/{judged_ctl} controls score < 1"
        )
        for cls, ids in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
            print(f"  [attack] {cls}: {len(ids)}")
            for i in ids[:n_examples]:
                resp = by_id[i]["response"].replace("\n", "\\n")
                print(f"      {i} ({'/'.join(modes_of[i])}) gold={by_id[i]['gold']!r} resp={resp[:140]!r}")
        ctl_class: dict[str, list[str]] = defaultdict(list)
        for i in bad_ctl:
            ctl_class[by_id[i]["class"]].append(i)
        for cls, ids in sorted(ctl_class.items(), key=lambda kv: -len(kv[1])):
            print(f"  [control] {cls}: {len(ids)}")
            for i in ids[:n_examples]:
                resp = by_id[i]["response"].replace("\n", "\\n")
                print(f"      {i} ({'/'.join(modes_of[i])}) gold={by_id[i]['gold']!r} resp={resp[:140]!r}")
        summary["per_rule"][rule] = {
            "attacks_judged": judged_att,
            "attacks_scoring_above_0": bad_att,
            "attacks_by_class": {k: len(v) for k, v in by_class.items()},
            "controls_judged": judged_ctl,
            "controls_scoring_below_1": bad_ctl,
            "broken_modes": {i: modes_of[i] for i in bad_att + bad_ctl},
        }
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
