"""Quote copies at sell prices: which prices a plan file states, and the catalogue and cost plan to
check them against.

Why: with `quote.margin_percent` the catalogue's prices are the seller's cost, and `ftopt solve
--format json` writes the buyer's copy (or, with `--copy seller`, the seller's) at sell prices, cost
× (1 + margin) rounded to the cent per unit. Checked against the catalogue, every line of such a
plan was "not the price list's". The file says which copy it is in its summary's commercial block
(`copy_for`, `margin_percent`); the margin that counts is the bid's own (`quote.margin_percent` of
the workload), and a summary that states another is a shape fault (it disagrees with the summary
the plan's own figures give). So a plan at sell prices is checked line by line against a catalogue
whose every price is the cost raised by the bid's margin, and its summary against the one a cost
plan rebuilt from the catalogue gives (the seller's copy shows cost and margin beside each line).
Written here, not taken from the quote code, so the check stays independent of what it checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ftopt.model.commercial import Copy
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Fabric, LineItem, Plan, Server
from ftopt.model.workload import Workload


@dataclass(frozen=True)
class StatedCopy:
    """What a plan file says of its prices: whose copy, and the margin its prices carry (None: cost)."""

    copy: Copy
    margin_percent: float | None


def stated_copy(summary: Any) -> StatedCopy:
    """The copy and margin a plan file's summary states; the buyer's at cost without a commercial
    block (no summary, or a bid without `quote:`)."""
    commercial = summary.get("commercial") if isinstance(summary, dict) else None
    if not isinstance(commercial, dict):
        return StatedCopy("buyer", None)
    margin = commercial.get("margin_percent")
    number = isinstance(margin, int | float) and not isinstance(margin, bool)
    copy: Copy = "seller" if commercial.get("copy_for") == "seller" else "buyer"
    return StatedCopy(copy, float(margin) if number and margin else None)


def bid_margin(summary: Any, workload: Workload) -> float | None:
    """The margin the plan's prices carry: the bid's, when the file states a copy at a margin; None
    (catalogue cost) when it states none."""
    if stated_copy(summary).margin_percent is None or workload.quote is None:
        return None
    return workload.quote.margin_percent or None


def _sell(amount: float, margin_percent: float) -> float:
    """One unit's sell price: cost × (1 + margin), to the cent."""
    return round(amount * (1 + margin_percent / 100) + 0.0, 2)


def sell_catalogue(catalogue: Catalogue, margin_percent: float | None) -> Catalogue:
    """The catalogue with every price at sell price (itself without a margin)."""
    if not margin_percent:
        return catalogue
    raised = tuple(p.model_copy(update={"amount": _sell(p.amount, margin_percent)}) for p in catalogue.prices)
    return catalogue.with_prices(raised)


def _at_cost(lines: list[LineItem], catalogue: Catalogue, owned: bool) -> list[LineItem]:
    out = []
    for line in lines:
        unit = 0.0 if owned else _cost(catalogue, line.item, line.unit_price)
        out.append(line.model_copy(update={"unit_price": unit, "price": round(unit * line.quantity, 2)}))
    return out


def _cost(catalogue: Catalogue, item: str, stated: float) -> float:
    """An item's catalogue cost; the stated unit where the catalogue has none (the bill rule reports it)."""
    try:
        return catalogue.price(item).amount
    except KeyError:
        return stated


def _sum(bill: list[LineItem]) -> float:
    return round(sum(x.price for x in bill), 2)


def _server_at_cost(server: Server, catalogue: Catalogue) -> Server:
    if not server.bill_of_materials:
        return server
    bill = _at_cost(server.bill_of_materials, catalogue, server.owned)
    return server.model_copy(update={"bill_of_materials": bill, "price": _sum(bill)})


def _fabric_at_cost(fabric: Fabric | None, catalogue: Catalogue) -> Fabric | None:
    if fabric is None or not fabric.bill_of_materials:
        return fabric
    bill = _at_cost(fabric.bill_of_materials, catalogue, False)
    return fabric.model_copy(update={"bill_of_materials": bill, "price": _sum(bill)})


def cost_plan(plan: Plan, catalogue: Catalogue) -> Plan:
    """The plan at the catalogue's cost, line by line: what the seller's copy sets its cost beside."""
    servers = [_server_at_cost(s, catalogue) for s in plan.servers]
    fabric = _fabric_at_cost(plan.fabric, catalogue)
    total = round(sum(s.price for s in servers) + (fabric.price if fabric is not None else 0.0), 2)
    return plan.model_copy(update={"servers": servers, "fabric": fabric, "total_price": total})
