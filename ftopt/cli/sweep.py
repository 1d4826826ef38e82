"""`ftopt sweep W.yaml --grid G.yaml -o results.jsonl` and `ftopt sweep-report results.jsonl`.

`sweep` solves the workload once per scenario of the grid, on local worker processes (`--jobs`) or
on Ray (`--ray auto|ADDRESS`), appending one JSON line per finished scenario; a rerun skips what
the file holds. Progress goes to stderr when it is a terminal; a one-line summary ends the run.
Exit 0 when every scenario has a record (infeasible bids are answers), 1 when some failed (their
workers died on every attempt), 2 for bad input (also when every scenario's edit is invalid), 130
on Ctrl-C (the file stays valid: rerun it).

`sweep-report` turns a results file into HTML (charts and table), Markdown or CSV. Neither command
imports OR-Tools or Ray in this process until it runs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from ftopt.cli import (
    catalogue_dir_option,
    output_folder_exists,
    output_option,
    prices_option,
    time_limit_option,
)
from ftopt.cli.errors import handle_errors, one_line
from ftopt.sweep.scenario import FAILED

REPORT_FORMATS = ("html", "markdown", "csv")


def usable_cores() -> int:
    """Cores this process may run on (a container's or taskset's share), for the default --jobs."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class SweepProgress:
    """A rich progress bar on stderr: done, running, failed, scenarios per second, time left."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("[bold]sweep"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} done"),
            TextColumn("{task.fields[running]} running"),
            TextColumn("[red]{task.fields[failed]} failed"),
            TextColumn("{task.fields[rate]:.1f} scenarios/s"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None
        self._started = time.perf_counter()
        self._done = 0
        self._failed = 0

    def __enter__(self) -> SweepProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.__exit__(kind, exc, tb)

    def start(self, total: int, skipped: int) -> None:
        """The grid's size and what the file already holds."""
        self._started = time.perf_counter()
        self._task = self._progress.add_task(
            "sweep", total=total, completed=skipped, running=0, failed=0, rate=0.0
        )

    def done(self, status: str) -> None:
        """One scenario written."""
        self._done += 1
        self._failed += status == FAILED
        rate = self._done / max(1e-9, time.perf_counter() - self._started)
        if self._task is not None:
            self._progress.update(self._task, advance=1, failed=self._failed, rate=rate)

    def running(self, count: int) -> None:
        """How many are being solved now."""
        if self._task is not None:
            self._progress.update(self._task, running=count)


@click.command("sweep")
@click.argument("workload", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--grid",
    "grid_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML grid: workload paths with lists of values under cross: and zip:.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    callback=output_folder_exists,
    help="JSON-lines results file; scenarios it already holds are skipped.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes, one scenario each [default: one per core]; with --ray auto, the CPUs of "
    "a Ray started here.",
)
@click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="auto|ADDRESS",
    help="Run on Ray: auto joins or starts a local Ray; otherwise a cluster's address (ftopt[ray]).",
)
@time_limit_option("Seconds of search per scenario.")
@click.option(
    "--what-if/--no-what-if",
    default=False,
    show_default=True,
    help="Re-solve each optimum once per relaxation to record savings (several times slower).",
)
@click.option("--retry-failed", is_flag=True, help="Solve again the scenarios recorded as failed.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary on stderr.")
@prices_option
@catalogue_dir_option
@handle_errors
def sweep_command(
    workload: Path,
    grid_path: Path,
    output: Path,
    jobs: int | None,
    ray_address: str | None,
    time_limit: float,
    what_if: bool,
    retry_failed: bool,
    quiet: bool,
    prices: Path | None,
    catalogue_dir: Path | None,
) -> None:
    """Solve WORKLOAD once per scenario of the grid, one JSON line per scenario in the output file."""
    from ftopt.sweep.backends import Backend, LocalBackend, RayBackend, import_ray
    from ftopt.sweep.runner import every_scenario_invalid, prepare, run_sweep

    backend: Backend
    if ray_address is not None:
        import_ray()  # fail before any work when ray is missing
        backend = RayBackend(address=ray_address, num_cpus=jobs)
    else:
        backend = LocalBackend(jobs or usable_cores())
    plan = prepare(workload, grid_path, prices, time_limit, what_if, catalogue_dir)
    show = not quiet and sys.stderr.isatty()
    console = Console(stderr=True)
    try:
        if show:
            with SweepProgress(console) as bar:
                summary = run_sweep(plan, output, backend, retry_failed, bar.start, bar.done, bar.running)
        else:
            summary = run_sweep(plan, output, backend, retry_failed)
    except KeyboardInterrupt:
        click.echo(f"ftopt: interrupted; finished scenarios are in {output}: rerun to go on", err=True)
        sys.exit(130)
    if not quiet:
        statuses = ", ".join(f"{n} {s}" for s, n in summary.statuses.most_common()) or "nothing new"
        click.echo(
            one_line(
                f"ftopt: {summary.total} scenarios, {summary.skipped} already in {output}; this run: "
                f"{statuses} in {summary.seconds:.1f} s ({summary.rate:.1f} scenarios/s)"
            ),
            err=True,
        )
    if summary.statuses[FAILED]:
        click.echo(
            f"ftopt: {summary.statuses[FAILED]} scenarios failed (see their error in {output}); "
            "rerun with --retry-failed",
            err=True,
        )
        sys.exit(1)
    invalid = every_scenario_invalid(plan, output)
    if invalid is not None:
        click.echo(
            one_line(
                f"ftopt: every scenario of the grid is invalid (the first: {invalid}); fix the grid or "
                f"the workload, then delete {output} and rerun"
            ),
            err=True,
        )
        sys.exit(2)


@click.command("sweep-report")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="html", show_default=True)
@output_option
@handle_errors
def sweep_report_command(results: Path, fmt: str, output: Path | None) -> None:
    """Charts and tables of a sweep's RESULTS file: price against each swept value, cost by kind."""
    from ftopt.catalogue.loader import load_catalogue
    from ftopt.cli.render_sweep import render_csv, render_html, render_markdown
    from ftopt.errors import InputError
    from ftopt.sweep.report import item_kinds, load_results

    if not results.is_file():
        raise InputError(str(results), "", "no such results file (write one with ftopt sweep)")
    records = load_results(results)
    kinds = item_kinds(load_catalogue())
    if fmt == "csv":
        text = render_csv(records, kinds)
    elif fmt == "markdown":
        text = render_markdown(records, kinds)
    else:
        text = render_html(records, kinds, title=f"Sweep report: {results.name}")
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
