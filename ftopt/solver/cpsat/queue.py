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

import functools
import itertools
import math
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.families import add_families
from ftopt.solver.cpsat.family import Fleet
from ftopt.solver.problem.queue import JobOption, QueueProblem, ScheduledOption, server_cost_cents

#: One option's use of a build's GPUs: its count (or presence), its GPUs and its minutes.
Use = tuple[cp_model.LinearExprT, int, int]
#: Per (build, run), every option's use.
Uses = dict[tuple[int, int], list[Use]]
#: Per build: each job option's interval and its GPUs, for the build's cumulative.
Intervals = dict[int, list[tuple[cp_model.IntervalVar, int]]]
#: Largest k of the lane cuts (jobs of at least span/(k+1)); shorter jobs waste too little of a lane.
MAX_LANE_K = 200
#: Most constraints the window cuts may bring a model to. Every cut is valid alone, so fewer only
#: weakens the bound: 60 runs with windows of their own and jobs of 38 minutes to 4 days made
#: 144,000 cuts (57,000 lane, 87,000 pair), and building them took 55 s of a 30 s limit on a
#: loaded machine (2.4 s with this cap); the project's own queues (four runs) make 264 in all.
MAX_CUTS = 5_000


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
    intervals: Intervals = {f: [] for f in qp.builds}
    area: Uses = {}  # (build, run): each option's count, GPUs and minutes
    starts: list[list[cp_model.IntVar]] = []
    chosen: list[list[list[cp_model.IntVar]]] = []
    jobs = _Jobs(model, intervals, area)
    for run in range(len(qp.options)):
        run_starts, run_chosen = _add_run_jobs(qp, jobs, run)
        starts.append(run_starts)
        chosen.append(run_chosen)
    for f, items in intervals.items():
        size = data.builds[f].gpu_count
        model.add_cumulative([i for i, _ in items], [g for _, g in items], servers[f] * size)
    _add_window_cuts(_Counts(qp, model, servers, area))
    add_families(model, data, queue_fleet(qp, servers), None)  # the site's rules, as in the peak model
    model.minimize(sum(servers[f] * server_cost_cents(data, f) for f in qp.builds))
    return QueueModel(model, servers, starts, chosen)


@dataclass(frozen=True)
class _Jobs:
    """What every job's options go into: the model, the optional intervals per build (for its
    cumulative) and each option's presence, GPUs and minutes per build and run (for the cuts)."""

    model: cp_model.CpModel
    intervals: Intervals
    area: Uses


@dataclass(frozen=True)
class _JobSlot:
    """One job of a run: the run, the job's number, its start and the run's deadline (minutes)."""

    run: int
    job: int
    start: cp_model.IntVar
    late: int


@dataclass(frozen=True)
class _Counts:
    """A queue model's counts as its cuts read them: the problem, the model, the servers per build and
    each option's count (or presence), GPUs and minutes per build and run."""

    qp: QueueProblem
    model: cp_model.CpModel
    servers: dict[int, cp_model.IntVar]
    area: Uses


def _add_run_jobs(
    qp: QueueProblem, jobs: _Jobs, run: int
) -> tuple[list[cp_model.IntVar], list[list[cp_model.IntVar]]]:
    """One run's jobs: each a start inside the run's window and one chosen option; the jobs are
    interchangeable, so they start in order (no reordering to search)."""
    model = jobs.model
    options = qp.options[run]
    early, late = qp.windows[run]
    shortest = min((o.minutes for o in options), default=late - early)
    starts: list[cp_model.IntVar] = []
    chosen: list[list[cp_model.IntVar]] = []
    for job in range(qp.jobs[run]):
        start = model.new_int_var(early, max(early, late - shortest), f"s[{run},{job}]")
        slot = _JobSlot(run, job, start, late)
        presences = [_add_option(jobs, slot, k, option) for k, option in enumerate(options)]
        model.add_exactly_one(presences)
        if starts:
            model.add(starts[-1] <= start)  # interchangeable jobs: no reordering
        starts.append(start)
        chosen.append(presences)
    return starts, chosen


