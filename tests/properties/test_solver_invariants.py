"""Properties of `solve` on generated workloads (issue §3).

Each property states a fact any correct optimiser has, whatever the catalogue's figures: the plan
passes the independent verifier; the optimum is monotone in the runs and in the site; it ignores
run order, run names and the price of what it does not buy; it lies between a lower bound and a
greedy plan's price; the same input gives the same answer. Prices are compared only between plans
proven optimal, in integer cents; an infeasible bid is `None`.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, note, settings
from hypothesis import strategies as st

from ftopt.verify import verify_plan
from tests.bruteforce import first_fit_decreasing, instance, lower_bound_cents
from tests.properties.support import DETERMINISTIC, describe, exercised, outcome, price_cents, proven, reached
from tests.strategies import (
    CATALOGUE,
    dump,
    relaxed_sites,
    run_dicts,
    to_whole_card_workload,
    to_workload,
    workload_dicts,
)


@exercised(minimum=15)
@settings(max_examples=50)  # with the measured memory margin (issue 28) more drawn bids are infeasible
@given(workload_dicts())
def test_every_plan_verifies(data: dict[str, Any]) -> None:
    note(dump(data))
    workload = to_workload(data)
    plan = outcome(workload)
    if plan is None:
        return
    violations = verify_plan(plan, workload, CATALOGUE)
    assert violations == [], "\n".join(map(str, violations))
    reached()


@st.composite
def _with_an_extra_run(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    base = draw(workload_dicts(max_runs=3))
    extra = draw(run_dicts(name="extra"))
    bigger = copy.deepcopy(base)
    bigger["runs"].insert(draw(st.integers(0, len(base["runs"]))), extra)
    return base, bigger


def _assert_no_cheaper(smaller: dict[str, Any], larger: dict[str, Any]) -> None:
    """The bid with fewer runs (or a looser site) is never dearer, and feasible when the other is."""
    note("smaller:\n" + dump(smaller))
    note("larger:\n" + dump(larger))
    small, large = outcome(to_workload(smaller)), outcome(to_workload(larger))
    note(f"smaller: {describe(small)}\nlarger: {describe(large)}")
    if small is None:
        assert large is None, "a sub-bid of a feasible bid is infeasible"
    elif proven(small) and proven(large):
        assert large is not None
        assert price_cents(small) <= price_cents(large)
        reached()


@exercised(minimum=10)
@given(_with_an_extra_run())
def test_adding_a_run_never_lowers_the_price(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    base, bigger = pair
    _assert_no_cheaper(base, bigger)


@st.composite
def _with_a_run_removed(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    full = draw(workload_dicts(min_runs=2, max_runs=4))
    fewer = copy.deepcopy(full)
    del fewer["runs"][draw(st.integers(0, len(full["runs"]) - 1))]
    return fewer, full


@exercised(minimum=10)
@given(_with_a_run_removed())
def test_removing_a_run_never_raises_the_price(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    fewer, full = pair
    _assert_no_cheaper(fewer, full)


@st.composite
def _with_a_relaxed_site(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    tight = draw(workload_dicts(max_runs=3))
    relaxed = copy.deepcopy(tight)
    relaxed["site"] = draw(relaxed_sites(tight["site"]))
    return relaxed, tight


@exercised(minimum=8)
@given(_with_a_relaxed_site())
def test_relaxing_the_site_never_raises_the_price(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    relaxed, tight = pair
    _assert_no_cheaper(relaxed, tight)


_NAMES = st.from_regex(r"\A[A-Za-z0-9_.\-]{1,16}\Z")


@exercised(minimum=10)
@given(workload_dicts(min_runs=2), st.data())
def test_reordering_and_renaming_runs_keeps_the_price(data: dict[str, Any], draw: st.DataObject) -> None:
    runs = data["runs"]
    order = draw.draw(st.permutations(range(len(runs))), label="order")
    names = draw.draw(st.lists(_NAMES, min_size=len(runs), max_size=len(runs), unique=True), label="names")
    shuffled = copy.deepcopy(data)
    shuffled["runs"] = [{**runs[i], "name": name} for i, name in zip(order, names, strict=True)]
    note(dump(data))
    first, second = outcome(to_workload(data)), outcome(to_workload(shuffled))
    note(f"original: {describe(first)}\nreordered: {describe(second)}")
    assert (first is None) == (second is None)
    if proven(first) and proven(second):
        assert first is not None and second is not None
        assert price_cents(first) == price_cents(second)
        reached()


@exercised(minimum=10)
@given(workload_dicts(max_runs=3), st.data())
def test_raising_the_price_of_an_unused_component_keeps_the_price(
    data: dict[str, Any], draw: st.DataObject
) -> None:
    note(dump(data))
    workload = to_workload(data)
    plan = outcome(workload)
    if not proven(plan):
        return
    assert plan is not None
    used = {line.item for server in plan.servers for line in server.bill_of_materials}
    unused = sorted(p.item for p in CATALOGUE.prices if p.item not in used)
    items = draw.draw(st.lists(st.sampled_from(unused), min_size=1, max_size=3, unique=True), label="items")
    factor = draw.draw(st.sampled_from((1.01, 1.5, 3.0, 100.0)), label="factor")
    dearer = CATALOGUE.with_prices(
        tuple(
            CATALOGUE.price(i).model_copy(update={"amount": CATALOGUE.price(i).amount * factor + 1})
            for i in items
        )
    )
    again = outcome(workload, dearer)
    note(f"before: {describe(plan)}\nafter: {describe(again)}")
    assert again is not None, "raising the price of an unused item made the bid infeasible"
    if proven(again):
        assert price_cents(again) == price_cents(plan)
        reached()


@exercised(minimum=10)
@given(workload_dicts())
def test_price_lies_between_a_lower_bound_and_a_greedy_plan(data: dict[str, Any]) -> None:
    note(dump(data))
    workload = to_whole_card_workload(data)  # the reference bounds know no GPU slices
    problem = instance(workload, CATALOGUE)
    low, greedy = lower_bound_cents(problem), first_fit_decreasing(problem)
    plan = outcome(workload)
    note(f"lower bound {low}, greedy {greedy}, solver {describe(plan)}")
    if plan is None:
        assert greedy is None, f"the greedy found a plan of {greedy / 100:,.2f} for an 'infeasible' bid"
        return
    assert low is not None, "the solver placed a run that no server holds"
    assert low <= price_cents(plan)
    reached()
    if greedy is not None and proven(plan):
        assert price_cents(plan) <= greedy


@exercised(minimum=12)
@given(workload_dicts())
def test_the_same_input_gives_the_same_price(data: dict[str, Any]) -> None:
    note(dump(data))
    workload = to_workload(data)
    first, second = outcome(workload), outcome(workload)
    assert (first is None) == (second is None)
    if proven(first) and proven(second):
        assert first is not None and second is not None
        assert price_cents(first) == price_cents(second)
        reached()


@exercised(minimum=8)
@given(workload_dicts())
def test_deterministic_mode_gives_the_same_plan(data: dict[str, Any]) -> None:
    note(dump(data))
    workload = to_workload(data)
    first, second = outcome(workload, settings=DETERMINISTIC), outcome(workload, settings=DETERMINISTIC)
    assert (first is None) == (second is None)
    if first is not None and second is not None:
        assert first.model_dump(exclude={"wall_seconds"}) == second.model_dump(exclude={"wall_seconds"})
        reached()
