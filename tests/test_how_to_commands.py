"""Every `ftopt ...` command in a fenced block of the how-to pages, the getting-started tour and the
README's tour runs as written, from a clone's root, and succeeds.

Each block runs in a fresh folder that sees the repository's `examples/` (so files a command writes,
`-o quote.html`, land there and not in the repository), its commands in order (a later one may read
what an earlier one wrote: `plan.json`, `results.jsonl`). A block preceded by `<!-- test: slow -->`
is marked slow (`pytest -m "not slow"` leaves it out; CI runs it); one preceded by
`<!-- test: skip REASON -->` is not run, with its reason (a server that keeps listening).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = (
    *sorted((ROOT / "docs" / "how-to").glob("*.md")),
    ROOT / "docs" / "getting-started.md",
    ROOT / "README.md",
)
MARK = re.compile(r"<!-- test: (slow|skip)(?: (.+?))? -->")


@dataclass(frozen=True)
class Block:
    """The `ftopt` commands of one fenced block, where it is, and how the test treats it."""

    page: str
    line: int
    commands: tuple[str, ...]
    mark: str | None = None
    reason: str = ""

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a page that hold at least one line starting `ftopt `."""
    found, fence, start, commands, mark = [], False, 0, list[str](), None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            if fence and commands:
                name = str(path.relative_to(ROOT / "docs" if path.parent != ROOT else ROOT))
                found.append(Block(name, start, tuple(commands), *(mark or (None, ""))))
            fence, start, commands = not fence, number, []
            if not fence:
                mark = None
            continue
        if fence and line.startswith("ftopt "):
            commands.append(line)
        elif not fence and (m := MARK.search(line)):
            mark = (m[1], m[2] or "")
        elif not fence and line.strip():
            mark = None if not MARK.search(line) else mark
    return found


ALL = [b for page in PAGES for b in blocks(page)]


def _param(block: Block) -> object:
    marks = [pytest.mark.slow] if block.mark == "slow" else []
    if block.mark == "skip":
        marks.append(pytest.mark.skip(reason=block.reason or "marked skip in the page"))
    return pytest.param(block, id=block.id, marks=marks)


def test_the_pages_hold_commands() -> None:
    assert len(ALL) >= 10 and {b.page for b in ALL} >= {"getting-started.md", "how-to/queues.md"}


@pytest.mark.parametrize("block", [_param(b) for b in ALL])
def test_each_command_runs_as_written(block: Block, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "constraints.txt").symlink_to(ROOT / "constraints.txt")
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "ftopt"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ftopt.cli.main "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
    }
    for command in block.commands:
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{block.id}: `{command}` exit {done.returncode}: {done.stderr[-2000:]}"
