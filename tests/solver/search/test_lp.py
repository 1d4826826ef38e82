"""The LP relaxation's bound: never above the proven optimum, so it can prune nothing optimal."""

from __future__ import annotations

import pytest
from ortools.sat.python import cp_model

from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.search import lp
from ftopt.solver.search.lp import MARGIN_CENTS, lp_bound, price_floor, slot_floor
from tests.solver.tiny import HEAVY, MULTINODE, SMALL, problem


def _optimum_cents(text: str) -> float:
    built = build_formulation(problem(text))
    built.enforce_all()
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    assert solver.solve(built.model) == cp_model.OPTIMAL
    return solver.objective_value


def test_the_bound_is_at_most_the_optimum_and_keeps_the_optimal_configurations() -> None:
    for text in (SMALL, HEAVY):
        bound = lp_bound(problem(text))
        assert bound is not None
        optimum = _optimum_cents(text)
        assert 0 < bound.bound <= optimum + MARGIN_CENTS
        assert len(bound.config_bounds) == len(problem(text).configs)
        assert all(b >= bound.bound - MARGIN_CENTS for b in bound.config_bounds)


def test_keep_drops_configurations_dearer_than_the_price_in_hand() -> None:
    bound = lp_bound(problem(HEAVY))
    assert bound is not None and bound.config_bounds
    assert bound.keep(min(bound.config_bounds) - 10 * MARGIN_CENTS) == []
    assert len(bound.keep(max(bound.config_bounds))) == len(bound.config_bounds)


def test_a_run_only_multinode_modes_hold_has_a_bound_at_most_the_optimum() -> None:
    """Its copies go to multi-node columns: without them the relaxation was infeasible (no bound)."""
    data = problem(MULTINODE)
    assert data.multinode and not data.pool  # no single server holds a copy
    bound = lp_bound(data)
    assert bound is not None
    cheapest = min(round(o.price * 100) for o in data.multinode)  # one copy's servers, no fabric
    assert cheapest - MARGIN_CENTS <= bound.bound <= _optimum_cents(MULTINODE) + MARGIN_CENTS


def test_the_lp_floor_is_taken_for_big_models_only(monkeypatch: pytest.MonkeyPatch) -> None:
    data = problem(HEAVY)
    slots = max(0.0, slot_floor(data) - MARGIN_CENTS)
    assert price_floor(data, 10.0) == slots  # a small model: CP-SAT proves it, no LP needed
    monkeypatch.setattr(lp, "BIG_MODEL", 1)
    floor = price_floor(data, 10.0)
    assert slots < floor <= _optimum_cents(HEAVY)  # the LP, tighter here than the slot floor
    # No time left for GLOP: the GPU-slot floor, which needs no solver, still bounds the price.
    assert price_floor(data, 0.0) == slots > 0


def test_the_slot_floor_is_positive_and_at_most_the_optimum() -> None:
    """Every copy pays at least its GPUs at the cheapest price per GPU slot it may take (issue 38: the
    bound that 5,000 distinct runs have when the build leaves no time for the LP)."""
    for text in (SMALL, HEAVY, MULTINODE):
        floor = slot_floor(problem(text))
        assert 0 < floor <= _optimum_cents(text) + MARGIN_CENTS, text
