"""The last steps of every returned plan: rent priced, supply findings added, the verifier's check."""

from __future__ import annotations

import pytest

from ftopt.errors import UnverifiedPlanError
from ftopt.model.plan import Status
from ftopt.solver.decode.finish import verify, with_rent, with_supply
from ftopt.solver.decode.plan_builder import build_plan
from ftopt.solver.search.greedy import greedy_plan
from ftopt.verify.violation import Violation
from tests.solver.tiny import SMALL, catalogue, problem


def _plan():
    data = problem(SMALL)
    servers = greedy_plan(data)
    assert servers is not None
    return data, build_plan(data, servers, Status.FEASIBLE, 0.0, 1.0, "tiny")


def test_supply_findings_join_the_binding_rules_and_keep_those_there() -> None:
    data, plan = _plan()
    kept = plan.model_copy(update={"binding": plan.binding[:1]})
    supplied = with_supply(kept, data.workload, catalogue())
    assert supplied.binding[: len(kept.binding)] == kept.binding
    assert with_rent(plan).model_copy(update={"rent": plan.rent}) == plan


def test_a_plan_the_verifier_rejects_raises_and_names_what_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    import ftopt.verify

    data, plan = _plan()
    verify(plan, data.workload, catalogue())  # the greedy's plan holds
    broken = [Violation("host-ram", "server s1", "768 GB", "≥ 2256 GB")]
    monkeypatch.setattr(ftopt.verify, "verify_plan", lambda *args: broken)
    with pytest.raises(UnverifiedPlanError, match=r"the queue plan fails verification: .*host-ram"):
        verify(plan, data.workload, catalogue(), "the queue plan")
