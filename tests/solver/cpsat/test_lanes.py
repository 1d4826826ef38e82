"""The lane model alone: a share of jobs on fixed servers, each card holding one job at a time."""

from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.solver.cpsat.lanes import build_lane_model, read_lanes
from ftopt.solver.problem.queue import JobOption
from tests.properties.support import exercised, reached
from tests.solver.queue_lanes_case import LONG, URGENT, case, narrowest
from tests.strategies import CATALOGUE


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


def _one_lane_fits(jobs: list[tuple[int, int, int]]) -> bool:
    """Whether some order of (release, deadline, minutes) jobs, each as early as it may start, fits
    one card: left-shifted schedules are dominant on one machine, so trying every order decides it."""
    for order in itertools.permutations(jobs):
        end = 0
        for release, deadline, minutes in order:
            end = max(end, release) + minutes
            if end > deadline:
                break
        else:
            return True
    return False


def _brute_force(jobs: list[tuple[int, int, int]], cards: int) -> bool:
    """Whether the jobs fit `cards` cards: some assignment of jobs to cards that each card fits."""
    for assignment in itertools.product(range(cards), repeat=len(jobs)):
        if all(
            _one_lane_fits([j for j, c in zip(jobs, assignment, strict=True) if c == card])
            for card in range(cards)
        ):
            return True
    return False


_JOB = st.tuples(st.integers(0, 20), st.integers(1, 30), st.integers(1, 15)).map(
    lambda t: (
        t[0],
        t[0] + max(t[1], t[2]),
        t[2],
    )  # (release, deadline, minutes): the job fits its window alone
)


@exercised(minimum=10)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(jobs=st.lists(_JOB, min_size=2, max_size=5))
def test_the_lane_model_schedules_exactly_the_shares_some_schedule_fits(
    jobs: list[tuple[int, int, int]],
) -> None:
    qp, build = narrowest(CATALOGUE)
    mode = qp.options[0][0].mode
    options = [[JobOption(mode, build, 1, minutes)] for _, _, minutes in jobs]
    windows = [(release, deadline) for release, deadline, _ in jobs]
    share = replace(qp, jobs=[1] * len(jobs), windows=windows, options=options)
    _, status = _solve(build_lane_model(share, build, 1, share.jobs).model)
    fits = _brute_force(jobs, qp.data.builds[build].gpu_count)
    assert status == (cp_model.OPTIMAL if fits else cp_model.INFEASIBLE)
    if not fits:
        reached("a share no schedule fits")  # the infeasible side is the one the generator rarely hits
