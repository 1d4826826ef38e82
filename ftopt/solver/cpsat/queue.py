"""Queue mode's CP-SAT model: how many servers of each build, and when each job runs in which option.

Why counts per build and not named servers: a job of g GPUs on a build of S GPUs (g and S powers of
two, g ≤ S) needs an aligned block of g free cards for its whole length. At any one moment such
blocks pack a population of identical servers exactly when Σ GPUs in use ≤ servers × S (sizes that
divide each other pack first-fit without loss), so the model keeps one cumulative per build whose
capacity is the count variable times S. Over time a job cannot move, so this is a relaxation: its
optimum is a proven lower bound, and `ftopt.solver.decode.queue.realise` turns its schedule into
GPU indices (adding a server only where fragmentation leaves no aligned block; the gap then shows it).

Each job has one start variable and an optional fixed-size interval per option; jobs of one run are
interchangeable, so their starts are ordered. Area cuts (GPU-minutes of the jobs inside a span ≤
count × S × span) per build give the LP a bound, and a price ceiling (the cheapest plan in hand)
caps each count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.families import add_families
from ftopt.solver.cpsat.family import Fleet
from ftopt.solver.problem.queue import QueueProblem, ScheduledOption, server_cost_cents


@dataclass
class QueueModel:
    """The CP-SAT model with its decision variables."""

    model: cp_model.CpModel
    servers: dict[int, cp_model.IntVar]  # per build
    starts: list[list[cp_model.IntVar]]  # per run, per job
    chosen: list[list[list[cp_model.IntVar]]]  # per run, per job, per option: presence


def _upper_bounds(qp: QueueProblem, ceiling_cents: int | None) -> dict[int, int]:
    """Most servers of each build a plan could want: every job on it at once, and no more than the
    cheapest plan in hand pays for."""
    demand: dict[int, int] = {}
    for run, options in enumerate(qp.options):
        for f in {o.build for o in options}:
            widest = max(o.gpus for o in options if o.build == f)
            demand[f] = demand.get(f, 0) + widest * qp.jobs[run]
    bounds = {}
    for f, gpus in demand.items():
        bound = math.ceil(gpus / qp.data.builds[f].gpu_count)
        if ceiling_cents is not None:
            bound = min(bound, ceiling_cents // max(1, server_cost_cents(qp.data, f)))
        bounds[f] = bound
    return bounds


def build_queue_model(qp: QueueProblem, ceiling_cents: int | None = None) -> QueueModel:
    """Counts per build, a start and optional intervals per job, one cumulative per build, and the
    GPU-minutes each build's servers offer over each span as linear cuts for the bound."""
    data = qp.data
    model = cp_model.CpModel()
    bounds = _upper_bounds(qp, ceiling_cents)
    servers = {f: model.new_int_var(0, bounds.get(f, 0), f"n[{f}]") for f in qp.builds}
    intervals: dict[int, list[tuple[cp_model.IntervalVar, int]]] = {f: [] for f in qp.builds}
    area: dict[tuple[int, int], list[cp_model.LinearExprT]] = {}  # (build, run): GPU-minutes
    starts: list[list[cp_model.IntVar]] = []
    chosen: list[list[list[cp_model.IntVar]]] = []
    for run, options in enumerate(qp.options):
        early, late = qp.windows[run]
        shortest = min((o.minutes for o in options), default=late - early)
        run_starts: list[cp_model.IntVar] = []
        run_chosen: list[list[cp_model.IntVar]] = []
        for job in range(qp.jobs[run]):
            start = model.new_int_var(early, max(early, late - shortest), f"s[{run},{job}]")
            presences: list[cp_model.IntVar] = []
            for k, option in enumerate(options):
                present = model.new_bool_var(f"x[{run},{job},{k}]")
                model.add(start + option.minutes <= late).only_enforce_if(present)
                interval = model.new_optional_fixed_size_interval_var(
                    start, option.minutes, present, f"i[{run},{job},{k}]"
                )
                intervals[option.build].append((interval, option.gpus))
                area.setdefault((option.build, run), []).append(present * (option.gpus * option.minutes))
                presences.append(present)
            model.add_exactly_one(presences)
            if run_starts:
                model.add(run_starts[-1] <= start)  # interchangeable jobs: no reordering
            run_starts.append(start)
            run_chosen.append(presences)
        starts.append(run_starts)
        chosen.append(run_chosen)
    for f, items in intervals.items():
        size = data.builds[f].gpu_count
        model.add_cumulative([i for i, _ in items], [g for _, g in items], servers[f] * size)
    _add_window_cuts(qp, model, servers, area)
    add_families(model, data, queue_fleet(qp, servers), None)  # the site's rules, as in the peak model
    model.minimize(sum(servers[f] * server_cost_cents(data, f) for f in qp.builds))
    return QueueModel(model, servers, starts, chosen)


