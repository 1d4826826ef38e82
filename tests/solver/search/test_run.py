"""The search's solver settings: the user's workers and limit, wall-clock or deterministic."""

from __future__ import annotations

from ftopt.solver.search.run import SolveSettings, make_solver


def test_a_wall_clock_limit_by_default() -> None:
    params = make_solver(SolveSettings(workers=4), 7.5).parameters
    assert params.num_workers == 4 and params.max_time_in_seconds == 7.5
    assert params.random_seed == 0


def test_a_deterministic_search_is_limited_in_work_not_seconds() -> None:
    params = make_solver(SolveSettings(workers=1, deterministic=True), 3.0).parameters
    assert params.num_workers == 1 and params.max_deterministic_time == 3.0
    assert params.interleave_search
