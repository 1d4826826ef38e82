"""Buy or rent: the plan's GPU-hours priced at the cheapest published rate per card."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.rent import CloudPrices, CloudRate, gpu_hours_by_card, rent_for
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

#: Two runs with their tokens, so each copy has hours to rent.
DEADLINE = Path(__file__).resolve().parents[2] / "examples" / "deadline.yaml"


@pytest.fixture(scope="module")
def plan(catalogue: Catalogue) -> Plan:
    workload = load_workload(DEADLINE, catalogue)
    return solve(workload, catalogue, SolveSettings(time_limit=20, workers=1)).plan_or_raise()


def _rate(card: str, kind: str, usd: float, provider: str = "p") -> CloudRate:
    return CloudRate(
        card=card, match="exact", provider=provider, offer="o", kind=kind,
        usd_per_gpu_hour=usd, url="https://example.com", read="2026-12-03",
    )  # fmt: skip


def _table(*rates: CloudRate, currency: str = "USD") -> CloudPrices:
    return CloudPrices(currency=currency, read_by_ftopt="2026-12-03", rates=rates)


def test_gpu_hours_are_hours_times_gpus_per_card(plan: Plan) -> None:
    card = {s.id: s.gpu for s in plan.servers}
    by_card = gpu_hours_by_card(plan)
    assert by_card and set(by_card) == {card[a.server] for a in plan.assignments}
    assert sum(by_card.values()) == pytest.approx(sum((a.hours or 0) * a.gpu_count for a in plan.assignments))


def test_the_cheapest_rate_of_each_card_prices_its_hours(plan: Plan) -> None:
    by_card = gpu_hours_by_card(plan)
    rates = [_rate(c, "on-demand", 2.0) for c in by_card] + [
        _rate(c, "on-demand", 9.0, "dear") for c in by_card
    ]
    rent = rent_for(plan, _table(*rates))
    assert rent is not None
    assert rent.cost == pytest.approx(2.0 * sum(by_card.values()), abs=0.01)
    assert rent.committed_cost is None and rent.break_even_months is None  # no committed rate, no horizon
    assert {s.provider for s in rent.sources} == {"p"}


def test_no_rent_without_a_rate_for_every_card_or_in_another_currency(plan: Plan) -> None:
    by_card = gpu_hours_by_card(plan)
    rates = [_rate(c, "on-demand", 2.0) for c in by_card]
    assert rent_for(plan, _table(*rates[1:])) is None  # the first card has no rate
    assert rent_for(plan, _table(*rates, currency="EUR")) is None
    assert rent_for(plan, _table()) is None
