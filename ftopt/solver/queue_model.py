"""Queue mode's CP-SAT model: how many servers of each build, and when each job runs on which.

Why counts per build and not named servers: a job of g GPUs on a build of S GPUs (g and S powers of
two, g ≤ S) needs an aligned block of g free cards for its whole length. At any one moment such
blocks pack a population of identical servers exactly when Σ GPUs in use ≤ servers × S (sizes that
divide each other pack first-fit without loss), so the model keeps one cumulative per build whose
capacity is the count variable times S. Over time a job cannot move, so this is a relaxation: its
optimum is a proven lower bound, and `queue_schedule.realise` turns its schedule into GPU indices
(adding a server only where fragmentation leaves no aligned block, which the plan's gap then shows).

Each job has one start variable and an optional fixed-size interval per option (mode and build it
may train in); jobs of one run are interchangeable, so their starts are ordered. Options are the
light (mode, build) pairs of `ProblemData`: copies whose host RAM and NVMe fit their GPUs' share of
the build's base RAM and disk, so that any set of them running together fits the server. Runs whose
modes are heavy or multi-node on some build keep only their light options here; the bound is then
only over light options and the solver reports no proof (`QueueProblem.complete`).

Time is in whole minutes: a job's interval is its option's slowest aligned block on that build,
rounded up, so the hours the plan reports for its actual GPUs never exceed it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ftopt.model.speed import hours_to_train
from ftopt.model.workload import Workload
from ftopt.solver.plan_builder import copy_speed
from ftopt.solver.problem import ProblemData

MINUTES_PER_HOUR = 60


@dataclass(frozen=True)
class JobOption:
    """One way to train a job of a run: a mode on a build, its GPUs and its reserved minutes."""

    mode: int  # index into data.modes
    build: int  # index into data.builds
    gpus: int
    minutes: int


@dataclass
class QueueProblem:
    """The runs' options and windows, in minutes from the start of the horizon."""

    data: ProblemData
    jobs: list[int]  # jobs per run
    windows: list[tuple[int, int]]  # per run: earliest start, latest end
    options: list[list[JobOption]]  # per run, Pareto-pruned on (GPUs, minutes) per build
    complete: bool  # no run has a heavy or multi-node option left out: the model's bound is a proof

    @property
    def builds(self) -> list[int]:
        """Builds some option uses, in index order."""
        return sorted({o.build for opts in self.options for o in opts})


def slowest_hours(data: ProblemData, mode: int, build: int) -> float | None:
    """Hours a job of the mode needs on the slowest aligned block of the build (None without speed data)."""
    m, b = data.modes[mode], data.builds[build]
    tokens = data.profiles[m.run].run.train_tokens
    if tokens is None:
        return None
    hours = []
    for start in range(0, b.gpu_count - m.gpus + 1, m.gpus):
        speed = copy_speed(data, m, b, start)
        if speed is None:
            return None
        hours.append(hours_to_train(tokens, speed))
    return max(hours) if hours else None


def _window(workload: Workload, run: int) -> tuple[int, int]:
    r, queue = workload.runs[run], workload.queue
    assert queue is not None
    end = min(r.deadline_hours or math.inf, queue.horizon_hours)
    return math.ceil((r.release_hours or 0.0) * MINUTES_PER_HOUR), math.floor(end * MINUTES_PER_HOUR + 1e-9)


def _pareto(options: list[JobOption]) -> list[JobOption]:
    """Per build, drop an option another needs no more GPUs and no more minutes than."""
    kept: list[JobOption] = []
    for option in sorted(options, key=lambda o: (o.build, o.gpus, o.minutes, o.mode)):
        if not any(k.build == option.build and k.minutes <= option.minutes for k in kept):
            kept.append(option)
    return kept


def queue_problem(data: ProblemData, workload: Workload) -> QueueProblem:
    """Each run's light options that fit its window, with their reserved minutes."""
    runs = range(len(workload.runs))
    windows = [_window(workload, r) for r in runs]
    found: list[list[JobOption]] = [[] for _ in runs]
    for mode, build in data.pool:
        run = data.modes[mode].run
        hours = slowest_hours(data, mode, build)
        if hours is None:
            continue
        minutes = max(1, math.ceil(hours * MINUTES_PER_HOUR))
        if minutes <= windows[run][1] - windows[run][0]:
            found[run].append(JobOption(mode, build, data.modes[mode].gpus, minutes))
    complete = not data.heavy_classes and not data.multinode
    return QueueProblem(
        data, [r.job_count for r in workload.runs], windows, [_pareto(o) for o in found], complete
    )


@dataclass
class QueueModel:
    """The CP-SAT model with its decision variables."""

    model: cp_model.CpModel
    servers: dict[int, cp_model.IntVar]  # per build
    starts: list[list[cp_model.IntVar]]  # per run, per job
    chosen: list[list[list[cp_model.IntVar]]]  # per run, per job, per option: presence
    cost: dict[int, int] = field(default_factory=dict)  # cents per server of each build


def server_cost_cents(data: ProblemData, build: int) -> int:
    """What one server of the build adds to the objective (its energy too under `objective: tco`)."""
    b = data.builds[build]
    return round((b.price + b.energy_cost) * 100)


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
    energy (GPU-minutes) each build's servers offer over the horizon as a linear cut for the bound."""
    data = qp.data
    model = cp_model.CpModel()
    bounds = _upper_bounds(qp, ceiling_cents)
    servers = {f: model.new_int_var(0, bounds.get(f, 0), f"n[{f}]") for f in qp.builds}
    intervals: dict[int, list[tuple[cp_model.IntervalVar, int]]] = {f: [] for f in qp.builds}
    area: dict[int, list[cp_model.LinearExprT]] = {f: [] for f in qp.builds}
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
                area[option.build].append(present * (option.gpus * option.minutes))
                presences.append(present)
            model.add_exactly_one(presences)
            if run_starts:
                model.add(run_starts[-1] <= start)  # interchangeable jobs: no reordering
            run_starts.append(start)
            run_chosen.append(presences)
        starts.append(run_starts)
        chosen.append(run_chosen)
    span = max((w[1] for w in qp.windows), default=0) - min((w[0] for w in qp.windows), default=0)
    for f, items in intervals.items():
        size = data.builds[f].gpu_count
        model.add_cumulative([i for i, _ in items], [g for _, g in items], servers[f] * size)
        model.add(sum(area[f]) <= servers[f] * size * span)
    limit = data.workload.site.max_servers
    if limit is not None:
        model.add(sum(servers.values()) <= limit)
    cost = {f: server_cost_cents(data, f) for f in qp.builds}
    model.minimize(sum(servers[f] * cost[f] for f in qp.builds))
    return QueueModel(model, servers, starts, chosen, cost)


@dataclass(frozen=True)
class ScheduledOption:
    """One job as the model placed it: its run, number, option and start minute."""

    run: int
    job: int
    option: JobOption
    start: int


def decode(
    qp: QueueProblem, built: QueueModel, solver: cp_model.CpSolver
) -> tuple[dict[int, int], list[ScheduledOption]]:
    """Servers per build and every job's option and start from a solution."""
    counts = {f: solver.value(v) for f, v in built.servers.items()}
    jobs = []
    for run, options in enumerate(qp.options):
        for job, presences in enumerate(built.chosen[run]):
            k = next(k for k, p in enumerate(presences) if solver.boolean_value(p))
            jobs.append(ScheduledOption(run, job + 1, options[k], solver.value(built.starts[run][job])))
    return counts, jobs


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
