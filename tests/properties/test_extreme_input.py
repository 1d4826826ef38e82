"""Absurd but valid inline models: every number anywhere within its declared limit (§5, huge inputs).

The limits exist so that no accepted input hangs the sizing or overflows it; this checks that
every value they let through is sized by `ftopt estimate` (exit 0, no traceback) and solved or
refused by `solve` with one of ftopt's own errors.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, note

from ftopt.cli.main import cli
from tests.properties.support import outcome
from tests.strategies import dump, extreme_inline_workload_dicts, to_workload


@given(extreme_inline_workload_dicts())
def test_extreme_valid_inline_models_are_sized_and_solved_without_error(data: dict[str, Any]) -> None:
    text = dump(data)
    note(text)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "workload.yaml"
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(cli, ["estimate", str(path), "--format", "json"])
    assert result.exception is None, repr(result.exception)
    assert result.exit_code == 0, result.stderr
    outcome(to_workload(data))  # a plan or InfeasibleError; anything else propagates
