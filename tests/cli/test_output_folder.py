"""`-o` into a folder that does not exist (issue 26): one line and exit 2 from every command that
writes a file, before any work (the folder is never created: a mistyped path must not become one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]
FIRST = str(ROOT / "examples" / "first-project.yaml")
GRID = str(ROOT / "examples" / "grids" / "feeds-and-rooms.yaml")

COMMANDS = [
    *(["solve", FIRST, "--format", fmt] for fmt in ("table", "json", "yaml", "markdown", "html", "xlsx")),
    ["frontier", str(ROOT / "examples" / "deadline.yaml")],
    ["frontier", str(ROOT / "examples" / "deadline.yaml"), "--format", "html"],
    ["estimate", FIRST],
    ["estimate", FIRST, "--format", "json"],
    ["sweep-report", "results.jsonl"],
    ["sweep", FIRST, "--grid", GRID],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_output_into_a_missing_folder_is_one_line_and_exit_2(tmp_path: Path, args: list[str]):
    target = tmp_path / "no-such-folder" / "out.file"
    result = invoke(*args, "-o", target)
    assert result.exit_code == 2, repr(result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0] == f"ftopt: {target}: -o: no such folder '{target.parent}'; create it first"
    assert not target.parent.exists()
