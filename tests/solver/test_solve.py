"""`solve` end to end on a tiny bid: a verified optimal plan, and the outcome for an impossible one."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import ftopt.solver.solve as solve_module
from ftopt.model.plan import Status
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, differences, solve
from tests.solver.conftest import workload_from
from tests.solver.explain.test_reasons import TOO_BIG
from tests.solver.tiny import SMALL, catalogue, problem

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_bid_is_solved_optimal() -> None:
    result = solve(workload_from(SMALL), catalogue(), SolveSettings(time_limit=20, workers=1))
    assert result.status == Status.OPTIMAL and result.plan is not None
    assert len(result.plan.assignments) == 5


def test_an_impossible_bid_is_infeasible_with_its_reason() -> None:
    result = solve(workload_from(TOO_BIG), catalogue(), SolveSettings(time_limit=20, workers=1))
    assert result.status == Status.INFEASIBLE and result.plan is None
    assert [r.subject for r in result.reasons] == ["huge"]


def test_differences_name_added_and_dropped_servers() -> None:
    four = ("gpu-server-4", "h200-nvl", 4, 1024, 7680, 0)
    eight = ("gpu-server-8", "h200-nvl", 8, 2048, 15360, 8)
    assert differences(Counter({four: 1}), Counter({four: 1})) == []
    assert differences(Counter({four: 2}), Counter({four: 1, eight: 1})) == [
        "+1 × gpu-server-8 with 8 × h200-nvl, 2,048 GB RAM, 15.36 TB NVMe, 8 NICs",
        "−1 × gpu-server-4 with 4 × h200-nvl, 1,024 GB RAM, 7.68 TB NVMe",
    ]


def test_what_if_is_skipped_with_a_note_when_the_limit_is_spent() -> None:
    data = problem(SMALL, max_servers=2)
    settings = SolveSettings(time_limit=20, workers=1, what_if=True)
    plan = solve(data.workload, catalogue(), SolveSettings(time_limit=20, workers=1)).plan_or_raise()
    spent = solve_module._explain_optimum(
        data, plan, settings, True, solve_module._Window(1.0, time.perf_counter())
    )
    assert spent.savings == []
    assert [n.text for n in spent.notes if n.subject == "skipped"] == [
        "the what-if savings skipped: the time limit of 20 s was spent on the plan itself"
    ]
    roomy = solve_module._explain_optimum(
        data, plan, settings, True, solve_module._Window(1.0, time.perf_counter() + 20)
    )
    assert not [n for n in roomy.notes if n.subject == "skipped"]


def test_a_hard_bid_keeps_its_extras_within_the_time_limit() -> None:
    """The search takes its share of the limit and the alternatives what is left, or are skipped with
    a note; the whole solve ends near the limit (loosely: the verifier and decoding may overrun it
    on a loaded machine; benchmarks/robustness.py measures the process)."""
    workload = load_workload(ROOT / "benchmarks" / "instances" / "multinode-01.yaml", catalogue())
    limit = 4.0
    result = solve(workload, catalogue(), SolveSettings(time_limit=limit, workers=2, alternatives=2))
    assert result.plan is not None
    assert result.timings.total < 1.5 * limit
    skipped = [n.text for n in result.plan.notes if n.subject == "skipped"]
    # none found: either the limit went on the plan, or on a search that found none in time
    assert result.plan.alternatives or skipped in (
        ["the alternatives skipped: the time limit of 4 s was spent on the plan itself"],
        ["the alternatives skipped: the time limit of 4 s was spent before the search found them"],
    )


def test_alternatives_the_search_ran_out_of_time_for_are_named_in_a_note(monkeypatch) -> None:
    """A quote that asked for two alternatives and shows one says why the other is missing: the time
    ran out (a note), or no other server set exists (no note: there is nothing to skip)."""
    real = solve_module.next_cheapest

    def cut_short(timed_out: bool):
        def search(*args, **kwargs):
            found, _ = real(*args, **kwargs)
            return found[:1], timed_out

        return search

    data = problem(SMALL)
    settings = SolveSettings(time_limit=20, workers=1, alternatives=2)
    monkeypatch.setattr(solve_module, "next_cheapest", cut_short(True))
    plan = solve(data.workload, catalogue(), settings).plan_or_raise()
    assert len(plan.alternatives) == 1
    assert [n.text for n in plan.notes if n.subject == "skipped"] == [
        "alternatives 2 to 2 skipped: the time limit of 20 s was spent before the search found them"
    ]
    monkeypatch.setattr(solve_module, "next_cheapest", cut_short(False))
    plan = solve(data.workload, catalogue(), settings).plan_or_raise()
    assert len(plan.alternatives) == 1 and not [n for n in plan.notes if n.subject == "skipped"]


def test_a_fifty_run_bid_records_how_its_time_limit_was_shared() -> None:
    """`--time-limit` bounds the whole solve: the plan says what the search, the what-if re-solves
    and the alternatives were each allowed, and the shares fit inside the limit (wall time is
    measured in benchmarks/, not here)."""
    from tests.solver.test_frontier import _fifty_runs

    workload, catalogue_ = _fifty_runs()
    settings = SolveSettings(time_limit=2, workers=1, what_if=True, alternatives=1)
    plan = solve(workload, catalogue_, settings).plan_or_raise()
    budget = plan.budget
    assert budget is not None and budget.limit_s == 2
    assert 1.0 <= budget.shares["search"] <= 0.9 * 2 + 1e-9  # at least half, at most SEARCH_SHARE
    assert set(budget.shares) <= {"search", "what-if re-solves", "alternatives"}
    assert "alternatives" in budget.shares  # allowed its share, or 0 and a note that it was skipped
    skipped = {n.figures.get("what") for n in plan.notes if n.subject == "skipped"}
    assert (budget.shares["alternatives"] == 0) == ("the alternatives" in skipped)
    assert budget.sharing.startswith("one budget of 2 s for the whole solve: the search up to 1.8 s")
