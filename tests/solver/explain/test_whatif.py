"""What-if: the eased workloads tried, one rule each, and savings only when a re-solve proves them."""

from __future__ import annotations

from ftopt.model.result import Result
from ftopt.model.workload import Workload
from ftopt.solver.explain.whatif import relaxations, savings
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.tiny import SMALL, catalogue, problem


def test_each_relaxation_eases_one_rule() -> None:
    data = problem(SMALL, max_servers=1)
    eased = dict(relaxations(data))
    assert "no server limit" in eased
    assert eased["no server limit"].site.max_servers is None
    assert eased["no server limit"].runs == data.workload.runs
    assert all(w != data.workload for w in eased.values())


def test_a_saving_is_reported_only_when_the_eased_plan_is_cheaper() -> None:
    data = problem(SMALL, max_servers=1)
    plan = solve(data.workload, catalogue(), SolveSettings(time_limit=20, workers=1)).plan_or_raise()

    def same(_: Workload) -> Result:
        return Result(status=plan.status, plan=plan)

    def cheaper(_: Workload) -> Result:
        return Result(
            status=plan.status, plan=plan.model_copy(update={"total_price": plan.total_price - 100})
        )

    assert savings(data, plan, same) == []
    found = savings(data, plan, cheaper)
    assert found and all(f.figures["saved"] == 100 for f in found)
