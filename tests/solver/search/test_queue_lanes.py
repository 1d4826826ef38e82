"""The relaxation's fleet scheduled on the lane model where list scheduling leaves a job out."""

from __future__ import annotations

import time

import pytest

from ftopt.model.hardware import Catalogue
from ftopt.solver.cpsat.lanes import build_lane_model, place_count
from ftopt.solver.search import queue_lanes
from ftopt.solver.search.queue_greedy import schedule_split
from ftopt.solver.search.queue_lanes import lane_plan
from ftopt.solver.solve import SolveSettings
from tests.solver.queue_lanes_case import case


def test_the_fleet_list_scheduling_cannot_fill_is_scheduled_on_lanes(catalogue: Catalogue) -> None:
    qp, build = case(catalogue)
    split = {(run, build): count for run, count in enumerate(qp.jobs)}
    assert schedule_split(qp, {build: 1}, split) is None  # starting first: the urgent jobs miss 40
    plan = lane_plan(qp, {build: 1}, [split], SolveSettings(workers=2), time.perf_counter() + 10)
    assert plan is not None
    assert plan.fleet == {build: 1}
    assert sorted((j.run, j.job) for j, _, _ in plan.jobs) == [(0, n) for n in range(1, qp.jobs[0] + 1)] + [
        (1, n) for n in range(1, qp.jobs[1] + 1)
    ]
    assert all(
        qp.windows[j.run][0] <= j.start and j.start + j.option.minutes <= qp.windows[j.run][1]
        for j, _, _ in plan.jobs
    )


def test_no_plan_when_the_time_is_already_spent(catalogue: Catalogue) -> None:
    qp, build = case(catalogue)
    split = {(run, build): count for run, count in enumerate(qp.jobs)}
    assert lane_plan(qp, {build: 1}, [split], SolveSettings(workers=2), time.perf_counter()) is None


def test_a_share_past_the_size_cap_is_left_to_the_queue_model(
    catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    qp, build = case(catalogue)
    split = {(run, build): count for run, count in enumerate(qp.jobs)}
    places = place_count(qp, build, 1, qp.jobs)
    assert places == len([p for _, _, ps in build_lane_model(qp, build, 1, qp.jobs).jobs for p in ps])
    monkeypatch.setattr(queue_lanes, "MAX_PLACES", places - 1)
    assert lane_plan(qp, {build: 1}, [split], SolveSettings(workers=2), time.perf_counter() + 10) is None
    monkeypatch.setattr(queue_lanes, "MAX_PLACES", places)
    assert lane_plan(qp, {build: 1}, [split], SolveSettings(workers=2), time.perf_counter() + 10) is not None
