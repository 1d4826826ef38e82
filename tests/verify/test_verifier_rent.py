"""Buy or rent: the plan's rent figures re-derived; hand-broken ones fail the `rent` rule."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import rent as rent_rules
from ftopt.verify import verify_plan
from tests.solver.conftest import workload_from
from tests.solver.test_queue import MONTH
from tests.verify.conftest import rules_of


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="module")
def month(catalogue: Catalogue) -> tuple[Workload, Plan]:
    workload = workload_from(MONTH)
    plan = solve(workload, catalogue, SolveSettings(time_limit=30, workers=2)).plan_or_raise()
    return workload, Plan.model_validate_json(plan.to_json())


def _rent_faults(plan: Plan, workload: Workload, catalogue: Catalogue) -> list[str]:
    return [str(v) for v in verify_plan(plan, workload, catalogue) if v.rule == "rent"]


def test_the_rent_is_the_cheapest_rate_times_the_gpu_hours(month: tuple[Workload, Plan]) -> None:
    _, plan = month
    rent = plan.rent
    assert rent is not None
    card = {s.id: s.gpu for s in plan.servers}
    hours: dict[str, float] = {}
    for a in plan.assignments:
        hours[card[a.server]] = hours.get(card[a.server], 0.0) + (a.hours or 0) * a.gpu_count
    assert rent.gpu_hours == pytest.approx(sum(hours.values()), rel=1e-6)
    table = load_catalogue().cloud.rates
    cost = sum(
        h * min(r.usd_per_gpu_hour for r in table if r.card == c and r.kind == "on-demand")
        for c, h in hours.items()
    )
    assert rent.cost == pytest.approx(cost, abs=0.01)
    assert rent.break_even_months == pytest.approx(plan.total_price / rent.cost * 720 / 730, abs=0.01)
    assert all(s.url.startswith("https://") and s.read for s in rent.sources)


def test_a_rent_figure_changed_by_hand_is_caught(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    rent = plan.rent
    assert rent is not None and _rent_faults(plan, workload, catalogue) == []
    cheaper = rent.model_copy(update={"cost": rent.cost / 2})
    assert rules_of(rent_rules, plan.model_copy(update={"rent": cheaper}), workload, catalogue) == {"rent"}
    assert any(
        "on-demand cost" in f
        for f in _rent_faults(plan.model_copy(update={"rent": cheaper}), workload, catalogue)
    )
    source = rent.sources[0].model_copy(update={"usd_per_gpu_hour": 1.0})
    rate = rent.model_copy(update={"sources": [source, *rent.sources[1:]]})
    assert any(
        "the table's cheapest is" in f
        for f in _rent_faults(plan.model_copy(update={"rent": rate}), workload, catalogue)
    )
    fewer = rent.model_copy(update={"gpu_hours": rent.gpu_hours / 3})
    assert any(
        "GPU-hours" in f for f in _rent_faults(plan.model_copy(update={"rent": fewer}), workload, catalogue)
    )
    sooner = rent.model_copy(update={"break_even_months": 1.0})
    assert any(
        "break-even" in f for f in _rent_faults(plan.model_copy(update={"rent": sooner}), workload, catalogue)
    )


def test_every_catalogue_card_has_an_on_demand_rate() -> None:
    prices = load_catalogue().cloud
    cards = {g.id for g in load_catalogue().gpus}
    assert {r.card for r in prices.rates} <= cards
    assert set(prices.unrated) <= cards and all(prices.unrated.values())  # each says why
    assert all(prices.cheapest(card, "on-demand") is not None for card in cards - set(prices.unrated))
    assert all(prices.cheapest(card, "on-demand") is None for card in prices.unrated)
