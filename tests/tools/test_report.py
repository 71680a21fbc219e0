"""`rewardloop report`: a self-contained HTML page with embedded plots, checked as a person would see it."""

import base64
import subprocess
import sys

import pytest

from rewardloop.cli.main import main
from rewardloop.tools import build_report, report_data

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def scored(rollouts, tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    assert (
        main(["score", str(rollouts), "-o", str(out), "--route", "my_math=math_equiv", "--no-progress"]) == 0
    )
    capsys.readouterr()
    return out


def _images(page):
    parts = page.split('src="data:image/png;base64,')[1:]
    return [base64.b64decode(p.split('"', 1)[0]) for p in parts]


def test_report_from_scored_file(scored, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", str(scored), "-o", str(out), "--group-by", "extra_info.level"]) == 0
    assert "wrote" in capsys.readouterr().out
    page = out.read_text()
    images = _images(page)
    assert len(images) == 5 and all(img.startswith(PNG_MAGIC) for img in images)
    for caption in ("Reward distribution per data_source", "Status counts", "Latency per sample",
                    "Response length against reward", "Accuracy per extra_info.level"):  # fmt: skip
        assert caption in page
    assert "my_math" in page and "<script" not in page and "http://" not in page and "https://" not in page


def test_report_data_handles_failures_and_missing_values():
    rows = [
        {"data_source": "a", "score": 1.0, "status": "ok", "metrics": {"acc": True}, "info": {"exec_s": 0.01},
         "response": "xx"},
        {"data_source": "a", "score": None, "status": "timeout", "info": {"error": "deadline"}, "response": "y"},
        {"data_source": "b", "score": -1.0, "status": "ok", "metrics": {}, "info": {}},
    ]  # fmt: skip
    d = report_data(rows)
    assert d.correct == [True, None, False]
    assert d.latency_s == [0.01, None, None] and d.length == [2, 1, None]
    assert d.error == [None, "deadline", None]
    page = build_report(rows)
    assert "deadline" in page and len(_images(page)) == 5


def test_report_without_latency_says_so():
    page = build_report([{"data_source": "a", "score": 1.0, "status": "ok"}])
    assert "no latency recorded" in page and len(_images(page)) == 4


def test_missing_matplotlib_names_the_extra(scored, tmp_path):
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from rewardloop.cli.main import main\n"
        f"sys.exit(main(['report', {str(scored)!r}, '-o', {str(tmp_path / 'r.html')!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "report" in proc.stderr and "matplotlib" in proc.stderr
