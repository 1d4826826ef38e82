"""The README's library example runs as written and prints what its comment says."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_library_example_runs_and_prints_its_commented_first_line() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"## As a library\n\n```python\n(.*?)```", text, re.S)
    assert code, "the README has a library example"
    claimed = re.search(r"print\(result\.status.*?\)  # (.+)", code[1])
    assert claimed
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            exec(compile(code[1], "README.md", "exec"), {"Path": Path})
    finally:
        os.chdir(cwd)
    assert out.getvalue().splitlines()[0] == claimed[1]
