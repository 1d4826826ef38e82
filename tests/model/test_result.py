"""A solve's result: the plan or the exception style, with the reasons in words."""

from __future__ import annotations

import pytest

from ftopt.errors import InfeasibleError, NoPlanInTimeError
from ftopt.model.findings import FindingKind, finding
from ftopt.model.plan import Plan, Status
from ftopt.model.result import Result


def test_a_plan_is_returned_as_it_is() -> None:
    plan = Plan(status=Status.OPTIMAL, currency="USD", total_price=1, bound=1, gap=0, wall_seconds=0)
    result = Result(status=Status.OPTIMAL, plan=plan)
    assert result.has_plan and result.plan_or_raise() is plan


def test_no_plan_raises_with_the_reasons() -> None:
    reason = finding(FindingKind.NO_PLAN, "time-limit", seconds=5)
    with pytest.raises(NoPlanInTimeError, match="within the time limit of 5 s"):
        Result(status=Status.NO_PLAN_IN_TIME, reasons=(reason,)).plan_or_raise()
    with pytest.raises(InfeasibleError) as caught:
        Result(
            status=Status.INFEASIBLE, reasons=(finding(FindingKind.NO_CARD, "hardware.gpus"),)
        ).plan_or_raise()
    assert caught.value.reasons == ["no card in the catalogue is allowed"]
