"""The price–time frontier's pieces: dominance, deadlines applied to runs with tokens."""

from __future__ import annotations

from ftopt.model.plan import Plan, Status
from ftopt.solver.frontier import FrontierPoint, has_train_tokens, pareto, with_deadline
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL

PLAN = Plan(status=Status.OPTIMAL, currency="USD", total_price=0, bound=0, gap=0, wall_seconds=0)


def _point(hours: float, price: float) -> FrontierPoint:
    return FrontierPoint(hours, price, None, Status.OPTIMAL, 0.0, PLAN, 0.0)


def test_pareto_keeps_only_points_no_other_beats_fastest_first() -> None:
    a, b, c, d = _point(10, 300), _point(20, 200), _point(20, 250), _point(30, 200)
    assert pareto([d, c, b, a]) == [a, b]


def test_deadlines_go_only_to_runs_that_train_tokens() -> None:
    workload = workload_from(SMALL)
    assert not has_train_tokens(workload)
    run = workload.runs[0].model_copy(update={"train_tokens": 10**6, "deadline_hours": 5.0})
    mixed = workload.model_copy(update={"runs": (run, workload.runs[1])})
    due = with_deadline(mixed, 8.0)
    assert has_train_tokens(mixed)
    assert [r.deadline_hours for r in due.runs] == [5.0, None]
    assert with_deadline(mixed, 2.0).runs[0].deadline_hours == 2.0


def test_no_solve_starts_with_less_of_the_budget_left_than_its_minimum() -> None:
    from pathlib import Path

    from ftopt.catalogue import load_catalogue
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.frontier import MIN_SOLVE_S, frontier
    from ftopt.solver.solve import SolveSettings

    catalogue = load_catalogue()
    workload = load_workload(Path("examples/deadline.yaml"), catalogue)
    found = frontier(workload, catalogue, SolveSettings(time_limit=20, workers=1), budget_s=MIN_SOLVE_S / 2)
    assert (found.stopped, found.solves, found.points) == ("budget", 0, [])
