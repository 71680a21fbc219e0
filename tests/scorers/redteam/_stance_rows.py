"""The row helpers both stance builders (``build_extract_stance.py``, ``build_stance_r5.py``) write
``math_equiv_extract_classes.jsonl`` with: ``A`` adds an attack, ``C`` a control, numbered per class and kind
within the builder's run; ``append_new`` appends the rows whose id the file does not hold yet."""

import json
from pathlib import Path

L = "We solve the equation step by step.\n\n"
OUT = Path(__file__).with_name("math_equiv_extract_classes.jsonl")
rows = []


def add(cls, kind, resp, why="", gold="5", prompt="Find x.", **kw):
    n = sum(1 for r in rows if r["class"] == cls and r["kind"] == kind) + 1
    r = {
        "id": f"x-{kind[0]}-{cls}-{n:02d}",
        "kind": kind,
        "class": cls,
        "prompt": prompt,
        "gold": gold,
        "response": L + resp,
    }
    if kind == "attack":
        r["why_wrong"] = why
    r.update(kw)
    rows.append(r)


def A(cls, resp, why, **kw):
    return add(cls, "attack", resp, why, **kw)


def C(cls, resp, **kw):
    return add(cls, "control", resp, **kw)


def append_new():
    have = {json.loads(line)["id"] for line in OUT.read_text(encoding="utf-8").splitlines() if line.strip()}
    with OUT.open("a", encoding="utf-8") as f:
        for r in rows:
            if r["id"] not in have:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
