"""The HTML report in a real headless Chromium (Debian's ``chromium``, installed by
``scripts/install-system-deps.sh``; skipped when absent): images decode, every plot lies inside the
viewport, nothing overflows sideways, and the screenshot is a page with plots, not a blank one.

The page is the one the issue found unreadable: ``examples/rollouts.jsonl`` (23 data sources).
"""

import html
import json
import re
import shutil
import subprocess

import pytest

from rewardloop.cli.main import main

from ..cli._util import EXAMPLES

WIDTH, HEIGHT = 1200, 4200


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
  const out = document.createElement("pre");
  out.id = "measure";
  out.textContent = JSON.stringify({imgs, inner: window.innerWidth,
                                    scroll: document.documentElement.scrollWidth});
  document.body.appendChild(out);
});
</script>"""


def _run(*args):
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", f"--window-size={WIDTH},{HEIGHT}", *args]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("render")
    scored, page = tmp / "scored.jsonl", tmp / "report.html"
    assert main(["score", str(EXAMPLES / "rollouts.jsonl"), "-o", str(scored)]) == 0
    assert main(["report", str(scored), "-o", str(page)]) == 0
    return page


def test_layout_in_chromium(page, tmp_path):
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    proc = _run("--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="measure">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    m = json.loads(html.unescape(found[1]))
    assert len(m["imgs"]) >= 5
    for img in m["imgs"]:
        assert img["complete"] and img["natural"] > 0, img  # the PNG decoded
        assert img["width"] > 100 and img["height"] > 50, img
        assert img["left"] >= 0 and img["right"] <= m["inner"], img  # inside the viewport
    assert m["scroll"] <= m["inner"]  # nothing overflows sideways


def test_screenshot_is_a_page_with_plots(page, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    _run(f"--screenshot={shot}", page.as_uri())
    pixels = imread(shot)[..., :3]  # floats in [0, 1]
    assert pixels.shape[:2] == (HEIGHT, WIDTH)
    ink = (pixels < 0.9).any(axis=-1)
    assert ink.mean() > 0.05  # far from blank
    assert (
        len({tuple(p) for p in (pixels[::7, ::7] * 255).astype(int).reshape(-1, 3)}) > 50
    )  # plots, not text
    edge = ink[:, -15:]  # the rightmost strip: page margin, nothing cut at the window's edge
    assert edge.mean() < 0.001
