"""Issue 25's report v2: solve rates per data source, monitor flags with examples, reward components, worst /
truncated / failed examples with extracted answer and gold, pass@k from each group's own n with the group
count shown and failures excluded, integer k ticks, sorted groups, and ``report A B``."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")

from rewardloop.cli.main import main
from rewardloop.tools._report import _pass_at_k, build_comparison, build_report, report_data

from ..cli._util import write_jsonl


def _row(task, gid, score, status="ok", *, response="Answer: 1", gold="1", metrics=None, info=None, **extra):
    return {
        "data_source": task,
        "reward_model": {"ground_truth": gold},
        "response": response,
        "score": score,
        "status": status,
        "metrics": metrics or {},
        "info": info or {},
        "error": None if status == "ok" else "boom 7",
        "group_id": gid,
        **extra,
    }


def grpo_rows(n: int = 4) -> list[dict]:
    rows = []
    for p in range(6):  # 2 unsolved, 2 all solved, 2 mixed prompts
        for j in range(n):
            good = p >= 4 or (p >= 2 and j % 2 == 0)
            metrics = {"acc": 1.0 if good else -1.0, "acc_status": "ok", "tags": 0.5, "tags_status": "ok",
                       "monitor/hedging": p == 3 and j == 1, "monitor/any": p == 3 and j == 1,
                       "overlong": p == 5 and j == 0, "pred": "1" if good else "2"}  # fmt: skip
            rows.append(_row("math_dapo", f"p{p}", 1.0 if good else -1.0, metrics=metrics,
                             response=f"prompt {p} response {j}: Answer: {1 if good else 2}"))  # fmt: skip
    rows[0] = {**rows[0], "status": "timeout", "score": None, "error": "deadline 10 s"}
    return rows


def test_the_page_has_every_v2_section():
    page = build_report(grpo_rows())
    for title in ("Solve rate per prompt", "Reward components", "Reward-hacking monitors", "Examples",
                  "Lowest rewards", "Truncated (overlong)", "Failed"):  # fmt: skip
        assert title in page, title
    # components: the mean of each component's own reward
    assert re.search(r"<td>ALL</td><td>[-0-9.]+</td><td>0\.500</td>", page)
    # monitors: the count, and the flagged response with its gold and extracted answer
    assert "<td>hedging</td><td>1</td>" in page and "prompt 3 response 1" in page
    assert "gold <code>1</code> &middot; extracted <code>2</code>" in page


def test_pass_at_k_counts_groups_excludes_failures_and_says_so():
    page = build_report(grpo_rows())
    # one prompt lost a rollout to a timeout: n is 3-4, pass@4 comes from the 5 complete groups
    assert "<td>3-4</td>" in page
    assert re.search(r"pass@4</th>.*?<td>[0-9.]+ \(5\)</td>", page, re.S)
    assert "failed samples are left out" in page


def test_pass_at_k_ticks_are_integers():
    fig = _pass_at_k(report_data(grpo_rows(n=5)))
    ticks = [t for t in fig.axes[0].get_xticks() if 1 <= t <= 5]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_accuracy_groups_are_sorted_and_binary_rewards_have_only_their_ticks():
    from rewardloop.tools._report import _accuracy_per_group, _reward_distribution

    rows = [_row("s", None, 1.0, level=lv) for lv in ("Level 5", "Level 3", "Level 10", "Level 2")]
    d = report_data([{**r, "extra_info": {"level": r["level"]}} for r in rows], group_by="extra_info.level")
    labels = [t.get_text() for t in _accuracy_per_group(d, "extra_info.level").axes[0].get_yticklabels()]
    assert labels == ["Level 2", "Level 3", "Level 5", "Level 10"]
    binary = report_data([_row("s", None, 0.0), _row("s", None, 1.0)])
    ticks = list(_reward_distribution(binary).axes[0].get_xticks())
    assert ticks == [0.0, 1.0]


def test_report_a_b_compares_two_runs(tmp_path):
    a = grpo_rows()
    b = [dict(r) for r in a]
    b[2] = {**b[2], "score": 1.0, "metrics": {**b[2]["metrics"], "acc": 1.0, "pred": "1"}}  # wrong -> right
    page = build_comparison(a, b, names=("run1.jsonl", "run2.jsonl"))
    assert "wrong to right" in page and "1 of 24 rows flipped" in page
    assert "extracted A <code>2</code>, B <code>1</code>" in page
    assert re.search(r"<td>math_dapo</td><td>24</td><td>24</td>", page)
    fa, fb, out = (
        write_jsonl(tmp_path / "a.jsonl", a),
        write_jsonl(tmp_path / "b.jsonl", b),
        tmp_path / "c.html",
    )
    assert main(["report", str(fa), str(fb), "-o", str(out)]) == 0
    assert "two runs compared" in out.read_text()
    assert main(["report", str(fa), str(fb), str(fa), "-o", str(out)]) == 2