def _add_option(jobs: _Jobs, slot: _JobSlot, k: int, option: JobOption) -> cp_model.IntVar:
    """Whether the job runs as option k: an optional interval on the option's build, ending by the
    run's deadline, and its GPU-minutes for the cuts."""
    model, run, job, start = jobs.model, slot.run, slot.job, slot.start
    present = model.new_bool_var(f"x[{run},{job},{k}]")
    model.add(start + option.minutes <= slot.late).only_enforce_if(present)
    interval = model.new_optional_fixed_size_interval_var(
        start, option.minutes, present, f"i[{run},{job},{k}]"
    )
    jobs.intervals[option.build].append((interval, option.gpus))
    jobs.area.setdefault((option.build, run), []).append((present, option.gpus, option.minutes))
    return present


def queue_fleet(qp: QueueProblem, servers: dict[int, cp_model.IntVar]) -> Fleet:
    """The queue model's servers per build as the constraint families' fleet: a server bought for the
    horizon is a server at the site, whatever it runs when, so every rule of the site applies as in
    the peak model (the peak bid is this model with one time slot)."""
    return [(qp.data.builds[f], count) for f, count in servers.items()]


def _add_window_cuts(counts: _Counts) -> None:
    """For each span from one run's release to another's deadline, and each build: the jobs whose
    windows lie inside it fit in the build's servers' GPU lanes over that span.

    Valid for every schedule (a job lies inside its window); the LP sees nothing of the cumulative,
    so without these the bound is only the cheapest servers, not the GPU-hours the jobs need. Each
    span gives the area cut (GPU-minutes ≤ count × GPUs × span) and the lane cuts (`_lane_cuts`);
    pairs of runs give the pair cuts. Every cut is valid alone, so at most `MAX_CUTS` are added:
    every area cut, then lane cuts by rising k (the fewest, longest jobs per lane first: where they
    gain most over the area cut), then pair cuts while the budget lasts."""
    qp, model, servers, area = counts.qp, counts.model, counts.servers, counts.area
    lanes: list[tuple[int, int, list[Use], cp_model.LinearExprT, int]] = []  # k, order, uses, GPUs, span
    for span, inside in spans(qp):
        for f, count in servers.items():
            uses = [u for r in inside for u in area.get((f, r), [])]
            if uses:
                gpus = count * qp.data.builds[f].gpu_count
                model.add(sum(x * (g * m) for x, g, m in uses) <= gpus * span)
                lanes += [(k, len(lanes), uses, gpus, span) for k in _lane_ks(uses, span)]
    budget = MAX_CUTS - len(model.proto.constraints)
    for k, _, uses, lane_gpus, span in sorted(lanes, key=lambda lane: lane[:2])[: max(0, budget)]:
        model.add(sum(x * (g * lane_weight(m, span, k)) for x, g, m in uses) <= lane_gpus * (k * span))
    _add_pair_cuts(counts)


