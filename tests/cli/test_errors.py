"""Every command fails the same way: `ftopt: <one line>` on stderr, the error's exit code, no traceback."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from ftopt.cli.errors import CommandInputError, handle_errors, one_line, run_command
from ftopt.errors import InfeasibleError, InputError


def test_one_line_folds_breaks_and_runs_of_blanks() -> None:
    assert one_line("no plan exists:\n  run a\t needs  more") == "no plan exists: run a needs more"


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (InputError("w.yaml", "runs[0].model", "expected a catalogue id", 4), 2,
         "ftopt: w.yaml:4: runs[0].model: expected a catalogue id"),
        (InfeasibleError(["run a: 900 GB per card,\nno card holds it"]), 3,
         "ftopt: no plan exists: run a: 900 GB per card, no card holds it"),
        (CommandInputError("unknown catalogue id 'x'"), 2, "ftopt: unknown catalogue id 'x'"),
    ],
)  # fmt: skip
def test_a_command_prints_one_line_and_exits_with_the_errors_code(
    error: Exception, code: int, line: str
) -> None:
    @click.command()
    @handle_errors
    def command() -> None:
        raise error

    result = CliRunner().invoke(command, [])
    assert (result.exit_code, result.stderr, result.stdout) == (code, line + "\n", "")


def test_run_command_returns_the_value_when_nothing_fails() -> None:
    assert run_command(lambda: 42) == 42


def test_other_exceptions_are_not_swallowed() -> None:
    # Only ftopt's own errors are a user's mistake; anything else is a bug and must stay visible.
    with pytest.raises(ZeroDivisionError):
        run_command(lambda: 1 / 0)
