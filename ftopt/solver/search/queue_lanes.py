"""The relaxation's own fleet scheduled exactly: each build's share of the jobs on the lane model.

Why: the counts relaxation (`ftopt.solver.cpsat.queue.aggregate_bound`) gives the bound, its fleet
and how many jobs of each run each build trains. When list scheduling cannot fit that split on that
fleet, the plan in hand is dearer than the bound and the queue model, a relaxation over time, has
to close the gap; near full servers it does not (a 60-run, 200-job queue stayed at a 22.5 % gap in
30 s). Scheduling the split build by build on the lane model (`ftopt.solver.cpsat.lanes`) either
finds the schedule, and the plan costs the bound, proven, or leaves the search as it was.
"""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from ftopt.model.settings import SolveSettings
from ftopt.solver.cpsat.lanes import build_lane_model, read_lanes
from ftopt.solver.problem.queue import QueueProblem
from ftopt.solver.search.queue_greedy import GreedyPlan, ShareScheduler, schedule_split, share_of, share_on

#: Most (job, option, server, block) places one lane model may hold: beyond it the model takes
#: longer to build than the search has (each place is a literal and an optional interval).
MAX_PLACES = 200_000


def lane_plan(
    qp: QueueProblem,
    fleet: dict[int, int],
    splits: list[dict[tuple[int, int], int]],
    settings: SolveSettings,
    until: float,
) -> GreedyPlan | None:
    """The first of the splits that schedules on the fleet, each build's share by list scheduling or
    else on the lane model, searched until `until` (perf_counter seconds); None if none does in time."""
    schedule = _on_lanes(settings, until)
    return next((p for p in (schedule_split(qp, fleet, s, schedule) for s in splits) if p), None)


def _on_lanes(settings: SolveSettings, until: float) -> ShareScheduler:
    """A share scheduler that tries list scheduling first and the lane model after it."""

    def schedule(
        qp: QueueProblem, f: int, servers: int, split: dict[tuple[int, int], int]
    ) -> GreedyPlan | None:
        listed = share_on(qp, f, servers, split)
        left = until - time.perf_counter()
        if listed is not None or left <= 0:
            return listed
        share = share_of(qp, f, split)
        if _places(qp, f, servers, share) > MAX_PLACES:
            return None
        built = build_lane_model(qp, f, servers, share)
        solver = _lane_solver(settings, until - time.perf_counter())
        if solver.solve(built.model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        return GreedyPlan({f: servers}, read_lanes(built, solver))

    return schedule


def _places(qp: QueueProblem, f: int, servers: int, share: list[int]) -> int:
    """How many places the lane model of build f's share would hold."""
    size = qp.data.builds[f].gpu_count
    return sum(
        count * servers * (size // o.gpus)
        for run, count in enumerate(share)
        for o in qp.options[run]
        if o.build == f
    )


def _lane_solver(settings: SolveSettings, seconds: float) -> cp_model.CpSolver:
    """CP-SAT with its default portfolio (its LP-guided worker found the schedules; the peak model's
    subsolver choice, `ftopt.solver.search.run.FULL_SUBSOLVERS`, is tuned for bounds, not this), the
    user's workers and a wall limit, or a work limit when the solve must be deterministic."""
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, settings.workers)
    params.random_seed = 0
    params.log_search_progress = settings.log
    if settings.deterministic:
        params.interleave_search = True
        params.max_deterministic_time = max(0.01, seconds)
    else:
        params.max_time_in_seconds = max(0.01, seconds)
    return solver
