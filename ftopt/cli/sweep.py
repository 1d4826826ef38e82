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
from typing import TYPE_CHECKING, NoReturn

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
from ftopt.sweep.scenario import FAILED, NOT_RUN

if TYPE_CHECKING:
    from ftopt.sweep.backends import Backend
    from ftopt.sweep.runner import SweepPlan, SweepSummary

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
@time_limit_option(
    "Seconds for the whole sweep: each scenario gets the limit × the scenarios solved at once ÷ the "
    "scenarios to solve (at least 0.1 s); each record says its share and how the budget was shared."
)
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
    from ftopt.cli.started import command_started
    from ftopt.sweep.runner import prepare, with_deadline

    backend = _backend(ray_address, jobs)
    plan = prepare(workload, grid_path, prices, time_limit, what_if, catalogue_dir)
    plan = with_deadline(plan, command_started())  # the process's start-up counts against the limit
    summary = _run(plan, output, backend, retry_failed, quiet)
    if not quiet:
        statuses = ", ".join(f"{n} {s}" for s, n in summary.statuses.most_common()) or "nothing new"
        click.echo(
            one_line(
                f"ftopt: {summary.total} scenarios, {summary.skipped} already in {output}; this run: "
                f"{statuses} in {summary.seconds:.1f} s ({summary.rate:.1f} scenarios/s)"
            ),
            err=True,
        )
    _exit_on_failures(summary, plan, output)


def _backend(ray_address: str | None, jobs: int | None) -> Backend:
    """Ray when an address is given (failing before any work when ray is missing), else local
    worker processes, one per usable core unless --jobs says otherwise."""
    from ftopt.sweep.backends import LocalBackend, RayBackend, import_ray

    if ray_address is None:
        return LocalBackend(jobs or usable_cores())
    import_ray()
    return RayBackend(address=ray_address, num_cpus=jobs)


def _run(plan: SweepPlan, output: Path, backend: Backend, retry_failed: bool, quiet: bool) -> SweepSummary:
    """The sweep, with a progress bar on a terminal; Ctrl-C leaves at once with the finished
    scenarios kept (a rerun goes on from them)."""
    from ftopt.sweep.runner import run_sweep

    try:
        if not quiet and sys.stderr.isatty():
            with SweepProgress(Console(stderr=True)) as bar:
                return run_sweep(plan, output, backend, retry_failed, bar.start, bar.done, bar.running)
        return run_sweep(plan, output, backend, retry_failed)
    except KeyboardInterrupt:
        click.echo(f"ftopt: interrupted; finished scenarios are in {output}: rerun to go on", err=True)
        _exit_now(130)


def _exit_on_failures(summary: SweepSummary, plan: SweepPlan, output: Path) -> None:
    """Exit 1 when scenarios failed (a rerun may finish them), 2 when every scenario is invalid
    (the grid or the workload is wrong), 4 when the time limit was spent before some scenarios ran
    (a rerun runs them); else return, for exit 0."""
    from ftopt.sweep.runner import every_scenario_invalid

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
    if summary.statuses[NOT_RUN]:
        click.echo(
            f"ftopt: {summary.statuses[NOT_RUN]} scenarios not run: the --time-limit budget was spent "
            f"(labelled in {output}); rerun to solve them",
            err=True,
        )
        sys.exit(4)


@click.command("sweep-report")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="html", show_default=True)
@output_option
@handle_errors
def sweep_report_command(results: Path, fmt: str, output: Path | None) -> None:
    """Charts and tables of a sweep's RESULTS file: price against each swept value, cost by kind."""
    from ftopt.catalogue.loader import load_catalogue
    from ftopt.errors import InputError
    from ftopt.quote.sweep import render_csv, render_html, render_markdown
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


def _exit_now(code: int) -> NoReturn:
    """Leave at once, past the interpreter's exit hooks. The results file is closed by now (the
    runner's writer is a context manager), but Python 3.11's process-pool exit hook can still wake
    the pool just stopped through a pipe its manager thread has closed, and print a traceback
    (OSError: Bad file descriptor) after the one line the user was promised."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
