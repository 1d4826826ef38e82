"""The library how-to's example (docs/how-to/library.md) runs as written and prints what its comment
says (it was the README's until the README was slimmed to a tour)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_library_example_runs_and_prints_its_commented_first_line() -> None:
    text = (ROOT / "docs" / "how-to" / "library.md").read_text(encoding="utf-8")
    code = re.search(r"## Solve from Python\n\n```python\n(.*?)```", text, re.S)
    assert code, "the library how-to has an example"
    claimed = re.search(r"print\(result\.status.*?\)  # (.+)", code[1])
    assert claimed
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            exec(compile(code[1], "docs/how-to/library.md", "exec"), {"Path": Path})
    finally:
        os.chdir(cwd)
    assert out.getvalue().splitlines()[0] == claimed[1]
