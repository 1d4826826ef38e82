"""A sweep end to end: read the bid and the grid, skip what the results file holds, run the rest.

`prepare` reads and checks everything that can be checked before any solve (the workload, the
grid, every price list), so that a mistake in them is one error, not a thousand failed scenarios.
`run_sweep` writes one line per finished scenario as the backend reports it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ftopt.catalogue.loader import load_catalogue
from ftopt.catalogue.prices import apply_price_list
from ftopt.errors import InputError
from ftopt.reading.workload_file import load_workload
from ftopt.sweep.backends import Backend
from ftopt.sweep.grid import Grid, load_grid, scenario_key
from ftopt.sweep.scenario import (
    FAILED,
    INVALID,
    MIN_SCENARIO_S,
    NOT_RUN,
    SCENARIO_SEARCH_SHARE,
    CrashHook,
    Scenario,
    SweepContext,
)
from ftopt.sweep.store import ResultsWriter, read_records

#: Seconds kept back from the command's budget for what follows the last scenario: the pool's
#: shutdown, the results file closed, the summary line (measured in benchmarks/time-limit.md).
CLOSE_S = 0.5


def scenario_share(limit: float, scenarios: int, parallel: int) -> float:
    """Each scenario's solve time when `limit` bounds the whole sweep: its slot (the limit times
    the scenarios solved at once, over the scenarios to solve) less what a scenario needs beyond
    its solve (`SCENARIO_SEARCH_SHARE`), and never more than that share of the limit itself."""
    if scenarios <= 0:
        return limit * SCENARIO_SEARCH_SHARE
    slot = min(limit, limit * max(1, parallel) / scenarios)
    return max(MIN_SCENARIO_S, round(slot * SCENARIO_SEARCH_SHARE, 3))


def sharing_words(limit: float, share: float, scenarios: int, parallel: int) -> str:
    """How the sweep shared its time limit, in the words its records carry."""
    words = (
        f"one budget of {limit:g} s for the whole sweep: {scenarios} scenarios, {max(1, parallel)} at "
        f"once, {share:.3g} s of search each (the rest of each one's slot kept for its worker and "
        "its verifier)"
    )
    if share == MIN_SCENARIO_S and limit * max(1, parallel) * SCENARIO_SEARCH_SHARE / scenarios < share:
        words += f" (the least a search is given: the sweep may run past {limit:g} s)"
    return words


@dataclass(frozen=True)
class SweepPlan:
    """A checked sweep: the shared context and every scenario of the grid."""

    context: SweepContext
    grid: Grid
    scenarios: list[Scenario]


@dataclass
class SweepSummary:
    """What a run of `run_sweep` did."""

    total: int
    skipped: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def solved(self) -> int:
        """Scenarios finished by this run."""
        return sum(self.statuses.values())

    @property
    def rate(self) -> float:
        """Scenarios finished per second by this run."""
        return self.solved / self.seconds if self.seconds else 0.0


def bid_fingerprint(workload: dict[str, object], prices: str) -> str:
    """A short hash of the base workload and the price list: what a results file answers."""
    text = json.dumps(workload, sort_keys=True, separators=(",", ":")) + "\n" + prices
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def prepare(
    workload_path: Path,
    grid_path: Path,
    prices: Path | None = None,
    time_limit: float = 60.0,
    what_if: bool = False,
    catalogue_dir: Path | None = None,
) -> SweepPlan:
    """The context and scenarios of a sweep; `InputError` for a bad workload, grid, price list or
    catalogue directory (merged by id over the packaged catalogue, before the price list)."""
    base = load_catalogue(prices=prices, overlay=catalogue_dir)
    workload = load_workload(workload_path, base)
    grid = load_grid(grid_path, workload)
    catalogues = {"": base}
    for value in grid.price_values():
        catalogues[value] = apply_price_list(base, grid.price_file(value))
    # Only what the user wrote: defaults filled in (a `feed` beside `racks`, `concurrent` in a queue)
    # would make every edited scenario fail the workload's own checks. The fingerprint keeps the full
    # dump, so results files written before stay this bid's.
    data = workload.model_dump(mode="json", exclude_unset=True)
    price_text = json.dumps([p.model_dump(mode="json") for p in base.prices], sort_keys=True)
    if catalogue_dir is not None:  # a vendor's hardware is part of what the results answer
        price_text += "\n" + base.model_dump_json()
    context = SweepContext(
        workload=data,
        workload_name=workload.name or workload_path.stem,
        bid=bid_fingerprint(workload.model_dump(mode="json"), price_text),
        catalogues=catalogues,
        time_limit=time_limit,
        what_if=what_if,
    )
    scenarios = [Scenario(scenario_key(v), i, v) for i, v in enumerate(grid.scenarios())]
    return SweepPlan(context, grid, scenarios)


def still_to_do(plan: SweepPlan, output: Path, retry_failed: bool = False) -> tuple[list[Scenario], int]:
    """The scenarios the results file does not hold yet, and how many it holds."""
    records = read_records(output, repair=True)
    other = next((r for r in records if r.get("bid") != plan.context.bid), None)
    if other is not None:
        raise InputError(
            str(output),
            "",
            f"holds results of another workload or price list (bid {other.get('bid')}, this one "
            f"{plan.context.bid}); write to a new file or delete this one",
        )
    again = {NOT_RUN, FAILED} if retry_failed else {NOT_RUN}  # a scenario the budget left out runs now
    finished = {r["key"] for r in records if r.get("status") not in again}
    todo = [s for s in plan.scenarios if s.key not in finished]
    return todo, len(plan.scenarios) - len(todo)


def run_sweep(
    plan: SweepPlan,
    output: Path,
    backend: Backend,
    retry_failed: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callable[[str], None] | None = None,
    on_running: Callable[[int], None] | None = None,
) -> SweepSummary:
    """Solve every scenario the results file lacks, appending one line as each one finishes.

    `on_start(total, skipped)` is called once the file is read; `on_done(status)` after each line
    is written; `on_running(n)` when the backend knows how many are being solved.
    """
    todo, skipped = still_to_do(plan, output, retry_failed)
    summary = SweepSummary(total=len(plan.scenarios), skipped=skipped)
    if on_start:
        on_start(summary.total, skipped)
    started = time.perf_counter()
    with ResultsWriter(output) as writer:

        def done(key: str, status: str, line: str) -> None:
            writer.write(line)
            summary.statuses[status] += 1
            if on_done:
                on_done(status)

        try:
            if todo:
                context = replace(_shared(plan.context, len(todo), backend), crash_hook=CrashHook.from_env())
                backend.run(context, todo, done, on_running)
        finally:
            summary.seconds = time.perf_counter() - started
    return summary


def with_deadline(plan: SweepPlan, started: float) -> SweepPlan:
    """The sweep with its budget counted from `started` (seconds since the epoch: the process's start
    when ftopt is the program, `ftopt.cli.started`): each scenario is searched for at most its share
    of what is left when its turn comes, and one whose turn comes too late is recorded not run."""
    ends = started + plan.context.time_limit - CLOSE_S
    return replace(plan, context=replace(plan.context, ends_at=ends, budget_s=plan.context.time_limit))


def _shared(context: SweepContext, scenarios: int, backend: Backend) -> SweepContext:
    """The context with each scenario's share of the command's time limit (`scenario_share`), of what
    is left of it when the sweep starts when it has an end: Ray's parallelism is known only once
    connected, so it counts as one (shares no longer than needed)."""
    parallel = getattr(backend, "workers", 0) or getattr(backend, "num_cpus", None) or 1
    limit = context.time_limit if context.budget_s is None else context.budget_s
    left = limit if context.ends_at is None else max(0.0, context.ends_at - time.time())
    share = scenario_share(left, scenarios, parallel)
    words = sharing_words(limit, share, scenarios, parallel)
    return replace(context, time_limit=share, budget_s=limit, sharing=words)


def every_scenario_invalid(plan: SweepPlan, output: Path) -> str | None:
    """The first scenario's error when the results file holds every scenario of the grid and each
    one is invalid, else None.

    Why: such a sweep answered nothing (a field every edit breaks, a base workload the edit cannot
    express); exiting 0 would pass for a sweep of answers, on the first run and on every rerun.
    """
    keys = {s.key for s in plan.scenarios}
    records = [r for r in read_records(output) if r.get("key") in keys]
    if not records or any(r.get("status") != INVALID for r in records):
        return None
    first = min(records, key=lambda r: r.get("index") or 0)
    return str(first.get("error"))
