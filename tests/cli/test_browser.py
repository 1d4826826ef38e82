"""The HTML quote in a real browser: headless Chromium renders every server and GPU, offline.

Needs Debian's `chromium` package (`.ci/run` installs it); skipped, with the reason, without it.
The screenshots are kept as test artefacts in tests/artifacts/ (git-ignored): quote.png for a
four-server plan, quote-16-servers.png for sixteen.
"""

from __future__ import annotations

import os
import struct
import subprocess
import textwrap
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.quote.html import render_html
from ftopt.reading.workload_file import load_workload
from ftopt.serve.quotes import HEADLESS_ARGS, find_chromium
from ftopt.solver.solve import SolveSettings, solve
from tests.cli.plans import sixteen_servers

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "artifacts"
SCREENSHOT = ARTIFACTS / "quote.png"
TIMEOUT_S = 60

#: Four servers of three builds, with NVLink domains, several copies and an eight-GPU shard.
SEVERAL_SERVERS = """\
    name: several-servers
    runs:
      - {name: llama70b-full, model: llama-3.3-70b, method: full, optimizer: auto, offload: none,
         seq_len: 4096, gradient_checkpointing: true, concurrent: 2}
      - {name: legal-qlora-70b, model: llama-3.3-70b, method: qlora, seq_len: 4096, concurrent: 3}
      - {name: support-lora-8b, model: llama-3.1-8b, method: lora, seq_len: 8192, concurrent: 2}
      - {name: code-lora-14b, model: qwen3-14b, method: lora, seq_len: 4096}
    site:
      feed: 400v-3p-16a
      inlet_c: 25
    hardware:
      gpus: [h200-nvl, rtx-pro-6000-se]
"""


CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium; .ci/run installs it): browser test not run",
)


class Rects(HTMLParser):
    """(server, gpu) of every GPU rect and the id of every server group in a DOM dump."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.gpus: Counter[tuple[str, str]] = Counter()
        self.servers: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if tag == "rect" and "gpu" in classes:
            self.gpus[(values.get("data-server", ""), values.get("data-gpu", ""))] += 1
        if tag == "g" and "server" in classes:
            self.servers.append(values.get("data-server", ""))

    handle_startendtag = handle_starttag


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Plan:
    path = tmp_path_factory.mktemp("workload") / "several-servers.yaml"
    path.write_text(textwrap.dedent(SEVERAL_SERVERS), encoding="utf-8")
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    solved = solve(
        workload, catalogue, SolveSettings(time_limit=10, workers=2), workload_name=workload.name
    ).plan_or_raise()
    assert len(solved.servers) >= 3
    return solved


@pytest.fixture(scope="module")
def quote(plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("quote") / "quote.html"
    path.write_text(render_html(plan), encoding="utf-8")
    return path


def check_dom(plan: Plan, dump: str) -> None:
    dom = Rects(dump)
    assert dom.servers == [s.id for s in plan.servers]
    expected = Counter((s.id, str(i)) for s in plan.servers for i in range(s.gpu_count))
    assert dom.gpus == expected


def check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1400, 2000)
    assert len(data) > 10_000, f"{path} is only {len(data)} bytes: a blank page?"


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium offline-minded, with its profile and home in `tmp_path`."""
    assert CHROMIUM is not None
    command = [
        CHROMIUM, *HEADLESS_ARGS, "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", *args,
    ]  # fmt: skip
    env = {**os.environ, "HOME": str(tmp_path)}
    result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def test_chromium_renders_every_server_and_gpu(plan: Plan, quote: Path, tmp_path: Path) -> None:
    check_dom(plan, chromium(tmp_path, "--dump-dom", quote.as_uri()).stdout)


def test_chromium_screenshot_is_kept(quote: Path, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    chromium(
        tmp_path, f"--screenshot={SCREENSHOT}", "--window-size=1400,2000", "--hide-scrollbars", quote.as_uri()
    )
    check_png(SCREENSHOT)


def test_sixteen_servers_render_and_are_kept(plan: Plan, tmp_path: Path) -> None:
    big = sixteen_servers(plan)
    page = tmp_path / "quote-16.html"
    page.write_text(render_html(big), encoding="utf-8")
    check_dom(big, chromium(tmp_path, "--dump-dom", page.as_uri()).stdout)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "quote-16-servers.png"
    shot.unlink(missing_ok=True)
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,2000", "--hide-scrollbars", page.as_uri())
    check_png(shot)


def test_chromium_shows_a_script_in_the_bid_name_as_text(plan: Plan, tmp_path: Path) -> None:
    """The browser, not only a parser, must see no script: the DOM it builds has none, and the
    name is shown as the text it is."""
    nasty = "<script>document.title='run'</script><img src=x onerror=alert(1)>"
    page = tmp_path / "hostile.html"
    page.write_text(render_html(plan.model_copy(update={"workload": nasty})), encoding="utf-8")
    dump = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert "<script" not in dump and "<img" not in dump
    assert "&lt;script&gt;document.title='run'&lt;/script&gt;" in dump
    assert 'id="appendix"' in dump and 'id="runs"' in dump
