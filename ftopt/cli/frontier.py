"""`ftopt frontier WORKLOAD.yaml`: the Pareto frontier of price (or TCO) against makespan.

The engine is `ftopt.solver.frontier` (re-solving with tightening deadlines in one budget, each point
with its proof status and gap); this
command parses, checks that some run gives `train_tokens` (else exit 2), maps a first solve without a
plan to exit 3 or 4 and renders. OR-Tools is imported only when the command runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ftopt.cli import (
    catalogue_dir_option,
    open_catalogue,
    output_option,
    plain_console,
    prices_option,
    time_limit_option,
)
from ftopt.cli.errors import CommandInputError, handle_errors
from ftopt.errors import InfeasibleError, NoPlanInTimeError
from ftopt.quote.bids import FRONTIER_POINTS
from ftopt.quote.frontier import frontier_records, render_frontier_html, render_frontier_table
from ftopt.reading.workload_file import load_workload

if TYPE_CHECKING:
    from ftopt.solver.frontier import Frontier


class NoTrainTokensError(CommandInputError):
    """The frontier needs a makespan, and only runs with train_tokens have hours."""

    def __init__(self, workload: Path) -> None:
        super().__init__(
            f"{workload}: the frontier needs train_tokens (or dataset_tokens and epochs) on at least one run"
        )


@click.command("frontier")
@click.argument("workload", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(("table", "json", "html")), default="table", show_default=True
)
@output_option
@time_limit_option(
    "Seconds for the whole frontier: each point's solve gets what is left divided by the points still "
    "wanted; each point says whether it was proven (status optimal, gap 0) in its share."
)
@click.option(
    "--points",
    type=click.IntRange(min=1, max=100),
    default=FRONTIER_POINTS,
    show_default=True,
    help="Most points.",
)
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="CP-SAT workers [default: one per core]."
)
@prices_option
@catalogue_dir_option
@handle_errors
def frontier_command(
    workload: Path,
    fmt: str,
    output: Path | None,
    time_limit: float,
    points: int,
    workers: int | None,
    prices: Path | None,
    catalogue_dir: Path | None,
) -> None:
    """Price (or TCO) against makespan: re-solve with ever tighter deadlines within --time-limit.

    Each point is the cheapest plan found for its deadline in its share of the time limit, with its
    status and gap: proven optimal only at gap 0."""
    from ftopt.model.settings import SolveSettings
    from ftopt.solver.frontier import frontier, has_train_tokens

    catalogue = open_catalogue(prices, catalogue_dir)
    parsed = load_workload(workload, catalogue)
    if not has_train_tokens(parsed):
        raise NoTrainTokensError(workload)
    settings = SolveSettings(time_limit=time_limit)
    if workers:
        settings = SolveSettings(time_limit=time_limit, workers=workers)
    found = frontier(parsed, catalogue, settings, points=points)
    _raise_without_points(found)
    title = f"Frontier: {parsed.name or workload.stem}"
    if fmt == "table":
        with plain_console(output) as console:
            render_frontier_table(found, console)
        return
    text = _frontier_text(found, fmt, title)
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


def _frontier_text(found: Frontier, fmt: str, title: str) -> str:
    """The frontier as JSON records or as a self-contained HTML page (the table prints itself)."""
    if fmt == "json":
        return json.dumps(frontier_records(found), indent=2, ensure_ascii=False) + "\n"
    return render_frontier_html(found, title)


def _raise_without_points(found: Frontier) -> None:
    """A frontier without a point has no plan to show: exit 4 when time ran out before the first
    plan, else 3 with the reason (infeasible, or no speed data for a makespan)."""
    if found.points:
        return
    if found.stopped == "no-plan-in-time":
        raise NoPlanInTimeError(found.reason or "no plan found in time; raise --time-limit")
    raise InfeasibleError([found.reason or "no plan has a makespan (no speed data for the runs' stacks)"])
