"""`ftopt serve` as a real server process on loopback, for the browser, restart and load tests.

Started in a session of its own, so that killing its process group (SIGKILL, as a crash would)
takes the server and its worker processes together.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running `ftopt serve`: its address and process."""

    url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL to the server and its workers, as a crash or `kill -9` would."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)


def start(data: Path, *args: str) -> Server:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "ftopt.cli.main",
        "serve",
        "--data",
        str(data),
        "--port",
        str(port),
        *args,
    ]
    log = (data.parent / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
        command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    ended = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < ended:
        if process.poll() is not None:
            raise AssertionError(f"ftopt serve exited with {process.returncode}")
        try:
            if httpx.get(url + "/api/bids", timeout=2).status_code == 200:
                return Server(url, process)
        except httpx.HTTPError:
            time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError(f"ftopt serve did not answer within {START_TIMEOUT_S} s")


@contextmanager
def serving(data: Path, *args: str) -> Iterator[Server]:
    server = start(data, *args)
    try:
        yield server
    finally:
        server.kill()
