"""The commercial lines: the buyer's total worked out line by line, the seller's cost and margin, and
the sell-price copy of a plan that the buyer reads when the quote has a margin."""

from __future__ import annotations

import datetime

import pytest
import yaml
from pydantic import ValidationError

from ftopt.model.commercial import cents, commercial, hardware_key, sell_plan
from ftopt.model.findings import FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.workload import QuoteDetails
from tests.quote.commercial_bid import QUOTE, solved


@pytest.fixture(scope="module")
def bid(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, QuoteDetails]:
    plan, workload, _ = solved(tmp_path_factory.mktemp("bid"))
    assert workload.quote is not None
    return plan, workload.quote


def _sell_unit(plan: Plan, server_id: str, k: float) -> float:
    """A server's sell price from its bill, each unit at cost × k rounded to the cent."""
    server = next(s for s in plan.servers if s.id == server_id)
    return sum(round(line.unit_price * k, 2) * line.quantity for line in server.bill_of_materials)


def test_the_buyers_total_is_worked_out_line_by_line(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, quote = bid
    block = commercial(plan, sell_plan(plan, 18), quote, {}, "buyer")
    bought = [s for s in plan.servers if not s.owned]
    hardware = round(sum(_sell_unit(plan, s.id, 1.18) for s in bought), 2)
    discount = round(hardware * 0.08, 2)
    services = 1500 * len(bought) + 900 * len(bought) * 3
    subtotal = round(hardware - discount + services + 1200, 2)
    tax = round(subtotal * 0.19, 2)
    assert (block.hardware, block.discount, block.services_total) == (hardware, discount, services)
    assert (block.subtotal, block.tax, block.total) == (subtotal, tax, round(subtotal + tax, 2))
    assert sum(line.quantity for line in block.lines) == len(bought)
    assert all(line.price == round(line.unit_price * line.quantity, 2) for line in block.lines)
    # the buyer's copy never carries a cost
    assert block.cost is None and block.margin is None
    assert all(line.unit_cost is None and line.cost is None and line.margin is None for line in block.lines)


def test_the_sellers_copy_adds_cost_and_margin_per_line(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, quote = bid
    block = commercial(plan, sell_plan(plan, 18), quote, {}, "seller")
    assert block.cost == pytest.approx(plan.total_price, abs=0.005)  # the catalogue's prices are the cost
    for line in block.lines:
        assert line.cost == round((line.unit_cost or 0) * line.quantity, 2)
        assert line.margin == round(line.price - (line.cost or 0), 2)
        assert line.margin > 0
    assert block.margin == round(block.hardware - block.discount - (block.cost or 0), 2)
    buyer = commercial(plan, sell_plan(plan, 18), quote, {}, "buyer")
    assert buyer.total == block.total  # the same bid: only what is shown differs


def test_without_a_margin_the_catalogue_prices_are_the_sell_prices(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, quote = bid
    plain = quote.model_copy(update={"margin_percent": None})
    block = commercial(plan, plan, plain, {}, "seller")
    assert block.hardware == pytest.approx(plan.total_price, abs=0.005)
    assert block.cost is None and all(line.cost is None for line in block.lines)  # no cost is known


def test_the_sell_plan_raises_every_price_and_nothing_else(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, _ = bid
    saving = finding(FindingKind.SAVING, "a warmer inlet", saved=1000.0, eased_price=plan.total_price - 1000,
                     price=plan.total_price, currency=plan.currency)  # fmt: skip
    priced = plan.model_copy(update={"binding": [*plan.binding, saving], "bound": plan.total_price})
    shown = sell_plan(priced, 18)
    for cost, sell in zip(priced.servers, shown.servers, strict=True):
        assert sell.price == pytest.approx(_sell_unit(priced, cost.id, 1.18), abs=0.005)
        assert (sell.id, sell.gpu_count, sell.power_w) == (cost.id, cost.gpu_count, cost.power_w)
    assert shown.total_price == cents(sum(s.price for s in shown.servers))
    assert shown.bound == round(priced.total_price * 1.18, 2)
    eased = next(f for f in shown.binding if f.kind == FindingKind.SAVING)
    assert eased.figures["saved"] == 1180.0 and "USD 1,180" in eased.text
    assert shown.assignments == priced.assignments


def test_a_slice_layout_is_not_a_different_thing_to_buy(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, _ = bid
    server = plan.servers[0]
    sliced = server.model_copy(update={"id": "s99", "mig": [], "rack": "elsewhere", "circuit": 1})
    assert hardware_key(sliced) == hardware_key(server)
    assert hardware_key(server.model_copy(update={"gpu_count": server.gpu_count + 1})) != hardware_key(server)


def test_bids_written_with_the_old_quote_fields_still_read() -> None:
    old = yaml.safe_load("{customer: ACME Labs, reference: Q-2026-117, valid_until: 2027-01-31, "
                         "discount_percent: 12.5, notes: Prices exclude VAT.}")  # fmt: skip
    quote = QuoteDetails.model_validate(old)
    assert quote.customer is not None and quote.customer.name == "ACME Labs"
    assert quote.valid_until == datetime.date(2027, 1, 31)  # a YAML date, unquoted
    assert QuoteDetails.model_validate({**old, "valid_until": "2027-01-31"}).valid_until == quote.valid_until
    assert QuoteDetails.model_validate(QUOTE).services[1].years == 3
    with pytest.raises(ValidationError, match="expected a date"):
        QuoteDetails.model_validate({"valid_until": "end of January"})
    with pytest.raises(ValidationError):
        QuoteDetails.model_validate({"services": [{"name": "x", "price": 1, "per": "rack"}]})


def test_lead_times_give_each_line_and_the_bid_a_delivery_date(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, quote = bid
    dated = quote.model_copy(update={"date": datetime.date(2027, 1, 4)})
    items = {line.item for s in plan.servers for line in s.bill_of_materials}
    gpu = plan.servers[0].gpu
    lead = dict.fromkeys(items, 2.0) | {gpu: 6.0}
    block = commercial(plan, plan, dated, lead, "buyer")
    for line in block.lines:
        weeks = 6.0 if any(s.gpu == gpu for s in plan.servers if s.id in line.servers) else 2.0
        assert line.lead_weeks == weeks
        assert line.delivery == datetime.date(2027, 1, 4) + datetime.timedelta(weeks=weeks)
    assert block.delivery == datetime.date(2027, 1, 4) + datetime.timedelta(weeks=6)
    undated = commercial(plan, plan, quote, lead, "buyer")
    assert undated.delivery is None and all(line.delivery is None for line in undated.lines)
    unknown = commercial(plan, plan, dated, {}, "buyer")
    assert unknown.delivery is None  # no lead time stated is not "at once"


def test_the_sell_plan_raises_the_savings_and_the_weighed_notes_too(bid: tuple[Plan, QuoteDetails]) -> None:
    plan, _ = bid
    saving = finding(FindingKind.SAVING, "a warmer inlet", saved=1000.0, eased_price=plan.total_price - 1000,
                     price=plan.total_price, currency=plan.currency)  # fmt: skip
    spare = finding(FindingKind.DISPROPORTION, "of a run", what="spare servers", cost=10000.0, currency="USD",
                    hours_saved=0.5, confidence=0.9, cost_per_hour=20000.0, plan_per_hour=1000.0)  # fmt: skip
    rent = finding(FindingKind.RENT_DISPROPORTION, "the servers", side="buy", purchase=plan.total_price,
                   rent_cost=50.0, currency="USD", gpu_hours=20.0, queue=False,
                   purchase_multiple=50.0 / plan.total_price, workloads_to_pay_off=plan.total_price / 50,
                   workloads_in_life=10.0, years=1.0, utilisation=0.8)  # fmt: skip
    shown = sell_plan(plan.model_copy(update={"savings": [saving], "notes": [spare, rent]}), 18)
    assert shown.savings[0].figures["saved"] == 1180.0 and "USD 1,180" in shown.savings[0].text
    sold_spare, sold_rent = shown.notes
    assert sold_spare.figures["cost"] == 11800.0 and sold_spare.figures["plan_per_hour"] == 1180.0
    assert "USD 11,800" in sold_spare.text and "0.5 h" in sold_spare.text  # hours are no price
    assert sold_rent.figures["purchase"] == cents(plan.total_price * 1.18)
    assert sold_rent.figures["rent_cost"] == 50.0  # a cloud's price, not the seller's
    assert sold_rent.figures["workloads_to_pay_off"] == pytest.approx(plan.total_price * 1.18 / 50, abs=0.01)
