"""Rules on money and status: bill-of-materials lines, server and plan totals, currency, status, gap."""

from __future__ import annotations

from ftopt.model.plan import Status
from ftopt.verify import prices


def _with_line(c, item_id, /, **update):
    """The plan with one bill line of s1 changed, the server price and the total re-summed."""
    s = c.server()
    lines = [line.model_copy(update=update) if line.item == item_id else line for line in s.bill_of_materials]
    price = round(sum(line.price for line in lines), 2)
    return c.repriced(c.with_server(bill_of_materials=lines, price=price))


def test_total_price_off_by_one_dollar(solved) -> None:
    c = solved("mix")
    violations = c.verify(c.plan.model_copy(update={"total_price": c.plan.total_price + 1}))
    assert [str(v) for v in violations] == ["total-price: plan: 110,161.00, its servers sum to 110,160.00"]


def test_total_price_to_the_cent(solved) -> None:
    c = solved("mix")
    assert c.verify(c.plan.model_copy(update={"total_price": c.plan.total_price + 0.004})) == []


def test_bom_unit_price_changed(solved) -> None:
    c = solved("first-project")
    violations = c.verify(_with_line(c, "rtx-pro-6000-se", unit_price=13000.0, price=52000.0))
    assert [str(v) for v in violations] == [
        "bill-of-materials: server s1: rtx-pro-6000-se at 13,000.00 each, price list says 13,250.00"
    ]


def test_bom_line_price_not_unit_times_quantity(solved) -> None:
    c = solved("first-project")
    assert c.rules(_with_line(c, "ddr5-32gb", price=11521.0)) == {"bill-of-materials"}


def test_bom_quantity_differs_from_the_server(solved) -> None:
    c = solved("first-project")
    violations = c.verify(_with_line(c, "rtx-pro-6000-se", quantity=3, price=39750.0))
    assert [str(v) for v in violations] == [
        "bill-of-materials: server s1: 3 × rtx-pro-6000-se billed, the server holds 4"
    ]


def test_bom_line_missing(solved) -> None:
    c = solved("first-project")
    s = c.server()
    lines = [line for line in s.bill_of_materials if line.item != "nvme-boot-960gb"]
    plan = c.repriced(c.with_server(bill_of_materials=lines, price=round(sum(x.price for x in lines), 2)))
    violations = c.verify(plan)
    assert [str(v) for v in violations] == [
        "bill-of-materials: server s1: 0 × nvme-boot-960gb billed, the server holds 1"
    ]


def test_another_card_model_billed(solved) -> None:
    c = solved("first-project")
    rules = c.rules(_with_line(c, "rtx-pro-6000-se", item="h200-nvl", unit_price=31000.0, price=124000.0))
    assert rules == {"bill-of-materials", "one-card-model"}


def test_server_price_not_the_sum_of_its_lines(solved) -> None:
    c = solved("mix")
    plan = c.with_server("s2", price=c.server("s2").price + 1)
    assert c.rules(plan) == {"server-price", "total-price", "tco"}  # the TCO's purchase is the servers' sum


def test_prices_from_another_price_list(solved) -> None:
    c = solved("first-project")
    assert c.rules(catalogue=c.with_prices({"rtx-pro-6000-se": 9000.0})) == {"bill-of-materials"}


def test_currency(solved) -> None:
    c = solved("first-project")
    assert c.rules(c.plan.model_copy(update={"currency": "EUR"})) == {"currency"}


def test_infeasible_status(solved) -> None:
    c = solved("first-project")
    assert c.rules(c.plan.model_copy(update={"status": Status.INFEASIBLE})) == {"status"}


def test_gap_outside_0_1_and_bound_above_price(solved) -> None:
    c = solved("first-project")
    assert c.rules(c.plan.model_copy(update={"gap": 1.5})) == {"gap"}
    assert c.rules(c.plan.model_copy(update={"gap": -0.1})) == {"gap"}
    assert c.rules(c.plan.model_copy(update={"bound": c.plan.total_price + 100})) == {"gap"}
    assert c.verify(c.plan.model_copy(update={"gap": None, "bound": None})) == []


def test_the_price_rules_alone_find_a_wrong_line_price(solved) -> None:
    c = solved("first-project")
    assert c.alone(prices) == set()
    assert c.alone(prices, _with_line(c, "ddr5-32gb", price=11521.0)) == {"bill-of-materials"}
