"""Properties of deadlines, the frontier and TCO on generated workloads (issue 12).

A deadline only removes training modes, so it can never make a bid cheaper; removing every deadline
(and the train_tokens that give hours) changes nothing about today's plan; each frontier point is
the optimum for a tighter deadline than the last, so its prices rise as its makespans fall; and a
plan's TCO is its price plus a non-negative energy cost. Deadlines are drawn as shares of the
no-deadline plan's makespan, so they bind about as often as not.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from ftopt.model.plan import Plan
from ftopt.solver.frontier import frontier
from tests.properties.support import SETTINGS, describe, exercised, outcome, price_cents, proven, reached
from tests.strategies import CATALOGUE, dump, to_workload, workload_dicts

TOKENS = (10**7, 10**8, 10**9)


@st.composite
def _timed(draw: st.DrawFn) -> dict[str, Any]:
    """A small workload whose runs (all or some) give train_tokens."""
    data = draw(workload_dicts(max_runs=2, max_concurrent=2))
    for run in data["runs"]:
        if draw(st.integers(0, 3)) > 0:
            run["train_tokens"] = draw(st.sampled_from(TOKENS))
    return data


def _with_deadlines(data: dict[str, Any], hours: float | None) -> dict[str, Any]:
    out = copy.deepcopy(data)
    for run in out["runs"]:
        if "train_tokens" in run and hours is not None:
            run["deadline_hours"] = hours
        else:
            run.pop("deadline_hours", None)
    return out


def _placement(plan: Plan) -> list[tuple[Any, ...]]:
    """What today's plan decides: servers and where each copy trains, without the new figures."""
    servers = [s.model_dump(exclude={"price"}) for s in plan.servers]
    copies = [
        (a.run, a.copy_, a.server, tuple(a.gpus), a.strategy, a.optimizer, a.offload)
        for a in plan.assignments
    ]
    return [tuple(sorted(str(s) for s in servers)), tuple(copies), plan.total_price]


@exercised(minimum=10)
@given(_timed())
def test_removing_every_deadline_gives_todays_plan(data: dict[str, Any]) -> None:
    note(dump(data))
    today = copy.deepcopy(data)
    for run in today["runs"]:
        run.pop("train_tokens", None)
    timed = outcome(to_workload(_with_deadlines(data, None)))
    plain = outcome(to_workload(today))
    note(f"timed: {describe(timed)}\nplain: {describe(plain)}")
    if plain is None:
        assert timed is None
        return
    assert timed is not None
    if proven(plain) and proven(timed):
        assert _placement(timed) == _placement(plain)
        assert timed.makespan_hours is not None or not any("train_tokens" in r for r in data["runs"])
        reached()


@exercised(minimum=8)
@given(_timed(), st.sampled_from((2.0, 1.0, 0.9, 0.6, 0.3)), st.sampled_from((1.0, 0.8, 0.5)))
def test_a_tighter_deadline_never_lowers_the_price(
    data: dict[str, Any], share: float, tighter: float
) -> None:
    note(dump(data))
    base = outcome(to_workload(data))
    if base is None or base.makespan_hours is None:
        return
    loose_hours = base.makespan_hours * share
    loose = outcome(to_workload(_with_deadlines(data, loose_hours)))
    tight = outcome(to_workload(_with_deadlines(data, loose_hours * tighter)))
    note(f"base {describe(base)}\nloose ({loose_hours:.3f} h): {describe(loose)}\ntight: {describe(tight)}")
    if loose is None:
        assert tight is None, "a looser deadline is infeasible where a tighter one is not"
        return
    # A looser deadline never raises the price: none at all is the loosest.
    if proven(base) and proven(loose):
        assert price_cents(base) <= price_cents(loose)
        reached()
    if tight is not None and proven(loose) and proven(tight):
        assert price_cents(loose) <= price_cents(tight)
        event("deadline binds" if price_cents(tight) > price_cents(base) else "deadline free")
    for plan in (loose, tight):
        if plan is not None and plan.makespan_hours is not None:
            assert plan.makespan_hours <= loose_hours * (1 + 1e-6)


@exercised(minimum=5)
@settings(max_examples=10)
@given(_timed())
def test_the_frontier_is_monotone(data: dict[str, Any]) -> None:
    note(dump(data))
    workload = to_workload(data)
    if not any(run.train_tokens for run in workload.runs):
        return
    found = frontier(workload, CATALOGUE, SETTINGS, points=5)
    note(" | ".join(f"{p.makespan_hours:.3f} h {p.total_price} {p.status}" for p in found.points))
    points = found.points
    reached()
    for a, b in itertools.pairwise(points):
        assert a.makespan_hours < b.makespan_hours
        if a.status == b.status == "optimal":
            assert a.total_price > b.total_price


@exercised(minimum=15)
@given(_timed(), st.sampled_from((0.08, 0.3, 1.0)))
def test_tco_is_at_least_the_price_and_the_tco_objective_minimises_it(
    data: dict[str, Any], kwh: float
) -> None:
    note(dump(data))
    by_price = outcome(to_workload({**data, "energy": {"price_per_kwh": kwh}}))
    by_tco = outcome(to_workload({**data, "objective": "tco", "energy": {"price_per_kwh": kwh}}))
    if by_price is None:
        assert by_tco is None
        return
    assert by_price.tco is not None and by_tco is not None and by_tco.tco is not None
    assert by_price.tco.total >= by_price.total_price
    assert by_tco.tco.total >= by_tco.total_price
    if proven(by_price) and proven(by_tco):
        assert round(by_tco.tco.total * 100) <= round(by_price.tco.total * 100) + 1
        assert price_cents(by_price) <= price_cents(by_tco)
        reached()
