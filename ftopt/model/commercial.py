"""The commercial lines of a quote: what the buyer pays, line by line, and what the seller earns.

Why a module apart from the plan: the solver minimises the catalogue's prices and never sees a
margin, a discount, tax or services; they change what the buyer reads and pays, not which servers
are cheapest. With `quote.margin_percent` set, the catalogue's prices are the seller's cost and
every price the buyer reads is a sell price, cost × (1 + margin), rounded to the cent per unit
(`sell_plan` makes that copy of the plan, so every format shows sell prices without knowing of
margins). The buyer's total is worked out line by line:

    hardware at sell price − discount (on hardware only) + services + shipping = subtotal
    subtotal × tax = tax;  subtotal + tax = total

Every amount is rounded to the cent once, where it is made (`cents`), and every format prints these
same amounts: no format recomputes one.
"""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ftopt.model.findings import Finding, FindingKind, describe, money
from ftopt.model.plan import Alternative, LineItem, Plan, Server
from ftopt.model.workload import QuoteDetails

_LINES = ConfigDict(frozen=True, extra="forbid")

Copy = Literal["buyer", "seller"]


def cents(amount: float) -> float:
    """Money rounded to the cent: the one rounding rule of every amount a quote states."""
    return round(amount + 0.0, 2)


class HardwareLine(BaseModel):
    """Identical servers bought (or the fabric), as one line of the quote: quantity, unit and line
    price, with cost and margin in the seller's copy, and when it arrives."""

    model_config = _LINES
    description: str
    servers: tuple[str, ...] = Field(description="which servers of the plan the line is; () for the fabric")
    quantity: int
    unit_price: float = Field(description="sell price of one")
    price: float = Field(description="quantity × unit_price")
    unit_cost: float | None = Field(default=None, description="seller's copy with a margin: cost of one")
    cost: float | None = Field(default=None, description="seller's copy with a margin: quantity × unit_cost")
    margin: float | None = Field(default=None, description="seller's copy with a margin: price − cost")
    lead_weeks: float | None = Field(description="the longest lead time of its parts; None: none stated")
    delivery: datetime.date | None = Field(description="quote date + lead time; None without a quote date")


class ServiceCharge(BaseModel):
    """A service line as charged: its price × servers (per server) × years (when given)."""

    model_config = _LINES
    name: str
    unit_price: float
    per: Literal["server", "bid"]
    quantity: int = Field(description="servers bought (per server) or 1 (per bid)")
    years: float | None
    price: float


class Commercial(BaseModel):
    """The quote's commercial block: hardware lines, discount, services, shipping, tax and total;
    in the seller's copy also cost and margin."""

    model_config = _LINES
    copy_for: Copy = Field(description="buyer: prices only; seller: cost and margin beside them")
    currency: str
    lines: tuple[HardwareLine, ...]
    hardware: float = Field(description="Σ lines' price: the hardware at sell price")
    discount_percent: float
    discount: float = Field(description="hardware × discount_percent, on hardware only")
    services: tuple[ServiceCharge, ...]
    services_total: float
    shipping: float
    subtotal: float = Field(description="hardware − discount + services + shipping")
    tax_percent: float
    tax: float = Field(description="subtotal × tax_percent")
    total: float = Field(description="subtotal + tax: what the buyer pays")
    margin_percent: float | None
    cost: float | None = Field(default=None, description="seller's copy with a margin: Σ lines' cost")
    margin: float | None = Field(
        default=None, description="seller's copy with a margin: hardware − discount − cost, what it earns"
    )
    lead_weeks: float | None = Field(description="the longest line's lead time")
    delivery: datetime.date | None = Field(
        description="when the last line arrives; None unless every lead time and the quote's date are known"
    )


# --- the sell-price copy of a plan --------------------------------------------------------------------


def _sell_items(items: list[LineItem], k: float) -> list[LineItem]:
    out = []
    for line in items:
        unit = cents(line.unit_price * k)
        out.append(line.model_copy(update={"unit_price": unit, "price": cents(unit * line.quantity)}))
    return out


def _sell_server(server: Server, k: float) -> Server:
    if server.owned or not server.bill_of_materials:
        return server.model_copy(update={"price": cents(server.price * k)})
    bill = _sell_items(server.bill_of_materials, k)
    return server.model_copy(update={"bill_of_materials": bill, "price": cents(sum(x.price for x in bill))})


#: The figures of each kind of finding that are amounts of the plan's own prices (a cloud's rent is
#: not), which the sell-price copy raises by the margin; the per-hour rates round to the unit.
_PRICED: dict[FindingKind, tuple[str, ...]] = {
    FindingKind.SAVING: ("saved", "eased_price", "price"),
    FindingKind.DISPROPORTION: ("cost", "cost_per_hour", "plan_per_hour"),
    FindingKind.OFFLOAD_DISPROPORTION: ("saved", "without_price", "saved_per_hour", "plan_per_hour"),
    FindingKind.RENT_DISPROPORTION: ("purchase",),
}
_RATES = frozenset({"cost_per_hour", "plan_per_hour", "saved_per_hour"})


