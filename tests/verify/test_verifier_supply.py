"""Stock and lead times: a plan that buys past a part's stock, or a part that arrives too late, fails."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import supply, verify_plan
from tests.verify.conftest import rules_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_unlimited_plan_breaks_stock_and_lead_time_when_they_apply() -> None:
    full = load_catalogue()
    limited = load_catalogue(prices=EXAMPLES / "price-lists" / "stock-limited.yaml")
    workload = load_workload(EXAMPLES / "stock-limited.yaml", full)
    plan = solve(workload, full, SolveSettings(time_limit=20, workers=2)).plan_or_raise()  # 4 RTX PRO 6000
    assert verify_plan(plan, workload, full) == []
    found = [str(v) for v in verify_plan(plan, workload, limited) if v.rule == "stock"]
    assert found == ["stock: part rtx-pro-6000-se: 4 units over all servers, 2 in stock"]
    assert "stock" in rules_of(supply, plan, workload, limited)  # the module, alone
    h100 = plan.model_copy(
        update={"servers": [s.model_copy(update={"gpu": "h100-nvl"}) for s in plan.servers]}
    )  # a hand-edited card: the lead-time rule names it, whatever else breaks
    late = [str(v) for v in verify_plan(h100, workload, limited) if v.rule == "lead-time"]
    assert late == [
        f"lead-time: server {s.id}: h100-nvl arrives in 12 weeks, the site needs delivery within 6"
        for s in plan.servers
    ]
