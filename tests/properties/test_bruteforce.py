"""The CP-SAT optimum equals a brute force's on tiny bids, to the cent, feasible or not (issue §4).

The brute force (tests/bruteforce.py) enumerates every grouping of at most four copies into
servers, every mode per copy and every build, RAM and disk tier per server, from the same builds
and modes the solver is given but none of its constraints.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, note

from tests.bruteforce import brute_force, instance
from tests.properties.support import describe, exercised, outcome, price_cents, proven, reached
from tests.strategies import CATALOGUE, dump, tiny_workload_dicts, to_whole_card_workload


@exercised(minimum=8)
@given(tiny_workload_dicts())
def test_bruteforce_optimum_equals_the_solver_optimum(data: dict[str, Any]) -> None:
    """Equal prices when the solver proves optimality; otherwise the plan's price is no lower, and
    its proven bound no higher, than the true optimum."""
    note(dump(data))
    workload = to_whole_card_workload(data)  # the brute force knows no GPU slices
    reference = brute_force(instance(workload, CATALOGUE))
    plan = outcome(workload)
    note(f"brute force: {reference}\nsolver: {describe(plan)}, bound {plan.bound if plan else None}")
    if reference.cents is None:
        assert plan is None, "the solver found a plan the brute force says cannot exist"
        return
    assert plan is not None, f"the brute force found a plan of {reference.cents / 100:,.2f}, the solver none"
    assert plan.bound is not None and round(plan.bound * 100) <= reference.cents, "the bound is not a bound"
    reached()
    if proven(plan):
        assert price_cents(plan) == reference.cents
    else:
        assert price_cents(plan) >= reference.cents
        dearer = price_cents(plan) > reference.cents
        event("unproven plan is dearer than the optimum" if dearer else "unproven plan is optimal")
