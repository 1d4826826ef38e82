"""Owned servers: a bought server marked owned, or an owned one billed, fails verification."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import inventory, verify_plan
from tests.verify.conftest import rules_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_owned_marks_are_checked_against_the_inventory() -> None:
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "owned-servers.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert verify_plan(plan, workload, catalogue) == []
    bought = next(s for s in plan.servers if not s.owned)
    free = bought.model_copy(update={"owned": True})
    claimed = plan.model_copy(update={"servers": [free if s is bought else s for s in plan.servers]})
    faults = [str(v) for v in verify_plan(claimed, workload, catalogue) if v.rule == "owned"]
    # no entry has its parts, or (when a bought server copies an owned one's parts) more than owned
    assert len(faults) == 1 and faults[0].startswith("owned: server ") and "marked owned, " in faults[0]
    assert faults[0].endswith(("no inventory entry has these parts", "more than the inventory owns"))
    assert rules_of(inventory, claimed, workload, catalogue) == {"owned"}  # the module, alone
    owned = next(s for s in plan.servers if s.owned)
    billed = owned.model_copy(update={"owned": False})
    charged = plan.model_copy(update={"servers": [billed if s is owned else s for s in plan.servers]})
    assert "bill-of-materials" in {v.rule for v in verify_plan(charged, workload, catalogue)}
    twice = plan.model_copy(update={"servers": [*plan.servers, owned.model_copy(update={"id": "s9"})]})
    faults = [str(v) for v in verify_plan(twice, workload, catalogue) if v.rule == "owned"]
    assert faults == ["owned: server s9: marked owned, more than the inventory owns"]