def queue_fleet(qp: QueueProblem, servers: dict[int, cp_model.IntVar]) -> Fleet:
    """The queue model's servers per build as the constraint families' fleet: a server bought for the
    horizon is a server at the site, whatever it runs when, so every rule of the site applies as in
    the peak model (the peak bid is this model with one time slot)."""
    return [(qp.data.builds[f], count) for f, count in servers.items()]


def _add_window_cuts(
    qp: QueueProblem,
    model: cp_model.CpModel,
    servers: dict[int, cp_model.IntVar],
    area: dict[tuple[int, int], list[cp_model.LinearExprT]],
) -> None:
    """For each span from one run's release to another's deadline, and each build: the GPU-minutes of
    the jobs whose windows lie inside it fit in the build's servers over that span.

    Valid for every schedule (a job lies inside its window); the LP sees nothing of the cumulative,
    so without these the bound is only the cheapest servers, not the GPU-hours the jobs need."""
    releases = sorted({w[0] for w in qp.windows})
    deadlines = sorted({w[1] for w in qp.windows})
    for early in releases:
        for late in deadlines:
            inside = [r for r, w in enumerate(qp.windows) if early <= w[0] and w[1] <= late]
            if late <= early or not inside:
                continue
            for f, count in servers.items():
                terms = [t for r in inside for t in area.get((f, r), [])]
                if terms:
                    model.add(sum(terms) <= count * qp.data.builds[f].gpu_count * (late - early))


def add_hint(
    qp: QueueProblem, built: QueueModel, counts: dict[int, int], jobs: list[ScheduledOption]
) -> None:
    """Start the search from a plan in hand: its server counts, options and starts."""
    for f, var in built.servers.items():
        built.model.add_hint(var, counts.get(f, 0))
    # Jobs of a run are ordered by start in the model: hint them in that order.
    by_run: dict[int, list[ScheduledOption]] = {}
    for job in jobs:
        by_run.setdefault(job.run, []).append(job)
    for run, placed in by_run.items():
        placed.sort(key=lambda j: j.start)
        for k, job in enumerate(placed):
            built.model.add_hint(built.starts[run][k], job.start)
            for option, present in zip(qp.options[run], built.chosen[run][k], strict=True):
                built.model.add_hint(present, option == job.option)


def aggregate_bound(
    qp: QueueProblem, settings_seconds: float, workers: int
) -> tuple[float | None, dict[int, int] | None]:
    """A lower bound on the objective (cents) from counts alone: jobs per (run, build) and servers per
    build, under the same area cuts, with no schedule. A relaxation of the full model small enough to
    solve in a fraction of a second at any number of jobs; None when it does not finish in time.
    Also its servers per build (the fleet `repair_fleet` starts from), when it found one."""
    model = cp_model.CpModel()
    servers = {
        f: model.new_int_var(0, max(1, bound), f"n[{f}]") for f, bound in _upper_bounds(qp, None).items()
    }
    area: dict[tuple[int, int], list[cp_model.LinearExprT]] = {}
    for run, options in enumerate(qp.options):
        counts = [model.new_int_var(0, qp.jobs[run], f"c[{run},{k}]") for k in range(len(options))]
        model.add(sum(counts) == qp.jobs[run])
        for option, count in zip(options, counts, strict=True):
            area.setdefault((option.build, run), []).append(count * (option.gpus * option.minutes))
    _add_window_cuts(qp, model, servers, area)
    add_families(model, qp.data, queue_fleet(qp, servers), None)  # valid for every schedule: still a bound
    model.minimize(sum(servers[f] * server_cost_cents(qp.data, f) for f in servers))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = settings_seconds
    solver.parameters.num_workers = max(1, workers)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return math.inf, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None
    fleet = {f: solver.value(n) for f, n in servers.items() if solver.value(n)}
    return solver.best_objective_bound, fleet
