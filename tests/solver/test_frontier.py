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


def test_the_refusal_names_the_hours_the_fastest_point_is_drawn_at() -> None:
    """examples/full-70b-offload.yaml: the frontier's fastest point is 8 × H200 NVL at 19.39 h at P90
    (bridged cards); the refusal below it named 20.75 h, the mode's slowest placement in any layout.
    It now names the figure a plan of the fastest mode states, the one the frontier draws."""
    from pathlib import Path

    from ftopt.catalogue import load_catalogue
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.frontier import frontier
    from ftopt.solver.solve import SolveSettings

    catalogue = load_catalogue()
    path = Path(__file__).resolve().parents[2] / "examples" / "full-70b-offload.yaml"
    out = frontier(load_workload(path, catalogue), catalogue, SolveSettings(time_limit=10, workers=2))
    assert out.stopped == "infeasible" and out.points
    fastest = out.points[0].makespan_hours
    assert f"the fastest ftopt can reach is {fastest:,.4g} h at P90" in out.reason


def _fifty_runs():
    """examples/deadline.yaml with its 8B QLoRA run copied into 50 runs that each train tokens."""
    from pathlib import Path

    from ftopt.catalogue import load_catalogue
    from ftopt.reading.workload_file import load_workload

    catalogue = load_catalogue()
    workload = load_workload(Path("examples/deadline.yaml"), catalogue)
    small = workload.runs[1]
    runs = tuple(
        small.model_copy(update={"name": f"r{i}", "train_tokens": 10**7 * (1 + i % 5)}) for i in range(50)
    )
    return workload.model_copy(update={"runs": runs}), catalogue


def test_the_frontier_shares_one_budget_across_its_points_and_says_which_it_proved() -> None:
    """`frontier --time-limit 60` ran 622 s: the limit was each point's. Now the whole frontier has it:
    each solve is allowed what is left over the points still wanted, and the shares add up to at most
    the budget; each point says whether it is proven (optimal at gap 0)."""
    from ftopt.solver.frontier import SHARING, frontier
    from ftopt.solver.solve import SolveSettings

    workload, catalogue = _fifty_runs()
    found = frontier(workload, catalogue, SolveSettings(time_limit=4, workers=1), points=5)
    assert found.points and found.budget_s == 4 and found.sharing == SHARING
    shares = [p.budget_s for p in found.points if not p.reused]
    assert shares and all(0 < s <= 4 for s in shares)
    assert sum(shares) <= 4 + 1e-9
    assert shares[-1] <= 4 / 5 + 1e-9 or len(shares) == 1  # the first solve had a fifth of it
    for p in found.points:
        assert p.proven == (p.status == Status.OPTIMAL and not p.gap)
    assert found.proven_points == sum(p.proven for p in found.points)


def test_a_point_is_called_proven_only_at_gap_zero() -> None:
    from ftopt.solver.frontier import proof_words

    proven, loose = _point(10, 300), FrontierPoint(20, 200, None, Status.FEASIBLE, 0.031, PLAN, 0.0)
    assert proof_words([proven, proven]) == "each the proven cheapest for its deadline"
    mixed = proof_words([proven, loose])
    assert mixed.startswith("1 of 2 proven") and "within 3.1% of the lower bound" in mixed
    assert "proven" not in proof_words([loose])


def test_the_callers_plan_is_the_first_point_and_no_point_for_its_deadline_is_dearer() -> None:
    """The HTML quote's cheapest bid cost USD 750,952 beside its own plan's 748,544: the frontier
    re-solved the workload's own deadlines in a smaller share of time. The plan is now the first point."""
    from pathlib import Path

    from ftopt.catalogue import load_catalogue
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.frontier import frontier
    from ftopt.solver.solve import SolveSettings, solve

    catalogue = load_catalogue()
    workload = load_workload(Path("examples/deadline.yaml"), catalogue)
    settings = SolveSettings(time_limit=10, workers=1, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    cheapest = frontier(workload, catalogue, settings, points=3, first=plan).cheapest()
    assert cheapest.total_price == plan.total_price and cheapest.reused
