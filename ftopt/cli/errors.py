"""How every command turns an ftopt error into one line on stderr and an exit code.

Why a module of its own: each command (estimate, catalogue, solve, verify) must fail the same way,
`ftopt: <message>` on stderr and `sys.exit(err.exit_code)` (2 bad input, 3 no plan can exist, 4 time
limit without a plan), never a traceback. A command either wraps its body with `@handle_errors`
(innermost, just above `def`) or calls `run_command(fn)`.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import NoReturn, ParamSpec, TypeVar

import click

from ftopt.errors import FtoptError, InputErrors, one_line, problem

__all__ = ["CommandInputError", "fail", "handle_errors", "one_line", "run_command"]

P = ParamSpec("P")
T = TypeVar("T")


class CommandInputError(FtoptError):
    """A command-line argument names something that does not exist (an unknown catalogue id)."""

    exit_code = 2


def fail(err: FtoptError) -> NoReturn:
    """Print `ftopt: <message>` on stderr and exit with the error's code; several problems of one
    file (`InputErrors`) one per line, each with its file, line and field. With FTOPT_ERRORS=json the
    error is the workbench API's problem details as one JSON object (`ftopt.errors.problem`)."""
    if os.environ.get("FTOPT_ERRORS") == "json":
        click.echo(json.dumps(problem(err), ensure_ascii=False), err=True)
        sys.exit(err.exit_code)
    lines = err.lines() if isinstance(err, InputErrors) else [str(err)]
    for line in lines:
        click.echo(f"ftopt: {one_line(line)}", err=True)
    sys.exit(err.exit_code)


def run_command(fn: Callable[[], T]) -> T:
    """`fn()`, with any FtoptError it raises turned into one line on stderr and its exit code."""
    try:
        return fn()
    except FtoptError as err:
        fail(err)


def handle_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Decorator form of `run_command`; put it below the click decorators, right above `def`."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_command(lambda: fn(*args, **kwargs))

    return wrapper
