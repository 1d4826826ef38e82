"""`ftopt solve WORKLOAD.yaml`: the cheapest server set, verified, rendered in the chosen format.

The command only parses, reads, calls `ftopt.solver.solve.solve` (which checks the plan with the
independent verifier), maps the result's status to an exit code and renders; live progress goes to
stderr, so stdout stays clean for JSON. OR-Tools is imported only when the command runs, so that
`ftopt --help` and the other commands start quickly.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from ftopt.cli import (
    catalogue_dir_option,
    open_catalogue,
    output_option,
    plain_console,
    prices_option,
    time_limit_option,
)
from ftopt.cli.errors import CommandInputError, handle_errors
from ftopt.model.commercial import Copy
from ftopt.model.findings import money
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.quote.bids import bids_for_copy, quote_bids
from ftopt.quote.copies import COPIES, check_currency, logo_uri, quote_copy
from ftopt.quote.formats import FORMATS, QuoteOptions, render_bytes
from ftopt.quote.table import render_table
from ftopt.reading.workload_file import load_workload

if TYPE_CHECKING:
    from ftopt.model.settings import Progress


def _progress_printer(quiet: bool) -> Callable[[Progress], None] | None:
    if quiet or not sys.stderr.isatty():
        return None
    console = Console(stderr=True)

    def show(p: Progress) -> None:
        console.print(
            f"[dim]{p.seconds:6.2f} s  incumbent {money(p.price)}  bound "
            f"{money(p.bound)}  gap {p.gap:.2%}[/dim]"
        )

    return show


@click.command("solve")
@click.argument("workload", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table", show_default=True)
@output_option
@time_limit_option("Seconds for the search; the best plan so far is returned with its gap.")
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="CP-SAT workers [default: one per core]."
)
@click.option("--deterministic", is_flag=True, help="Same input, same plan, byte for byte (but wall time).")
@click.option("--quiet", is_flag=True, help="No progress on stderr.")
@click.option(
    "--what-if/--no-what-if",
    default=True,
    show_default=True,
    help="Re-solve once per relaxation (deadline, card memory, feed, inlet, 8-bit Adam, server limit, "
    "stock, racks, liquid loops) to report savings, or what would give an impossible bid a plan.",
)
@click.option(
    "--frontier/--no-frontier",
    "with_frontier",
    default=True,
    show_default=True,
    help="With --format html and train_tokens: the three bids (cheapest, knee, fastest) of the "
    "price-makespan frontier, found as `ftopt frontier` finds it, in what is left of --time-limit "
    "(the quote says so when the limit cut the frontier short).",
)
@click.option(
    "--alternatives",
    type=click.IntRange(min=0, max=20),
    default=0,
    show_default=True,
    metavar="N",
    help="Also the next N cheapest bids whose server sets differ, each verified (JSON: `alternatives`).",
)
@click.option(
    "--copy",
    "copy",
    type=click.Choice(COPIES),
    default="buyer",
    show_default=True,
    help="The buyer's copy (prices, discount, tax, total) or the seller's (also cost and margin per "
    "line, from quote.margin_percent); every format.",
)
@click.option(
    "--internals/--no-internals",
    default=True,
    show_default=True,
    help="The quote's technical appendix: the solver's bound, gap and solve time, the assumed prices "
    "and each copy's placement (--no-internals: the buyer's view only; JSON and YAML keep every field).",
)
@prices_option
@catalogue_dir_option
@handle_errors
def solve_command(
    workload: Path,
    fmt: str,
    output: Path | None,
    time_limit: float,
    workers: int | None,
    deterministic: bool,
    quiet: bool,
    what_if: bool,
    with_frontier: bool,
    alternatives: int,
    internals: bool,
    copy: Copy,
    prices: Path | None,
    catalogue_dir: Path | None,
) -> None:
    """Find the cheapest servers that run every copy of every run in WORKLOAD at once."""
    if FORMATS[fmt].binary and output is None:
        noun = {"xlsx": "a workbook", "pdf": "a PDF"}.get(fmt, "a binary file")
        raise CommandInputError(f"--format {fmt} writes {noun}: give -o FILE.{FORMATS[fmt].suffix}")
    from ftopt.solver.solve import SolveSettings, solve

    started = time.perf_counter()  # --time-limit bounds the whole command, the quote's bids included
    catalogue = open_catalogue(prices, catalogue_dir)
    parsed = load_workload(workload, catalogue)
    check_currency(parsed, catalogue, str(workload))
    logo = logo_uri(workload, parsed)
    settings = SolveSettings(
        time_limit=time_limit, deterministic=deterministic, what_if=what_if, alternatives=alternatives
    )
    settings = replace(settings, workers=workers) if workers else settings
    result = solve(
        parsed, catalogue, settings, _progress_printer(quiet), workload_name=parsed.name or workload.stem
    )
    plan = result.plan_or_raise()
    bids = None
    if fmt == "html" and with_frontier:
        budget = settings.time_limit - (time.perf_counter() - started)
        bids = quote_bids(parsed, catalogue, settings, budget, plan)
    shown, summary = quote_copy(plan, parsed, catalogue, copy)
    sold, cost = bids_for_copy(bids, parsed, copy)  # the bids at the prices this copy shows
    write_plan(shown, fmt, output, QuoteOptions(sold, internals, logo, cost), summary)


def write_plan(
    plan: Plan,
    fmt: str,
    output: Path | None,
    options: QuoteOptions | None = None,
    summary: PlanSummary | None = None,
) -> None:
    """The plan in `fmt`, to `output` or stdout (the table goes through rich; xlsx and pdf need
    `output`); `options` the three bids, the appendix and the seller's logo (HTML and PDF)."""
    summary = summary if summary is not None else summarize(plan)
    options = options if options is not None else QuoteOptions()
    if fmt == "table" and output is None:  # the terminal's width on a terminal, every cell whole off one
        with plain_console(output) as console:
            render_table(plan, console, options.internals, summary)
        return
    body = render_bytes(plan, fmt, summary, options)
    if output:
        output.write_bytes(body)
    else:
        click.echo(body.decode("utf-8"), nl=False)
