"""Solving helpers shared by the property tests: one settings object, infeasible as `None`.

Instances drawn by tests.strategies are small, so ten seconds on two workers always suffices;
`NoPlanInTimeError` is therefore not caught: at this size it is a finding, not an outcome.

`exercised(minimum)` with `reached()` makes each property test count the examples that got to its
assertion. Under the default profile (25 derandomised examples) they reached 8 to 21 on
2026-12-03; each minimum is about two thirds of its test's count, so a strategy or solver change
that starves a property fails the test instead of passing it vacuously.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from hypothesis import event

from ftopt.errors import InfeasibleError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from tests.strategies import CATALOGUE

SETTINGS = SolveSettings(time_limit=10, workers=2)

_Test = TypeVar("_Test", bound=Callable[..., Any])
_reached: list[int] = [0]


def reached(what: str = "property checked") -> None:
    """Count an example that reached the property's own assertion (and tell hypothesis's
    statistics): the examples that returned early (no plan, an unproven price) are not counted."""
    _reached[0] += 1
    event(what)


def exercised(minimum: int) -> Callable[[_Test], _Test]:
    """Fail a property test whose examples reached its assertion fewer than `minimum` times.

    Why: a property that returns early on most inputs (infeasible bids, prices not proven) passes
    while checking almost nothing. Put it outside `@given`, which runs every example in one call;
    the body calls `reached()` where the property is asserted."""

    def wrap(test: _Test) -> _Test:
        @functools.wraps(test)
        def run(*args: Any, **kwargs: Any) -> None:
            _reached[0] = 0
            test(*args, **kwargs)
            assert _reached[0] >= minimum, (
                f"only {_reached[0]} examples reached the property (at least {minimum} wanted): "
                "the strategy draws too few inputs the property applies to"
            )

        return cast(_Test, run)

    return wrap


DETERMINISTIC = SolveSettings(time_limit=10, workers=2, deterministic=True)


def outcome(
    workload: Workload, catalogue: Catalogue = CATALOGUE, settings: SolveSettings = SETTINGS
) -> Plan | None:
    """The plan, or None when the solver proves that none exists."""
    try:
        plan = solve(workload, catalogue, settings).plan_or_raise()
    except InfeasibleError:
        event("infeasible")
        return None
    event(f"plan: {plan.status.value}")
    return plan


def proven(plan: Plan | None) -> bool:
    """Whether a price may be compared: a plan proven optimal (recorded as an event otherwise)."""
    if plan is None:
        return False
    if plan.status != Status.OPTIMAL:
        event("not proven optimal: price not compared")
        return False
    return True


def price_cents(plan: Plan) -> int:
    """The plan's total price in integer cents."""
    return round(plan.total_price * 100)


def describe(plan: Plan | None) -> str:
    """A short text of a plan for failure messages."""
    if plan is None:
        return "infeasible"
    servers = ", ".join(
        f"{s.id}:{s.chassis}/{s.gpu_count}x{s.gpu}/{s.ram_gb}GB/{s.nvme_tb}TB" for s in plan.servers
    )
    return f"{plan.status.value} {plan.total_price:,.2f} [{servers}]"
