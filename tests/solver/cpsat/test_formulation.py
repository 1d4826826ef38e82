"""The whole formulation on a tiny bid: its optimum is the price of the plan `solve` returns, and
the run literals switch the placement rule."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL, catalogue, problem


def _solved(model: cp_model.CpModel) -> tuple[str, float]:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 20
    status = solver.solve(model)
    return solver.status_name(status), solver.objective_value


def test_the_optimum_is_the_plans_price() -> None:
    built = build_formulation(problem(SMALL))
    built.enforce_all()
    status, cents = _solved(built.model)
    plan = solve(workload_from(SMALL), catalogue(), SolveSettings(time_limit=20, workers=1)).plan_or_raise()
    assert status == "OPTIMAL"
    assert round(cents) == round(plan.total_price * 100)


def test_without_its_literals_nothing_need_be_placed() -> None:
    built = build_formulation(problem(SMALL))
    for literal in (*built.place_run.values(), built.server_limit):
        built.model.add(literal == 0)
    assert _solved(built.model) == ("OPTIMAL", 0.0)
