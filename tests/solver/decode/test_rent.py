"""Buy or rent: a plan's training hours priced on the catalogue's clouds."""

from __future__ import annotations

from ftopt.solver.decode.rent import with_rent
from tests.solver.decode.figures import timed_plan
from tests.solver.tiny import catalogue


def test_a_plan_with_hours_is_priced_for_rent() -> None:
    _, plan = timed_plan()
    rented = with_rent(plan, catalogue())
    assert plan.rent is None and rented.rent is not None and rented.rent.cost > 0
    assert rented.model_copy(update={"rent": None}) == plan