def _sell_finding(f: Finding, k: float) -> Finding:
    """A finding's amounts at sell prices, worded again (a saving, a disproportion); other findings
    carry no price. Buying against renting also restates how many workloads pay the purchase off."""
    keys = _PRICED.get(f.kind)
    if keys is None:
        return f
    figures = dict(f.figures)
    for key in keys:
        value = figures.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            figures[key] = float(round(value * k)) if key in _RATES else cents(value * k)
    if f.kind == FindingKind.RENT_DISPROPORTION:
        for key, factor in (("workloads_to_pay_off", k), ("purchase_multiple", 1 / k)):
            value = figures.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                figures[key] = round(value * factor, 3)
    return f.model_copy(update={"figures": figures, "text": describe(f.kind, f.subject, figures)})


def _sell_findings(plan: Plan, k: float) -> dict[str, list[Finding]]:
    """The binding rules, savings and notes with their amounts at sell prices."""
    return {
        "binding": [_sell_finding(f, k) for f in plan.binding],
        "savings": [_sell_finding(f, k) for f in plan.savings],
        "notes": [_sell_finding(f, k) for f in plan.notes],
    }


def sell_plan(plan: Plan, margin_percent: float) -> Plan:
    """The plan at sell prices: every price (servers and their bills, fabric, total, bound, savings,
    TCO's purchase, alternatives) × (1 + margin), each unit price rounded to the cent; the copy the
    buyer reads when the catalogue's prices are the seller's cost. Never verified: a view."""
    k = 1 + margin_percent / 100
    servers = [_sell_server(s, k) for s in plan.servers]
    fabric = plan.fabric
    if fabric is not None:
        bill = _sell_items(fabric.bill_of_materials, k)
        price = cents(sum(x.price for x in bill)) if bill else cents(fabric.price * k)
        fabric = fabric.model_copy(update={"bill_of_materials": bill, "price": price})
    total = cents(sum(s.price for s in servers) + (fabric.price if fabric is not None else 0.0))
    update: dict[str, object] = {
        "servers": servers,
        "fabric": fabric,
        "total_price": total,
        "bound": cents(plan.bound * k) if plan.bound is not None else None,
        **_sell_findings(plan, k),
    }
    if plan.tco is not None:
        update["tco"] = plan.tco.model_copy(
            update={"purchase": total, "total": cents(total + plan.tco.energy_cost)}
        )
    if plan.rent is not None and plan.rent.break_even_months is not None and plan.total_price:
        months = plan.rent.break_even_months * total / plan.total_price
        update["rent"] = plan.rent.model_copy(update={"break_even_months": round(months, 2)})
    alternatives = []
    for alt in plan.alternatives:
        shown = sell_plan(alt.plan, margin_percent)
        alternatives.append(
            Alternative(
                rank=alt.rank,
                price_difference=cents(max(shown.total_price - total, 0.0)),
                differs=alt.differs,
                proven_next=alt.proven_next,
                plan=shown,
            )
        )
    update["alternatives"] = alternatives
    return plan.model_copy(update=update)


# --- the lines --------------------------------------------------------------------------------------


def hardware_key(server: Server) -> str:
    """What makes two servers the same thing to buy: everything but their id, where they stand and
    how their cards are split into GPU slices (a slice layout is a setting, not a part)."""
    return server.model_dump_json(exclude={"id", "mig", "rack", "circuit"})


def _line_lead(items: list[LineItem], lead: dict[str, float]) -> float | None:
    weeks = [lead[x.item] for x in items if x.item in lead]
    return max(weeks) if weeks else None


def _delivery(start: datetime.date | None, weeks: float | None) -> datetime.date | None:
    """The quote's date + the lead time; None without either (no lead time stated is not "at once")."""
    if start is None or weeks is None:
        return None
    return start + datetime.timedelta(days=round(weeks * 7))


def _server_lines(
    cost: Plan, sell: Plan, lead: dict[str, float], start: datetime.date | None
) -> list[dict[str, Any]]:
    groups: dict[str, list[tuple[Server, Server]]] = {}
    for c, s in zip(cost.servers, sell.servers, strict=True):
        if not c.owned:
            groups.setdefault(hardware_key(c), []).append((c, s))
    out = []
    for pairs in groups.values():
        c, s = pairs[0]
        weeks = _line_lead(c.bill_of_materials, lead)
        out.append({
            "description": f"{c.gpu_count} × {c.gpu} in {c.chassis}, {c.cpu_count} × {c.cpu}, "
            f"{c.ram_gb:,} GB RAM, {c.nvme_tb:g} TB NVMe",
            "ids": [p[0].id for p in pairs],
            "quantity": len(pairs),
            "unit_price": s.price,
            "unit_cost": c.price,
            "lead_weeks": weeks,
            "delivery": _delivery(start, weeks),
        })  # fmt: skip
    if cost.fabric is not None and sell.fabric is not None and cost.fabric.price:
        weeks = _line_lead(cost.fabric.bill_of_materials, lead)
        out.append({"description": f"fabric: switches and cables for the {cost.fabric.nic} NICs", "ids": [],
                    "quantity": 1, "unit_price": sell.fabric.price, "unit_cost": cost.fabric.price,
                    "lead_weeks": weeks, "delivery": _delivery(start, weeks)})  # fmt: skip
    return out


