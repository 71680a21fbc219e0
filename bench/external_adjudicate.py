"""Show, blind, the external-output rows still to be adjudicated; append verdicts to bench/adjudication/.

``show``: the disputed rows of a source and split (ids written by ``bench/external_outputs.py``) that have no
record yet in ``bench/adjudication/<source>.jsonl``: prompt (tail), response (tail), gold. Neither the graders'
verdicts nor the source label are shown. ``add``: read ``id<TAB>verdict(1/0)<TAB>reason`` lines from stdin and
append them (ids only, verdict and a one-line reason: no third-party text).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import read_jsonl
from external_outputs import ADJUDICATION, EXTDATA


def _records(source: str) -> dict[str, dict]:
    path = ADJUDICATION / f"{source}.jsonl"
    return {r["id"]: r for r in read_jsonl(path)} if path.exists() else {}


def show(source: str, split: str, prompt_chars: int, response_chars: int, limit: int) -> int:
    ids_path = EXTDATA / "disputed" / split / f"{source}.txt"
    if not ids_path.exists():
        print(f"{ids_path} not found: run bench/external_outputs.py --split {split} first", file=sys.stderr)
        return 1
    wanted = [i for i in ids_path.read_text(encoding="utf-8").split() if i not in _records(source)]
    rows = {r["id"]: r for r in read_jsonl(EXTDATA / split / f"{source}.jsonl")}
    for n, rid in enumerate(wanted[:limit]):
        r = rows[rid]
        prompt = r["prompt"] if len(r["prompt"]) <= prompt_chars else "…" + r["prompt"][-prompt_chars:]
        resp = (
            r["response"] if len(r["response"]) <= response_chars else "…" + r["response"][-response_chars:]
        )
        print(f"=== [{n}] {rid}\nPROMPT: {prompt}\nRESPONSE: {resp}\nGOLD: {r['gold']}\n")
    print(f"({len(wanted)} to adjudicate, {min(limit, len(wanted))} shown)", file=sys.stderr)
    return 0


def add(source: str, split: str) -> int:
    known = _records(source)
    path = ADJUDICATION / f"{source}.jsonl"
    n = 0
    with open(path, "a", encoding="utf-8") as fh:
        for line in sys.stdin:
            if not line.strip():
                continue
            rid, verdict, reason = line.rstrip("\n").split("\t", 2)
            if rid in known:
                continue
            known[rid] = {}
            rec = {"id": rid, "split": split, "verdict": verdict.strip() == "1", "reason": reason.strip()}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    print(f"{n} verdicts added to {path}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("show", "add"))
    parser.add_argument("--source", required=True)
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--prompt-chars", type=int, default=300)
    parser.add_argument("--response-chars", type=int, default=600)
    parser.add_argument("--limit", type=int, default=40)
    args = parser.parse_args()
    if args.action == "show":
        return show(args.source, args.split, args.prompt_chars, args.response_chars, args.limit)
    return add(args.source, args.split)


if __name__ == "__main__":
    sys.exit(main())
