"""A queue plan's alternatives: the next cheapest queue plans whose servers differ, each verified."""

from __future__ import annotations

from ftopt.model.plan import Status
from ftopt.solver.search.queue_alternatives import server_groups
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.solver.conftest import workload_from
from tests.solver.test_queue import MONTH
from tests.solver.tiny import catalogue


def test_a_queue_plan_gets_alternatives_like_a_peak_plan() -> None:
    """`--alternatives` was refused for queue bids ("no alternatives yet"). Each alternative is a queue
    plan of its own: dearer in order, another server set, every job within the horizon, verified
    against the queue bid, with its own search's status and gap."""
    workload = workload_from(MONTH)
    settings = SolveSettings(time_limit=20, workers=2, alternatives=2)
    plan = solve(workload, catalogue(), settings).plan_or_raise()
    assert [a.rank for a in plan.alternatives] == [1, 2]
    prices = [plan.total_price, *(a.plan.total_price for a in plan.alternatives)]
    assert prices == sorted(prices) and prices[1] > prices[0]
    groups = [server_groups(plan), *(server_groups(a.plan) for a in plan.alternatives)]
    assert all(groups[i] != groups[j] for i in range(len(groups)) for j in range(i))
    for alt in plan.alternatives:
        assert alt.plan.horizon_hours == 720 and len(alt.plan.schedule) == 16
        assert verify_plan(alt.plan, workload, catalogue()) == []
        assert alt.differs and all(line[0] in "+−" for line in alt.differs)
        assert alt.plan.gap is not None and (alt.plan.status == Status.OPTIMAL) == (alt.plan.gap == 0)
    assert plan.budget is not None and plan.budget.shares["alternatives"] > 0
