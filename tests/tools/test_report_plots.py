"""Reports a person can read and trust: one accuracy definition, readable plots with many data sources."""

import json

import pytest

from rewardloop.cli.main import main
from rewardloop.tools import build_report, report_data
from rewardloop.tools._report import TOP_N, report_figures


def scored_row(source, score, status="ok", metrics=None, info=None, response="x"):
    return {"data_source": source, "score": score, "status": status, "metrics": metrics or {}, "info": info or {},
            "response": response}  # fmt: skip


def test_partial_credit_is_not_a_correct_answer():
    # geometry3k's 0.1 format reward, Search-R1's 0.25, a wrong DAPO answer's -1: all wrong
    rows = [
        scored_row("hiyouga/geometry3k", 0.1, info={"acc": False, "format_ok": True}),
        scored_row("hiyouga/geometry3k", 0.9, info={"acc": True, "format_ok": False}),  # right, bad format
        scored_row("searchR1_nq", 0.25),
        scored_row("math_dapo", -1.0, metrics={"acc": False}),
        scored_row("math_dapo", 1.0, metrics={"acc": True}),
        scored_row("openai/gsm8k", 1.0),
        scored_row("openai/gsm8k", None, status="timeout"),
    ]
    assert report_data(rows).correct == [False, True, False, False, True, True, None]


def test_score_and_report_agree_on_accuracy(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    rows = [
        {"data_source": "hiyouga/geometry3k", "reward_model": {"ground_truth": gt}, "extra_info": {"index": i},
         "response": resp}
        for i, (gt, resp) in enumerate([("3", "<think>x</think> \\boxed{4}"), ("3", "<think>x</think> \\boxed{3}"),
                                        ("5", "<think>y</think> \\boxed{6}"), ("5", "\\boxed{5}")])
    ]  # fmt: skip
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out, summary, page = tmp_path / "out.jsonl", tmp_path / "s.json", tmp_path / "r.html"
    assert main(["score", str(src), "-o", str(out), "--summary-json", str(summary)]) == 0
    assert main(["report", str(out), "-o", str(page)]) == 0
    capsys.readouterr()
    [task, _] = json.loads(summary.read_text())["tasks"]
    assert task["accuracy"] == 0.5  # 2 of 4 right, though 4 of 4 rewards are > 0
    assert "<td>50.00%</td>" in page.read_text()


def test_report_on_an_unscored_file_is_an_error(rollouts, tmp_path, capsys):
    assert main(["report", str(rollouts), "-o", str(tmp_path / "r.html")]) == 2
    assert "is not scored" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def _many_sources(n_sources=23, per=12):
    rows = []
    for s in range(n_sources):
        for i in range(per + s):
            value = [0.0, 0.1, 0.9, 1.0][(i + s) % 4]
            rows.append(scored_row(f"source_with_a_long_name_{s:02d}", value, response="y" * (10 * i)))
    return rows


def _texts_inside(fig):
    """Whatever is drawn (titles, labels, tick labels, legends) lies inside the figure's canvas: the tight
    bounding box of the drawn artists, in inches, fits in the figure. Returns the overflow, [] when none."""
    fig.tight_layout()
    fig.canvas.draw()
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())
    canvas = fig.bbox_inches
    over = [
        side for side, outside in (
            ("left", drawn.x0 < canvas.x0 - 0.01), ("right", drawn.x1 > canvas.x1 + 0.01),
            ("bottom", drawn.y0 < canvas.y0 - 0.01), ("top", drawn.y1 > canvas.y1 + 0.01),
        ) if outside
    ]  # fmt: skip
    return over


def test_plots_with_23_data_sources_are_readable():
    d = report_data(_many_sources())
    figures = dict(report_figures(d))
    dist = figures["Reward distribution per data_source"]
    panels = [ax for ax in dist.axes if ax.get_visible() and ax.axison]
    assert len(panels) == TOP_N  # the 7 largest sources + "other"
    assert panels[-1].get_title().startswith("other (16 sources)")
    for ax in panels:  # rewards on a numeric axis: bars sit at the reward values themselves
        xs = sorted({round(p.get_x() + p.get_width() / 2, 6) for p in ax.patches})
        assert xs == [0.0, 0.1, 0.9, 1.0]
        assert ax.get_legend() is None
    acc = figures["Accuracy per data_source"]
    assert acc.axes[0].get_xlim() == (0.0, 1.0)
    for caption, fig in figures.items():
        if fig is not None:
            assert _texts_inside(fig) == [], caption


def test_report_page_with_many_sources_renders(tmp_path):
    page = build_report(_many_sources())
    assert page.count("<img") == 4 and "no latency recorded" in page  # the panel title lives in the PNG
    assert "source_with_a_long_name_22" in page  # the summary table still lists every source


@pytest.mark.parametrize("n_sources", [1, 2, 9])
def test_small_multiples_layout(n_sources):
    d = report_data(_many_sources(n_sources, per=4))
    fig = dict(report_figures(d))["Reward distribution per data_source"]
    shown = [ax for ax in fig.axes if ax.axison]
    assert len(shown) == min(n_sources, TOP_N)
    assert _texts_inside(fig) == []


def test_the_canvas_check_catches_overflow():
    from rewardloop.tools._report import _figure

    fig = _figure()
    fig.add_subplot()
    fig.text(0.9, 0.5, "a label that runs past the right edge")  # tight_layout does not move figure texts
    assert _texts_inside(fig) == ["right"]


def test_unwritable_report_path_is_an_error(tmp_path, capsys):
    scored = tmp_path / "s.jsonl"
    scored.write_text(json.dumps(scored_row("a", 1.0)) + "\n")
    (tmp_path / "file").write_text("")
    assert main(["report", str(scored), "-o", str(tmp_path / "file" / "r.html")]) == 2
    assert "could not write" in capsys.readouterr().err