def _lane_ks(uses: list[Use], span: int) -> list[int]:
    """The k of the lane cut of each job length m in the span, k = ⌊span / m⌋: the one that counts
    jobs of that length as whole jobs per GPU lane (at most k of them)."""
    return sorted({span // m for _, _, m in uses if 1 <= span // m <= MAX_LANE_K})


def spans(qp: QueueProblem) -> list[tuple[int, list[int]]]:
    """Each span from one run's release to another's deadline, in minutes, with the runs whose
    windows lie inside it (spans holding none are left out)."""
    found = []
    for early in sorted({w[0] for w in qp.windows}):
        for late in sorted({w[1] for w in qp.windows}):
            inside = [r for r, w in enumerate(qp.windows) if early <= w[0] and w[1] <= late]
            if late > early and inside:
                found.append((late - early, inside))
    return found


def _add_pair_cuts(counts: _Counts) -> None:
    """Per build and pair of runs whose windows overlap in order (one starts and ends no later than
    the other, the windows differ): the whole jobs of the two that one GPU lane can hold, as cuts
    (`lane_pairs`), while the model has fewer than `MAX_CUTS` constraints. The span cuts see each
    window alone; these see one run's jobs pushing the other's past its deadline."""
    qp, model, area = counts.qp, counts.model, counts.area
    for f, count in counts.servers.items():
        gpus = count * qp.data.builds[f].gpu_count
        runs = [r for r in range(len(qp.jobs)) if area.get((f, r))]
        for i, j in itertools.product(runs, runs):
            if len(model.proto.constraints) >= MAX_CUTS:
                return
            if i != j and _agreeable(qp.windows[i], qp.windows[j]):
                _add_lane_pair(counts, gpus, (area[f, i], area[f, j]), (i, j))


def _add_lane_pair(
    counts: _Counts, gpus: cp_model.LinearExprT, uses: tuple[list[Use], list[Use]], pair: tuple[int, int]
) -> None:
    """The lane cuts of one pair of runs on one build (`uses`: each run's options there), each run at
    its shortest job."""
    qp, model, (first, second) = counts.qp, counts.model, uses
    i, j = pair
    m1, m2 = (min(m for _, _, m in uses) for uses in (first, second))
    for alpha, beta, gamma in lane_pairs(qp.windows[i], qp.windows[j], m1, m2):
        terms = [x * (g * alpha) for x, g, _ in first] + [x * (g * beta) for x, g, _ in second]
        model.add(sum(terms) <= gpus * gamma)


def _agreeable(first: tuple[int, int], second: tuple[int, int]) -> bool:
    """`first` starts and ends no later than `second`, they differ, and they overlap."""
    return first != second and first[0] <= second[0] and first[1] <= second[1] and second[0] < first[1]


@functools.lru_cache(maxsize=65536)  # pure; every build repeats the same pairs of windows and lengths
def lane_pairs(
    first: tuple[int, int], second: tuple[int, int], m1: int, m2: int
) -> list[tuple[int, int, int]]:
    """Facets α·a + β·b ≤ γ of the whole jobs one GPU lane holds: a of `first`'s (m1 minutes each)
    and b of `second`'s (m2), windows agreeable. On one lane, jobs in earliest-deadline order are
    optimal for such windows, so with a jobs of the first packed from its release, the second's
    fit from max(its release, their end) to its deadline: b ≤ ⌊(d2 − max(r2, r1 + a·m1)) / m2⌋. The
    upper hull of those points bounds every lane; a job of g GPUs is on g lanes, so summed over
    lanes Σ g·(α·[first] + β·[second]) ≤ γ × GPUs holds for every schedule. Runs with several
    options on the build take their shortest jobs (shorter jobs only fit more)."""
    (r1, d1), (r2, d2) = first, second
    points = [(a, (d2 - max(r2, r1 + a * m1)) // m2) for a in range((d1 - r1) // m1 + 1)]
    hull: list[tuple[int, int]] = []
    for point in points:  # upper concave hull, left to right
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], point) >= 0:
            hull.pop()
        hull.append(point)
    return [
        (b1 - b2, a2 - a1, (b1 - b2) * a1 + (a2 - a1) * b1)
        for (a1, b1), (a2, b2) in itertools.pairwise(hull)
        if b2 < b1
    ]


def _cross(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def lane_weight(minutes: int, span: int, k: int) -> int:
    """k·span × u_k(minutes / span), Fekete and Schepers' dual-feasible function u_k(x) = x where
    (k+1)·x is whole, else ⌊(k+1)·x⌋ / k: whatever whole jobs share one GPU over the span, their
    u_k sum to at most 1, so Σ jobs × GPUs × u_k ≤ the GPUs (a valid cut for every schedule). A job
    of just over a seventh of the span weighs a seventh with k = 7: at most 7 per GPU lane, where
    the area cut allows 7.9 (Fekete & Schepers, Math. Program. 91 (2001), doi:10.1007/s101070100243)."""
    if ((k + 1) * minutes) % span == 0:
        return k * minutes
    return ((k + 1) * minutes // span) * span


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


@dataclass
class Relaxation:
    """What the counts-only relaxation gives: a lower bound on the objective (cents; None: not solved
    in time, inf: no fleet at all), its servers per build and its jobs per (run, build)."""

    bound: float | None
    fleet: dict[int, int] | None = None
    splits: list[dict[tuple[int, int], int]] = field(default_factory=list)


def aggregate_bound(qp: QueueProblem, settings_seconds: float, workers: int) -> Relaxation:
    """A lower bound on the objective (cents) from counts alone: jobs per (run, build) and servers per
    build, under the same area and lane cuts and every family of the site, with no schedule. A
    relaxation of the full model small enough to solve in a fraction of a second at any number of
    jobs. Also its fleet (what `repair_fleet` starts from) and splits of each run's jobs over the
    builds (what `schedule_split` schedules build by build): the fleet's most even, then the first
    found, when it found them."""
    counts = _counts_model(qp)
    model, servers, area = counts.model, counts.servers, counts.area
    solver = _relaxation_solver(settings_seconds, workers)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return Relaxation(math.inf)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Relaxation(None)
    bound = solver.best_objective_bound
    fleet = {f: solver.value(n) for f, n in servers.items() if solver.value(n)}
    first = _split(solver, area)
    balanced = _spread(counts, solver, settings_seconds)
    splits = [_split(balanced, area), first] if balanced is not None else [first]
    return Relaxation(bound, fleet, splits)


def _relaxation_solver(seconds: float, workers: int) -> cp_model.CpSolver:
    """A solver for the counts-only models, presolve off: their cuts are already tight linear rows,
    and presolving them (probing, dual strengthening, symmetry, several rounds) took 1.6 of the
    2.4 s that proved the 60-run, 200-job queue's relaxation, against 0.25 s in all without it
    (1,000 jobs: 2.7 s against 0.19 s), so within the 2 s it is given it ended with no bound."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = max(1, workers)
    solver.parameters.cp_model_presolve = False
    return solver


def _counts_model(qp: QueueProblem) -> _Counts:
    """The counts-only relaxation: servers per build, each run's jobs counted per option, the area
    and lane cuts and every family of the site (valid for every schedule: still a bound)."""
    model = cp_model.CpModel()
    servers = {
        f: model.new_int_var(0, max(1, bound), f"n[{f}]") for f, bound in _upper_bounds(qp, None).items()
    }
    area: Uses = {}
    for run, options in enumerate(qp.options):
        per_option = [model.new_int_var(0, qp.jobs[run], f"c[{run},{k}]") for k in range(len(options))]
        model.add(sum(per_option) == qp.jobs[run])
        for option, count in zip(options, per_option, strict=True):
            area.setdefault((option.build, run), []).append((count, option.gpus, option.minutes))
    counts = _Counts(qp, model, servers, area)
    _add_window_cuts(counts)
    add_families(model, qp.data, queue_fleet(qp, servers), None)  # valid for every schedule: still a bound
    model.minimize(sum(servers[f] * server_cost_cents(qp.data, f) for f in servers))
    return counts


def _split(solver: cp_model.CpSolver, area: Uses) -> dict[tuple[int, int], int]:
    """Jobs per (run, build) in the solver's solution."""
    split: dict[tuple[int, int], int] = {}
    for (f, run), uses in area.items():
        jobs = sum(solver.value(count) for count, _, _ in uses)
        if jobs:
            split[run, f] = jobs
    return split


def _spread(counts: _Counts, solver: cp_model.CpSolver, seconds: float) -> cp_model.CpSolver | None:
    """With the fleet fixed, the split that leaves the fullest build and span least full (per mille of
    the build's GPU-minutes over the span, for the jobs whose windows lie inside it): any split meets
    the cuts, but one that fills a build to the last minute of a window leaves whole jobs no room.
    Started from the first solve's split; None when it finds none."""
    model = counts.model
    fullest = model.new_int_var(0, 1000, "fullest")
    for f, n in counts.servers.items():
        count = solver.value(n)
        model.add(n == count)
        if count:
            _add_fullness(counts, fullest, f, count)
    for uses in counts.area.values():
        for x, _, _ in uses:
            if isinstance(x, cp_model.IntVar):
                model.add_hint(x, solver.value(x))
    model.minimize(fullest)
    second = _relaxation_solver(max(0.2, seconds / 2), solver.parameters.num_workers)
    return second if second.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


def _add_fullness(counts: _Counts, fullest: cp_model.IntVar, f: int, count: int) -> None:
    """`fullest` (per mille) bounds how full build f's `count` servers are over every span, counting
    the jobs whose windows lie inside it."""
    qp = counts.qp
    for span, inside in spans(qp):
        used = [x * (g * m) for r in inside for x, g, m in counts.area.get((f, r), [])]
        if used:
            counts.model.add(1000 * sum(used) <= fullest * (count * qp.data.builds[f].gpu_count * span))