def _services(quote: QuoteDetails, servers: int) -> tuple[ServiceCharge, ...]:
    out = []
    for s in quote.services:
        quantity = servers if s.per == "server" else 1
        price = cents(s.price * quantity * (s.years or 1))
        out.append(ServiceCharge(name=s.name, unit_price=s.price, per=s.per, quantity=quantity,
                                 years=s.years, price=price))  # fmt: skip
    return tuple(out)


def commercial(
    cost: Plan, sell: Plan, quote: QuoteDetails, lead: dict[str, float], copy: Copy = "buyer"
) -> Commercial:
    """The commercial block of `cost` (the plan at catalogue prices) shown at `sell` (the same plan
    at sell prices: `sell_plan`, or `cost` itself without a margin), for the buyer's or the seller's
    copy; `lead` gives each catalogue item's lead weeks (items without one arrive at once)."""
    margin = quote.margin_percent
    seller = copy == "seller" and margin is not None
    lines = []
    for line in _server_lines(cost, sell, lead, quote.date):
        price = cents(line["unit_price"] * line["quantity"])
        line_cost = cents(line["unit_cost"] * line["quantity"])
        lines.append(
            HardwareLine(
                description=line["description"],
                servers=tuple(line["ids"]),
                quantity=line["quantity"],
                unit_price=line["unit_price"],
                price=price,
                unit_cost=line["unit_cost"] if seller else None,
                cost=line_cost if seller else None,
                margin=cents(price - line_cost) if seller else None,
                lead_weeks=line["lead_weeks"],
                delivery=line["delivery"],
            )
        )
    return _totals(cost, quote, tuple(lines), copy, seller)


def _totals(
    cost: Plan, quote: QuoteDetails, lines: tuple[HardwareLine, ...], copy: Copy, seller: bool
) -> Commercial:
    """The block's sums, each rounded to the cent where it is made."""
    hardware = cents(sum(x.price for x in lines))
    discount = cents(hardware * quote.discount_percent / 100)
    services = _services(quote, sum(1 for s in cost.servers if not s.owned))
    services_total = cents(sum(x.price for x in services))
    subtotal = cents(hardware - discount + services_total + quote.shipping)
    tax = cents(subtotal * quote.tax_percent / 100)
    hardware_cost = cents(sum(x.cost or 0.0 for x in lines)) if seller else None
    weeks, delivery = _arrival(lines)
    return Commercial(
        copy_for=copy,
        currency=cost.currency,
        lines=lines,
        hardware=hardware,
        discount_percent=quote.discount_percent,
        discount=discount,
        services=services,
        services_total=services_total,
        shipping=cents(quote.shipping),
        subtotal=subtotal,
        tax_percent=quote.tax_percent,
        tax=tax,
        total=cents(subtotal + tax),
        margin_percent=quote.margin_percent,
        cost=hardware_cost,
        margin=cents(hardware - discount - hardware_cost) if hardware_cost is not None else None,
        lead_weeks=weeks,
        delivery=delivery,
    )


def _arrival(lines: tuple[HardwareLine, ...]) -> tuple[float | None, datetime.date | None]:
    """The longest lead time of the lines, and when the last one arrives: known only when every
    line's delivery is known."""
    weeks = [x.lead_weeks for x in lines if x.lead_weeks is not None]
    dates = [x.delivery for x in lines if x.delivery is not None]
    return (max(weeks) if weeks else None), (max(dates) if dates and len(dates) == len(lines) else None)


# --- the words the summary states ----------------------------------------------------------------


def total_words(block: Commercial) -> str:
    """The headline's clause for the total: what is added to the hardware, and the total."""
    added = [
        name
        for name, amount in (
            ("services", block.services_total),
            ("shipping", block.shipping),
            (f"{block.tax_percent:g} % tax", block.tax),
        )
        if amount
    ]
    if not added:
        return ""
    joined = added[0] if len(added) == 1 else ", ".join(added[:-1]) + " and " + added[-1]
    return f"; {money(block.total, block.currency)} in total with {joined}"


def figure_pairs(block: Commercial) -> list[tuple[str, str]]:
    """The key figures the commercial block adds, as (label, value): services, shipping, tax, total,
    cost and margin in the seller's copy, delivery."""
    c = block.currency
    out = []
    if block.services_total:
        out.append(("Services", money(block.services_total, c)))
    if block.shipping:
        out.append(("Shipping", money(block.shipping, c)))
    if block.tax_percent:
        out.append((f"Tax ({block.tax_percent:g} %)", money(block.tax, c)))
    out.append(("Total to pay", money(block.total, c)))
    if block.cost is not None and block.margin is not None:
        out.append(("Cost (seller's copy)", money(block.cost, c)))
        out.append(("Margin after discount (seller's copy)", money(block.margin, c)))
    if block.delivery is not None:
        out.append(("Delivery by", block.delivery.isoformat()))
    elif block.lead_weeks:
        out.append(("Delivery", f"{block.lead_weeks:g} weeks after the order"))
    return out
