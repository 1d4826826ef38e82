"""The lane model alone: a share of jobs on fixed servers, each card holding one job at a time."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.solver.cpsat.lanes import build_lane_model, read_lanes
from tests.solver.queue_lanes_case import LONG, URGENT, case


def _solve(model: cp_model.CpModel) -> tuple[cp_model.CpSolver, int]:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 10
    solver.parameters.num_workers = 2
    return solver, solver.solve(model)


def test_the_lane_model_finds_the_schedule_that_starting_first_misses(catalogue: Catalogue) -> None:
    qp, build = case(catalogue)
    built = build_lane_model(qp, build, 1, qp.jobs)
    solver, status = _solve(built.model)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    placed = read_lanes(built, solver)
    assert sorted((j.run, j.job) for j, _, _ in placed) == sorted(
        (run, n) for run, count in enumerate(qp.jobs) for n in range(1, count + 1)
    )
    held: dict[int, list[tuple[int, int]]] = {}
    for job, server, first in placed:
        early, late = qp.windows[job.run]
        end = job.start + job.option.minutes
        assert server == 0 and early <= job.start and end <= late
        for a, b in held.get(first, []):
            assert end <= a or b <= job.start, "two jobs on one card at once"
        held.setdefault(first, []).append((job.start, end))
    # the only way: on each card the urgent job from 10 to 40, then a long one
    for spans in held.values():
        (urgent, long_) = sorted(spans)
        assert urgent == (10, 10 + URGENT) and long_[0] >= 40 and long_[1] - long_[0] == LONG


def test_the_lane_model_proves_a_share_that_cannot_fit(catalogue: Catalogue) -> None:
    qp, build = case(catalogue, long_ends=60)  # the urgent jobs end at 40: no long job ends by 60
    _, status = _solve(build_lane_model(qp, build, 1, qp.jobs).model)
    assert status == cp_model.INFEASIBLE
