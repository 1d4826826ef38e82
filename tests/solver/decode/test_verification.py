"""The verifier's check of a returned plan: a rejected plan is ftopt's bug, named, never an answer."""

from __future__ import annotations

import pytest

from ftopt.errors import UnverifiedPlanError
from ftopt.solver.decode.verification import verify
from ftopt.verify.violation import Violation
from tests.solver.decode.figures import timed_plan
from tests.solver.tiny import catalogue


def test_a_plan_the_verifier_rejects_raises_and_names_what_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    import ftopt.verify

    data, plan = timed_plan()
    verify(plan, data.workload, catalogue())  # the greedy's plan holds
    broken = [Violation("host-ram", "server s1", "768 GB", "≥ 2256 GB")]
    monkeypatch.setattr(ftopt.verify, "verify_plan", lambda *args: broken)
    with pytest.raises(UnverifiedPlanError, match=r"the queue plan fails verification: .*host-ram"):
        verify(plan, data.workload, catalogue(), "the queue plan")
