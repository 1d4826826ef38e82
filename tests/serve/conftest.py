"""The workbench's tests: an app over a fresh data folder, and small bids that solve in a second.

The in-process client (Starlette's TestClient) runs the real app, and the solves run in real
worker processes, so these tests exercise the queue, the pipe and the store as `ftopt serve` does.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install '.[serve]'")

# Starlette 1.x asks for `httpx2` in its test client; httpx is what the suite pins and uses.
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from fastapi.testclient import TestClient  # noqa: E402

from ftopt.serve.app import ServeConfig, create_app  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIRST_PROJECT = (REPO / "examples" / "first-project.yaml").read_text(encoding="utf-8")
#: Eight QLoRA copies behind a 16 A feed: a 32 A feed would save a server (a what-if saving). Whole
#: cards: on GPU slices (MIG) eight such copies share two cards and the feed binds nothing.
FEED_BOUND = """\
name: feed-bound
site: {feed: 230v-16a, inlet_c: 25}
hardware: {gpus: [h200-nvl]}
sizing: {mig: false}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]
"""
#: Quick solves: no frontier, no alternatives.
QUICK = {"time_limit": 10, "frontier": False, "what_if": False, "alternatives": 0}
TIMEOUT_S = 90


def make_client(folder: Path, **config: object) -> TestClient:
    settings = {"workers": 1, "max_queue": 4, "time_limit": 10.0, **config}
    return TestClient(create_app(ServeConfig(folder, **settings)))  # type: ignore[arg-type]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "data") as c:
        yield c


def create(client: TestClient, text: str) -> int:
    reply = client.post("/api/bids", content=text, headers={"content-type": "application/yaml"})
    assert reply.status_code == 201, reply.text
    return int(reply.json()["id"])


def poll(fetch: Callable[[str], dict], job: int, until: tuple[str, ...]) -> dict:
    """The job's state once it is one of `until`, asked through `fetch(path)` every 0.05 s."""
    ended = time.monotonic() + TIMEOUT_S
    while time.monotonic() < ended:
        state = fetch(f"/api/jobs/{job}")
        if state["state"] in until:
            return state
        time.sleep(0.05)
    raise AssertionError(f"job {job} still {state['state']} after {TIMEOUT_S} s, not {until}")


def wait(client: TestClient, job: int, until: tuple[str, ...] = ("done", "failed", "cancelled")) -> dict:
    return poll(lambda path: client.get(path).json(), job, until)


def solve(client: TestClient, bid: int, **knobs: object) -> dict:
    reply = client.post(f"/api/bids/{bid}/solve", json={**QUICK, **knobs})
    assert reply.status_code == 202, reply.text
    return wait(client, reply.json()["job"])
