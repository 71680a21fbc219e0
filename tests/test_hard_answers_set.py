"""The hard-answers set (bench/hard_answers.jsonl) and the checks its builder applies to every pair."""

from __future__ import annotations

import importlib
import json
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "bench" / "hard_answers.jsonl"
DATA = REPO.parent / "shared" / "data"

pytest.importorskip("latex2sympy2_extended")
pytest.importorskip("sympy")


@pytest.fixture(scope="module")
def build():
    sys.path.insert(0, str(REPO / "bench"))
    try:
        yield importlib.import_module("hard_answers_build")
    finally:
        sys.path.remove(str(REPO / "bench"))


def test_a_pair_passes_only_when_the_correct_form_equals_the_gold_and_the_wrong_one_does_not(build):
    Cand, check = build.Cand, build.check
    assert check(Cand("c", "\\sqrt{117}", "\\sqrt{39}", ""), "3\\sqrt{13}")[0]
    assert not check(Cand("c", "\\sqrt{39}", "\\sqrt{117}", ""), "3\\sqrt{13}")[0]  # labels swapped
    assert not check(Cand("c", "\\sqrt{117}", "\\sqrt{117}", ""), "3\\sqrt{13}")[0]  # "wrong" is correct
    # decimals are exact: 0.333 is not 1/3, 0.125 is 1/8
    assert not check(Cand("c", "0.333", "0.3", ""), "\\frac{1}{3}")[0]
    assert check(Cand("c", "0.125", "0.12", ""), "\\frac{1}{8}")[0]


def test_the_written_text_must_agree_with_its_twin(build):
    c = build.Cand("c", "\\sqrt{118}", "\\sqrt{39}", "", c_twin="\\sqrt{117}", w_twin="\\sqrt{39}")
    ok, how = build.check(c, "3\\sqrt{13}")
    assert not ok and "disagrees" in how


def test_inequalities_are_compared_as_sets(build):
    Cand = build.Cand
    ok = Cand(
        "i",
        "",
        "",
        "",
        kind="relations",
        c_twin=["x < 2", "x > 3"],
        w_twin=["x \\le 2", "x > 3"],
        gold_twin="x",
    )
    assert build.check(ok, "(-\\infty, 2) \\cup (3, \\infty)")[0]
    swapped = Cand(
        "i",
        "",
        "",
        "",
        kind="relations",
        c_twin=["x \\le 2", "x > 3"],
        w_twin=["x < 2", "x > 3"],
        gold_twin="x",
    )
    assert not build.check(swapped, "(-\\infty, 2) \\cup (3, \\infty)")[0]


def test_equations_are_equal_up_to_a_nonzero_factor_only(build):
    Cand = build.Cand
    assert build.check(Cand("e", "-2x + y - 3 = 0", "2x + y - 3 = 0", ""), "y = 2x + 3")[0]
    assert not build.check(Cand("e", "2x + y - 3 = 0", "-2x + y - 3 = 0", ""), "y = 2x + 3")[0]


def test_repeating_decimals(build):
    assert build.repeating(Fraction(1, 6)) == "0.1\\overline{6}"
    assert build.repeating(Fraction(13, 6)) == "2.1\\overline{6}"
    assert build.repeating(Fraction(1, 7)) is None  # period 6: not offered
    assert build.repeating(Fraction(1, 8)) is None  # terminates


def test_unicode_math_round_trips(build):
    assert build.to_unicode("\\frac{5\\pi}{6}-\\sqrt{3}") == "5π/6-√3"
    assert build.to_unicode("-\\sqrt{3}") == "−√3"
    assert build.from_unicode("−√3") == "-\\sqrt{3}"
    assert build.to_unicode("\\binom{4}{2}") is None


def test_ratio_and_time_golds_are_not_read_as_numbers(build):
    p = {"source": "s", "ref": "r", "gold": "3:1", "problem": "What is the ratio?", "subject": "Algebra"}
    assert build._candidates(p, 1) == []
    p = dict(p, gold="9\\text{ a.m.}", problem="What time is it?")
    assert build._candidates(p, 1) == []


def _rows() -> list[dict]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_set_is_pairs_of_one_correct_and_one_wrong_row_in_one_split():
    rows = _rows()
    fields = {
        "id",
        "split",
        "source",
        "problem_ref",
        "gold",
        "response",
        "answer",
        "correct",
        "category",
        "note",
    }
    pairs = defaultdict(list)
    for r in rows:
        assert set(r) == fields
        pairs[r["id"][:-2]].append(r)
    assert len(pairs) >= 250
    for rs in pairs.values():
        assert sorted(r["correct"] for r in rs) == [False, True]
        assert len({(r["split"], r["category"], r["source"], r["problem_ref"], r["gold"]) for r in rs}) == 1
        c, w = sorted(rs, key=lambda r: not r["correct"])
        assert c["answer"] != w["answer"] and c["answer"] in c["response"] and w["answer"] in w["response"]
    splits = {r["split"] for r in rows}
    assert splits == {"dev", "test"}
    # a problem is in one split only
    by_problem = defaultdict(set)
    for r in rows:
        by_problem[(r["source"], r["problem_ref"])].add(r["split"])
    assert all(len(s) == 1 for s in by_problem.values())


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data not found")
def test_no_problem_text_is_stored_and_the_set_is_what_the_builder_makes(build):
    rows = _rows()
    problems = {(p["source"], p["ref"]): p["problem"] for p in build.load_problems(DATA)}
    for r in rows:
        text = problems[(r["source"], r["problem_ref"])]
        assert text[:80] not in r["response"], r["id"]
    assert build.main(["--out", str(SET), "--check"]) == 0  # rebuilt in memory, byte for byte
