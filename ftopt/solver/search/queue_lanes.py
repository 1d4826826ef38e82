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
from ftopt.solver.cpsat.lanes import build_lane_model, place_count, read_lanes
from ftopt.solver.problem.queue import QueueProblem
from ftopt.solver.search.queue_greedy import GreedyPlan, ShareScheduler, schedule_split, share_of, share_on
from ftopt.solver.search.run import make_solver

#: Most (job, option, server, block) places one lane model may hold: each is a literal and an
#: optional interval, built at about 10 µs each (2,304 places in 0.02 s on the 1,000-job stress
#: queue, 2 cores), so this many take about 2 s before any search, the queue model's whole share
#: at a 30 s limit.
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
        if listed is not None or until <= time.perf_counter():
            return listed
        share = share_of(qp, f, split)
        if place_count(qp, f, servers, share) > MAX_PLACES:
            return None
        built = build_lane_model(qp, f, servers, share)
        # CP-SAT's own portfolio: its LP-guided worker found the schedules, where the peak model's
        # subsolvers (FULL_SUBSOLVERS, chosen for bounds) are not what a feasibility question needs.
        solver = make_solver(settings, max(0.01, until - time.perf_counter()), subsolvers=())
        if solver.solve(built.model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        return GreedyPlan({f: servers}, read_lanes(built, solver))

    return schedule
