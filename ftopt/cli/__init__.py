"""The `ftopt` command line: click commands and their renderers.

Shared by every command module (estimate, catalogue, and later solve and verify): the `--prices`
option and the catalogue it yields, and the stdout writers. stdout carries only the result; errors
go to stderr as one line (see `ftopt.cli.errors`).
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from ftopt.catalogue.loader import load_catalogue
from ftopt.errors import quoted
from ftopt.model.hardware import Catalogue
from ftopt.quote.table import UNBOUNDED_WIDTH

F = TypeVar("F", bound=Callable[..., Any])

#: Width of rich output when stdout is not a terminal (a pipe, a file, a test runner).
PIPE_WIDTH = 160


class FiniteFloatRange(click.FloatRange):
    """A `FloatRange` that refuses nan and ±inf, and quotes at most 80 characters of a bad value.

    Why: click compares against the bounds only, and every comparison with nan is false, so
    `--time-limit nan` passed and reached the solver; an unbounded range lets `inf` through.
    """

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and len(value) > 80:
            self.fail(f"expected a number of at most 80 characters, got {quoted(value)}", param, ctx)
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{number} is not a finite number", param, ctx)
        return number


def prices_option(fn: F) -> F:
    """`--prices FILE`: a user's price list laid over the catalogue's indicative prices."""
    return click.option(
        "--prices",
        "prices",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        help="YAML price list (`prices:` entries) that replaces catalogue prices by item id.",
    )(fn)


def catalogue_dir_option(fn: F) -> F:
    """`--catalogue DIR`: a vendor's catalogue files merged by id over the packaged catalogue."""
    return click.option(
        "--catalogue",
        "catalogue_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        metavar="DIR",
        help="Directory of catalogue YAML files (gpus.yaml, chassis.yaml, prices.yaml, …) merged by id "
        "over the packaged catalogue: a new id adds, an existing id replaces.",
    )(fn)


def table_or_json_option(fn: F) -> F:
    """`--format table|json`, table by default: the choice of every listing command."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "json"]),
        default="table",
        show_default=True,
        help="Output format.",
    )(fn)


def output_folder_exists(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Click callback of `-o FILE`: the file's folder must exist, else one line and exit 2.

    Why refuse rather than create it: a mistyped folder should not quietly become a new tree, and
    the check runs before any solve, so a long search is never lost to a path the end cannot write.
    """
    if value is not None and not value.parent.is_dir():
        from ftopt.cli.errors import fail
        from ftopt.errors import InputError

        fail(InputError(str(value), "-o", f"no such folder {quoted(str(value.parent))}; create it first"))
    return value


def output_option(fn: F) -> F:
    """`-o FILE`: write the result there rather than to stdout (into a folder that exists)."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, path_type=Path),
        callback=output_folder_exists,
        help="Write here, not stdout (the folder must exist).",
    )(fn)


def time_limit_option(what: str) -> Callable[[F], F]:
    """`--time-limit S`: seconds of search, finite and at least 0.1 (nan and inf are refused)."""
    return click.option(
        "--time-limit", type=FiniteFloatRange(min=0.1), default=60.0, show_default=True, help=what
    )


def open_catalogue(prices: Path | None, catalogue_dir: Path | None = None) -> Catalogue:
    """The packaged catalogue, with a vendor's catalogue directory merged in and then the user's price
    list laid over it, where given (errors are InputErrors)."""
    return load_catalogue(prices=prices, overlay=catalogue_dir)


def stdout_console() -> Console:
    """A rich console on the current stdout; 160 columns and no colour when it is not a terminal."""
    out = sys.stdout
    terminal = out.isatty()
    return Console(
        file=out,
        width=None if terminal else PIPE_WIDTH,
        no_color=not terminal,
        highlight=False,
        soft_wrap=False,
    )


def echo_json(data: Any, output: Path | None = None) -> None:
    """Write `data` as indented JSON on stdout, or to `output`."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


@contextmanager
def plain_console(output: Path | None = None) -> Iterator[Console]:
    """A rich console for tables that must never lose a digit: on a terminal, the terminal's width;
    into a file (`output`) or a pipe, no colour and a width no table reaches, so every cell prints
    whole ("6,493.2", not "6,493…") and each table is as wide as its widest row."""
    if output is None and sys.stdout.isatty():
        yield stdout_console()
        return
    with contextlib.ExitStack() as stack:
        file = stack.enter_context(output.open("w", encoding="utf-8")) if output else sys.stdout
        yield Console(file=file, width=UNBOUNDED_WIDTH, no_color=True, highlight=False, soft_wrap=False)
