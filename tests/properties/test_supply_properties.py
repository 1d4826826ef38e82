"""Stock on generated workloads (issue 20): with the chosen card's stock set to 0 the plan does without
it, is still proven optimal, and is never cheaper than before."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, note, settings

from ftopt.model.hardware import Catalogue
from tests.properties.support import describe, outcome, price_cents, proven
from tests.strategies import CATALOGUE, dump, to_workload, workload_dicts

#: Of the examples drawn, at least this many must reach the comparison (a proven plan both times).
MIN_COMPARED = 6


def _without_stock(catalogue: Catalogue, card: str) -> Catalogue:
    prices = tuple(p.model_copy(update={"stock": 0}) if p.item == card else p for p in catalogue.prices)
    return catalogue.with_prices(tuple(p for p in prices if p.item == card))


def test_no_stock_of_the_chosen_card_gives_a_plan_without_it_never_cheaper() -> None:
    compared: list[int] = []

    @settings(max_examples=12, deadline=None)
    @given(workload_dicts(max_runs=2, max_concurrent=2))
    def check(data: dict[str, Any]) -> None:
        note(dump(data))
        workload = to_workload(data)
        before = outcome(workload)
        if before is None or not proven(before):
            return
        card = before.servers[0].gpu
        after = outcome(workload, _without_stock(CATALOGUE, card))
        note(f"before: {describe(before)}; after: {describe(after)}")
        if after is None:
            event("no plan without the card")
            return
        assert all(s.gpu != card for s in after.servers)
        assert proven(after), "still proven optimal"
        assert price_cents(after) >= price_cents(before)
        compared.append(1)

    check()
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} examples compared the two plans"
