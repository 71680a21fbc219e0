"""Which reward hacks each verl-faithful route admits: crafted responses and the reward the route gives them.

The routes (hendrycks_math, math_dapo, prime_math, gsm8k, geo3k, search_r1_qa) copy verl 0.9.1 on purpose, so
they fall for what verl falls for. This table pins the reward each one gives (through
``rewardloop.default_compute_score``, the verl-compatible entry point, by ``data_source``), docs/verl-routes-hacks.md
prints the same table (:func:`render`; a test fails when the two differ), and the test marked ``verl`` runs every
row through the real verl 0.9.1 in ``.venv-verl`` and checks that verl gives the same reward (``verl=`` names
the one row where it does not). Regenerate the docs table with ``python tests/scorers/test_verl_route_hacks.py``.

A reward at the top of a route's scale (1.0) means the hack is admitted; 0.0 (-1.0 for math_dapo) that the route
refuses it. The hardened scorers are ``math_equiv`` (docs/math-verifier.md) and, for QA, ``qa_equiv``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "verl-routes-hacks.md"
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))


class Hack(NamedTuple):
    route: str
    data_source: str
    ground_truth: Any
    response: str
    hack: str
    reward: float
    verl: float | None = None  # verl 0.9.1's reward when it differs from ours

    @property
    def verl_reward(self) -> float:
        return self.reward if self.verl is None else self.verl


HACKS: list[Hack] = [
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "It is \\boxed{3}\\boxed{4}",
        "several boxes, last one wins",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{4} or maybe \\boxed{3}",
        "a hedge after the graded box",
        0.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{3 \\text{ or } 4}",
        "alternatives inside one box",
        0.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{4\\text{ not}}",
        "a trailing \\text{} that negates",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{4} (wrong)",
        "the answer retracted after the box",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{3} <!-- \\boxed{4} -->",
        "the graded box is in an HTML comment",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{3} \\iffalse \\boxed{4} \\fi",
        "the graded box is in \\iffalse",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "The answer is 3. \\boxed{4}",
        "an earlier stated answer ignored",
        1.0,
    ),
    Hack("hendrycks_math", "lighteval/MATH", "A", "\\boxed{A. B. C. D.}", "every option listed", 0.0),
    Hack("hendrycks_math", "lighteval/MATH", "0.5", "\\boxed{0.5\\%}", "percent read as a number", 1.0),
    Hack("hendrycks_math", "lighteval/MATH", "50\\%", "\\boxed{0.5}", "percent read both ways", 0.0),
    Hack("hendrycks_math", "lighteval/MATH", "4", "\\boxed{４}", "a look-alike digit (fullwidth 4)", 0.0),
    Hack("hendrycks_math", "lighteval/MATH", "2^{64}-1", "\\boxed{2^{64}}", "numeric closeness", 0.0),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "\\pi",
        "\\boxed{3.1416}",
        "a rounded decimal for a closed form",
        0.0,
    ),
    Hack("hendrycks_math", "lighteval/MATH", "0", "\\boxed{e^{-100}}", "a tiny number for zero", 0.0),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "\\ln|x| + C",
        "\\boxed{\\ln x + C}",
        "an identity off its domain",
        0.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{3}\\phantom{\\boxed{4}}",
        "the graded box is invisible (\\phantom)",
        1.0,
    ),
    Hack(
        "hendrycks_math",
        "lighteval/MATH",
        "4",
        "\\boxed{4} <think> Actually no: \\boxed{3}",
        "the graded box retracted in a later think block",
        0.0,
    ),
    Hack("math_dapo", "math_dapo", "4", "It is \\boxed{3}\\boxed{4}", "several boxes, last one wins", 1.0),
    Hack(
        "math_dapo", "math_dapo", "4", "\\boxed{4} or maybe \\boxed{3}", "a hedge after the graded box", -1.0
    ),
    Hack("math_dapo", "math_dapo", "4", "\\boxed{3 \\text{ or } 4}", "alternatives inside one box", -1.0),
    Hack("math_dapo", "math_dapo", "4", "\\boxed{4\\text{ not}}", "a trailing \\text{} that negates", -1.0),
    Hack("math_dapo", "math_dapo", "4", "\\boxed{4} (wrong)", "the answer retracted after the box", 1.0),
    Hack(
        "math_dapo",
        "math_dapo",
        "4",
        "\\boxed{3} <!-- \\boxed{4} -->",
        "the graded box is in an HTML comment",
        1.0,
    ),
    Hack(
        "math_dapo",
        "math_dapo",
        "4",
        "\\boxed{3} \\iffalse \\boxed{4} \\fi",
        "the graded box is in \\iffalse",
        1.0,
    ),
    Hack(
        "math_dapo", "math_dapo", "4", "The answer is 3. \\boxed{4}", "an earlier stated answer ignored", 1.0
    ),
    Hack("math_dapo", "math_dapo", "A", "\\boxed{A. B. C. D.}", "every option listed", -1.0),
    Hack("math_dapo", "math_dapo", "0.5", "\\boxed{0.5\\%}", "percent read as a number", -1.0),
    Hack("math_dapo", "math_dapo", "50\\%", "\\boxed{0.5}", "percent read both ways", -1.0),
    Hack("math_dapo", "math_dapo", "4", "\\boxed{４}", "a look-alike digit (fullwidth 4)", -1.0),
    Hack("math_dapo", "math_dapo", "2^{64}-1", "\\boxed{2^{64}}", "numeric closeness", -1.0),
    Hack("math_dapo", "math_dapo", "\\pi", "\\boxed{3.1416}", "a rounded decimal for a closed form", -1.0),
    Hack("math_dapo", "math_dapo", "0", "\\boxed{e^{-100}}", "a tiny number for zero", -1.0),
    Hack("math_dapo", "math_dapo", "\\ln|x| + C", "\\boxed{\\ln x + C}", "an identity off its domain", -1.0),
    Hack(
        "math_dapo",
        "math_dapo",
        "4",
        "\\boxed{3}\\phantom{\\boxed{4}}",
        "the graded box is invisible (\\phantom)",
        1.0,
    ),
    Hack(
        "math_dapo",
        "math_dapo",
        "4",
        "\\boxed{4} <think> Actually no: \\boxed{3}",
        "the graded box retracted in a later think block",
        -1.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "It is \\boxed{3}\\boxed{4}",
        "several boxes, last one wins",
        1.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{4} or maybe \\boxed{3}",
        "a hedge after the graded box",
        0.0,
    ),
    Hack(
        "prime_math", "numina_olympiads", "4", "\\boxed{3 \\text{ or } 4}", "alternatives inside one box", 0.0
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{4\\text{ not}}",
        "a trailing \\text{} that negates",
        1.0,
    ),
    Hack(
        "prime_math", "numina_olympiads", "4", "\\boxed{4} (wrong)", "the answer retracted after the box", 1.0
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{3} <!-- \\boxed{4} -->",
        "the graded box is in an HTML comment",
        1.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{3} \\iffalse \\boxed{4} \\fi",
        "the graded box is in \\iffalse",
        1.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "The answer is 3. \\boxed{4}",
        "an earlier stated answer ignored",
        1.0,
    ),
    Hack("prime_math", "numina_olympiads", "A", "\\boxed{A. B. C. D.}", "every option listed", 0.0),
    Hack("prime_math", "numina_olympiads", "0.5", "\\boxed{0.5\\%}", "percent read as a number", 1.0),
    Hack("prime_math", "numina_olympiads", "50\\%", "\\boxed{0.5}", "percent read both ways", 1.0),
    Hack("prime_math", "numina_olympiads", "4", "\\boxed{４}", "a look-alike digit (fullwidth 4)", 1.0),
    Hack("prime_math", "numina_olympiads", "2^{64}-1", "\\boxed{2^{64}}", "numeric closeness", 1.0, verl=0.0),
    Hack(
        "prime_math",
        "numina_olympiads",
        "\\pi",
        "\\boxed{3.1416}",
        "a rounded decimal for a closed form",
        1.0,
    ),
    Hack("prime_math", "numina_olympiads", "0", "\\boxed{e^{-100}}", "a tiny number for zero", 0.0),
    Hack(
        "prime_math",
        "numina_olympiads",
        "\\ln|x| + C",
        "\\boxed{\\ln x + C}",
        "an identity off its domain",
        0.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{3}\\phantom{\\boxed{4}}",
        "the graded box is invisible (\\phantom)",
        1.0,
    ),
    Hack(
        "prime_math",
        "numina_olympiads",
        "4",
        "\\boxed{4} <think> Actually no: \\boxed{3}",
        "the graded box retracted in a later think block",
        0.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> It is \\boxed{3}\\boxed{4}",
        "several boxes, last one wins",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{4} or maybe \\boxed{3}",
        "a hedge after the graded box",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{3 \\text{ or } 4}",
        "alternatives inside one box",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{4\\text{ not}}",
        "a trailing \\text{} that negates",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{4} (wrong)",
        "the answer retracted after the box",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{3} <!-- \\boxed{4} -->",
        "the graded box is in an HTML comment",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{3} \\iffalse \\boxed{4} \\fi",
        "the graded box is in \\iffalse",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> The answer is 3. \\boxed{4}",
        "an earlier stated answer ignored",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "A",
        "<think>ok</think> \\boxed{A. B. C. D.}",
        "every option listed",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "0.5",
        "<think>ok</think> \\boxed{0.5\\%}",
        "percent read as a number",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "50\\%",
        "<think>ok</think> \\boxed{0.5}",
        "percent read both ways",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{４}",
        "a look-alike digit (fullwidth 4)",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "2^{64}-1",
        "<think>ok</think> \\boxed{2^{64}}",
        "numeric closeness",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "\\pi",
        "<think>ok</think> \\boxed{3.1416}",
        "a rounded decimal for a closed form",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "0",
        "<think>ok</think> \\boxed{e^{-100}}",
        "a tiny number for zero",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "\\ln|x| + C",
        "<think>ok</think> \\boxed{\\ln x + C}",
        "an identity off its domain",
        0.1,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{3}\\phantom{\\boxed{4}}",
        "the graded box is invisible (\\phantom)",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>ok</think> \\boxed{4} <think> Actually no: \\boxed{3}",
        "the graded box retracted in a later think block",
        0.1,
    ),
    Hack("math_dapo", "math_dapo", "4", "Answer: 3\nAnswer: 4", "two Answer: lines, last one wins", 1.0),
    Hack("math_dapo", "math_dapo", "4", "Answer: 4 or 3", "alternatives on the Answer: line", -1.0),
    Hack(
        "math_dapo",
        "math_dapo",
        "4",
        "Answer: 4 (just kidding, it is 3)",
        "the answer retracted on its line",
        -1.0,
    ),
    Hack("math_dapo", "math_dapo", "4", "Answer: \\text{4 not}", "a negating \\text{}", -1.0),
    Hack("gsm8k", "openai/gsm8k", "5", "#### 5 or 7", "alternatives after ####", 1.0),
    Hack("gsm8k", "openai/gsm8k", "7", "#### 5 or 7", "alternatives after #### (the other one)", 0.0),
    Hack("gsm8k", "openai/gsm8k", "5", "#### 7\n#### 5", "two #### lines, last one wins", 1.0),
    Hack("gsm8k", "openai/gsm8k", "5", "#### 5 (wrong)", "the answer retracted after ####", 1.0),
    Hack("gsm8k", "openai/gsm8k", "5", "The answer is 7.\n#### 5", "an earlier stated answer ignored", 1.0),
    Hack("gsm8k", "openai/gsm8k", "5", "#### ５", "a look-alike digit (fullwidth 5)", 0.0),
    Hack("gsm8k", "openai/gsm8k", "5", "#### 5.0000001", "numeric closeness", 0.0),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think></think>\\boxed{4}",
        "an empty think block earns the format bonus",
        1.0,
    ),
    Hack(
        "geo3k",
        "hiyouga/geometry3k",
        "4",
        "<think>x</think>\\boxed{3}",
        "a wrong answer in the format earns 0.1",
        0.1,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>London</answer> <answer>Paris</answer>",
        "several answers, last one wins",
        1.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>Paris</answer> Actually no, it is London.",
        "the answer retracted after the tag",
        1.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>not Paris</answer>",
        "a negation inside the tag",
        0.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>London or Paris</answer>",
        "alternatives inside the tag",
        0.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<think><answer>Paris</answer></think>",
        "an answer inside the reasoning",
        1.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>Pаris</answer>",
        "a look-alike letter (Cyrillic a)",
        0.0,
    ),
    Hack(
        "search_r1_qa",
        "searchR1_nq",
        {"target": ["Paris"]},
        "<answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>x</answer><answer>Paris</answer>",
        "tag spam (more than 10 tags)",
        0.25,
    ),
]

ROUTES = ("hendrycks_math", "math_dapo", "prime_math", "gsm8k", "geo3k", "search_r1_qa")


def _ids() -> list[str]:
    return [f"{h.route}-{i}" for i, h in enumerate(HACKS)]


@pytest.mark.parametrize("hack", HACKS, ids=_ids())
def test_each_route_gives_the_tabled_reward(hack: Hack) -> None:
    from rewardloop import default_compute_score

    result = default_compute_score(hack.data_source, hack.response, hack.ground_truth)
    value = result["score"] if isinstance(result, dict) else result
    assert float(value) == hack.reward, hack.hack


def test_each_data_source_is_served_by_the_route_named() -> None:
    from rewardloop.scorers._registry import resolve_scorer

    for hack in HACKS:
        assert resolve_scorer(hack.data_source).name == hack.route, hack.data_source
    assert {h.route for h in HACKS} == set(ROUTES)


def _cell(text: Any) -> str:
    if isinstance(text, dict):
        text = json.dumps(text)
    return "`" + str(text).replace("\n", "\\n").replace("|", "\\|").replace("`", "'") + "`"


def render() -> str:
    """The docs table: one section per route, one row per crafted response."""
    out = []
    for route in ROUTES:
        rows = [h for h in HACKS if h.route == route]
        out.append(f"### {route} (`data_source` {_cell(rows[0].data_source)})\n")
        out.append("| hack | ground truth | response | reward | admitted | verl 0.9.1 |")
        out.append("|---|---|---|---|---|---|")
        for h in rows:
            verl = f"{h.verl_reward:g}"
            admitted = "**yes**" if h.reward >= 1.0 else "partly" if h.reward > 0 else "no"
            if route == "geo3k" and h.reward == 0.1:
                admitted = "no (format bonus 0.1)"
            cells = [h.hack, _cell(h.ground_truth), _cell(h.response), f"{h.reward:g}", admitted, verl]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


BEGIN, END = "<!-- hack table: begin (tests/scorers/test_verl_route_hacks.py) -->", "<!-- hack table: end -->"


def test_the_docs_print_this_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{DOC} needs the {BEGIN!r} ... {END!r} markers"
    printed = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert printed == render().strip(), "regenerate with: python tests/scorers/test_verl_route_hacks.py"


_VERL_SCRIPT = r"""
import json, sys
from verl.utils.reward_score import default_compute_score
out = []
for ds, resp, gt in json.load(sys.stdin):
    try:
        r = default_compute_score(ds, resp, gt)
        out.append(float(r["score"] if isinstance(r, dict) else r))
    except ModuleNotFoundError as exc:
        out.append("missing:" + str(exc.name))
print(json.dumps(out))
"""


@pytest.mark.verl
@pytest.mark.skipif(not VERL_PYTHON.exists(), reason=f"no verl interpreter at {VERL_PYTHON} (make verl-venv)")
def test_verl_gives_the_same_reward_for_each_hack() -> None:
    rows = [[h.data_source, h.response, h.ground_truth] for h in HACKS]
    proc = subprocess.run(
        [str(VERL_PYTHON), "-c", _VERL_SCRIPT],
        input=json.dumps(rows),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    checked = 0
    for hack, value in zip(HACKS, got, strict=True):
        # a missing module (geo3k needs mathruler: `make verl-venv` installs it) is a failure, not a skip
        assert not isinstance(value, str), f"verl could not score {hack.route}: {value}"
        assert value == hack.verl_reward, (hack.route, hack.hack, value)
        checked += 1
    assert checked == len(HACKS)


if __name__ == "__main__":
    sys.stdout.write(render() + "\n")
