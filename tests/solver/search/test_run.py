"""The search's solver settings: the user's workers and limit, wall-clock or deterministic."""

from __future__ import annotations

from ftopt.solver.search.run import SolveSettings, make_solver, proven_cents


def test_a_wall_clock_limit_by_default() -> None:
    params = make_solver(SolveSettings(workers=4), 7.5).parameters
    assert params.num_workers == 4 and params.max_time_in_seconds == 7.5
    assert params.random_seed == 0


def test_a_deterministic_search_is_limited_in_work_not_seconds() -> None:
    params = make_solver(SolveSettings(workers=1, deterministic=True), 3.0).parameters
    assert params.num_workers == 1 and params.max_deterministic_time == 3.0
    assert params.interleave_search


def test_a_float_bound_a_hair_below_a_cent_proves_that_cent_and_no_more() -> None:
    assert proven_cents(8183999.999999999) == 8184000
    assert proven_cents(8184000.0) == 8184000
    assert proven_cents(8183999.5) == 8184000
    assert proven_cents(8184000.001) == 8184001
