"""Running `ftopt` commands from tests: files to feed them, a click runner, and a forked child under a
deadline for inputs that could hang (a FIFO, /dev/zero), so a regression costs seconds, not CI."""

from __future__ import annotations

import multiprocessing
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ftopt.cli.main import cli

DEADLINE_S = 8.0


def write(folder: Path, text: str, name: str = "workload.yaml") -> Path:
    """`text`, dedented, as a file in `folder`."""
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    """`ftopt ARGS` in this process."""
    return CliRunner().invoke(cli, [str(a) for a in args])


def _child(args: list[str], send: Any) -> None:
    result = CliRunner().invoke(cli, args)
    send.send((result.exit_code, result.stdout[-2000:], result.stderr[-2000:], repr(result.exception)))


def invoke_within(*args: str | Path, seconds: float = DEADLINE_S) -> tuple[int, str, str, str]:
    """`ftopt ARGS` in a forked child: (exit code, stdout, stderr, exception), or a test failure when
    it has not answered within `seconds`."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=([str(a) for a in args], send), daemon=True)
    child.start()
    try:
        if not receive.poll(seconds):
            pytest.fail(f"ftopt {' '.join(map(str, args))} gave no answer within {seconds:g} s")
        return receive.recv()  # type: ignore[no-any-return]
    finally:
        if child.is_alive():
            child.kill()
        child.join(5)
