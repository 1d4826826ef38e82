"""`solve` end to end on a tiny bid: a verified optimal plan, and the outcome for an impossible one."""

from __future__ import annotations

from collections import Counter

from ftopt.model.plan import Status
from ftopt.solver.solve import SolveSettings, differences, solve
from tests.solver.conftest import workload_from
from tests.solver.explain.test_reasons import TOO_BIG
from tests.solver.tiny import SMALL, catalogue


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
