"""The HTML report in a real headless Chromium (Debian's ``chromium``, installed by
``scripts/install-system-deps.sh``; skipped when absent): images decode, every plot lies inside the
viewport, nothing overflows sideways, and the screenshot is a page with plots, not a blank one.

The pages: the one an earlier issue found unreadable (``examples/rollouts.jsonl``, 23 data sources); a GRPO
file with 16 rollouts per prompt scored with components and monitors (issue 25: its group table ran off the
page at 1280 px); and ``report A B`` comparing two runs.
"""

import html
import json
import re
import shutil
import subprocess

import pytest

from rewardloop.cli.main import main

from ..cli._util import EXAMPLES

WIDTH, HEIGHT = 1280, 4200


def _chromium():
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        _chromium() is None, reason="no headless Chromium (run scripts/install-system-deps.sh)"
    ),
]

MEASURE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images].map(i => {
    const r = i.getBoundingClientRect();
    return {alt: i.alt, complete: i.complete, natural: i.naturalWidth, left: r.left, right: r.right,
            top: r.top, bottom: r.bottom, width: r.width, height: r.height};
  });
  const boxes = [...document.querySelectorAll("body > *, .scroll, pre, figure, h2, p")].map(e => {
    const r = e.getBoundingClientRect();
    return {tag: e.tagName + "." + e.className, left: r.left, right: r.right};
  });
  const out = document.createElement("pre");
  out.id = "measure";
  out.textContent = JSON.stringify({imgs, boxes, inner: window.innerWidth,
                                    scroll: document.documentElement.scrollWidth});
  document.body.appendChild(out);
});
</script>"""


def _run(*args):
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", f"--window-size={WIDTH},{HEIGHT}", *args]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


GRPO_CONFIG = """
reward:
  runner: {workers: 1}
  components:
    - {scorer: math_dapo, name: acc}
    - {scorer: tag_count, name: tags, weight: 0.5}
  monitors: {enable: true}
"""


def _grpo_file(tmp):
    import json

    rows = []
    for p in range(12):
        responses = [
            f"<think>\nstep {j}\n</think>\n<answer>\nAnswer: {p if (j * (p + 1)) % 5 else p + 1}\n</answer>"
            + (" \\boxed{1} or \\boxed{2}" if j == 3 else "")
            for j in range(16)
        ]
        rows.append({"data_source": "math_dapo" if p % 2 else "aime_2024", "prompt": f"problem {p}",
                     "reward_model": {"ground_truth": str(p)}, "extra_info": {"index": p},
                     "responses": responses})  # fmt: skip
    src = tmp / "grpo.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = tmp / "reward.yaml"
    config.write_text(GRPO_CONFIG)
    return src, config


@pytest.fixture(scope="module", params=["examples", "grpo16", "compare"])
def page(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("render")
    scored, page = tmp / "scored.jsonl", tmp / "report.html"
    if request.param == "examples":
        assert main(["score", str(EXAMPLES / "rollouts.jsonl"), "-o", str(scored)]) == 0
        assert main(["report", str(scored), "-o", str(page)]) == 0
        return page
    src, config = _grpo_file(tmp)
    args = ["score", str(src), "--response-key", "responses", "--config", str(config), "-o", str(scored)]
    assert main(args) == 0
    if request.param == "grpo16":
        assert main(["report", str(scored), "-o", str(page)]) == 0
        text = page.read_text()
        assert "pass@16" in text and "Reward components" in text and "Reward-hacking monitors" in text
        return page
    other = tmp / "other.jsonl"
    assert main(["rescore", str(scored), "--scorer", "math_dapo", "-o", str(other)]) in (0, 1)
    assert main(["report", str(scored), str(other), "-o", str(page)]) == 0
    return page


def test_layout_in_chromium(page, tmp_path):
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    proc = _run("--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="measure">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    m = json.loads(html.unescape(found[1]))
    assert len(m["imgs"]) >= (0 if "two runs compared" in page.read_text() else 5)
    for img in m["imgs"]:
        assert img["complete"] and img["natural"] > 0, img  # the PNG decoded
        assert img["width"] > 100 and img["height"] > 50, img
        assert img["left"] >= 0 and img["right"] <= m["inner"], img  # inside the viewport
    assert m["scroll"] <= m["inner"]  # nothing overflows sideways
    for box in m["boxes"]:  # every block (wide tables scroll inside their own box) lies inside the viewport
        assert box["left"] >= 0 and box["right"] <= m["inner"], box


def test_screenshot_is_a_page_with_plots(page, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    _run(f"--screenshot={shot}", page.as_uri())
    pixels = imread(shot)[..., :3]  # floats in [0, 1]
    assert pixels.shape[:2] == (HEIGHT, WIDTH)
    ink = (pixels < 0.9).any(axis=-1)
    short = "two runs compared" in page.read_text()  # a short page: judge the part it fills
    assert ink[: 1400 if short else HEIGHT].mean() > 0.05  # far from blank
    if "two runs compared" not in page.read_text():  # the comparison is tables: no plots to find
        assert (
            len({tuple(p) for p in (pixels[::7, ::7] * 255).astype(int).reshape(-1, 3)}) > 50
        )  # plots, not text
    edge = ink[:, -15:]  # the rightmost strip: page margin, nothing cut at the window's edge
    assert edge.mean() < 0.001
