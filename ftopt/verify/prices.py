"""Rules on money and on the plan's header: bills of materials, prices, currency, status and gap.

Every line of a server's bill of materials must carry the catalogue's (or the user's price list's)
unit price, its quantity must be what the server's fields say it holds, and the sums must add up to
the cent: line = unit × quantity, server = Σ lines, plan = Σ servers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ftopt.model.plan import LineItem, Server, Status
from ftopt.verify.context import Context
from ftopt.verify.violation import PRICE_TOLERANCE, Violation, close, money, num


def expected_quantities(server: Server) -> Counter[str]:
    """Units of each catalogue item the server's fields say it holds."""
    quantities: Counter[str] = Counter()
    quantities[server.chassis] += 1
    quantities[server.gpu] += server.gpu_count
    if server.bridge is not None:
        quantities[server.bridge] += server.bridge_count
    quantities[server.cpu] += server.cpu_count
    quantities[server.dimm] += server.dimm_count
    quantities[server.data_drive] += server.data_drive_count
    quantities[server.boot_drive] += 1
    if server.nic is not None:
        quantities[server.nic] += server.nic_count
    return quantities


def _catalogue_price(ctx: Context, item: str) -> float | None:
    try:
        return ctx.catalogue.price(item).amount
    except KeyError:
        return None


def _line_faults(ctx: Context, server: Server) -> Iterator[tuple[str, str]]:
    """A server's bill: each line's unit and line price, then its quantities against what it holds."""
    for line in server.bill_of_materials:
        yield from _unit_price_faults(ctx, server, line)
        if not close(line.price, line.unit_price * line.quantity, PRICE_TOLERANCE):
            yield (
                f"{line.item} line price {money(line.price)}",
                f"{line.quantity} × {money(line.unit_price)} = {money(line.unit_price * line.quantity)}",
            )
    billed: Counter[str] = Counter()
    for line in server.bill_of_materials:
        billed[line.item] += line.quantity
    expected = expected_quantities(server)
    for item in sorted(set(billed) | set(expected)):
        if billed[item] != expected[item]:
            yield f"{billed[item]} × {item} billed", f"the server holds {expected[item]}"


def _unit_price_faults(ctx: Context, server: Server, line: LineItem) -> Iterator[tuple[str, str]]:
    """A line's unit price is the price list's, or 0 on a server the customer owns."""
    unit = _catalogue_price(ctx, line.item)
    if unit is None:
        yield f"line {line.item!r}", "no such priced item in the catalogue"
    elif server.owned and not close(line.unit_price, 0.0, PRICE_TOLERANCE):
        yield f"{line.item} at {money(line.unit_price)} each", "the customer owns this server: 0"
    elif not server.owned and not close(line.unit_price, unit, PRICE_TOLERANCE):
        yield f"{line.item} at {money(line.unit_price)} each", f"price list says {money(unit)}"


def check_bill_of_materials(ctx: Context) -> Iterator[Violation]:
    """Lines at price-list unit prices (0 on an owned server), priced to the cent, in the quantities the
    server holds."""
    for p in ctx.servers():
        for found, allowed in _line_faults(ctx, p.server):
            yield Violation("bill-of-materials", p.subject, found, allowed)


def check_one_card_model(ctx: Context) -> Iterator[Violation]:
    """A server's cards are all its one card model."""
    for p in ctx.servers():
        others = sorted(
            {
                line.item
                for line in p.server.bill_of_materials
                if ctx.catalogue.has("gpus", line.item) and line.item != p.server.gpu
            }
        )
        if others:
            yield Violation(
                "one-card-model",
                p.subject,
                f"cards {', '.join(others)} billed",
                f"the server holds {p.server.gpu}",
            )


def check_server_price(ctx: Context) -> Iterator[Violation]:
    """A server's price is the sum of its lines."""
    for p in ctx.servers():
        total = sum(line.price for line in p.server.bill_of_materials)
        if not close(p.server.price, total, PRICE_TOLERANCE):
            yield Violation(
                "server-price", p.subject, money(p.server.price), f"its lines sum to {money(total)}"
            )


def check_total_price(ctx: Context) -> Iterator[Violation]:
    """The plan's price is the sum of its servers' and its fabric's."""
    fabric = ctx.plan.fabric.price if ctx.plan.fabric else 0.0
    total = sum(s.price for s in ctx.plan.servers) + fabric
    if not close(ctx.plan.total_price, total, PRICE_TOLERANCE):
        tail = " and its fabric" if ctx.plan.fabric else ""
        yield Violation(
            "total-price", "plan", money(ctx.plan.total_price), f"its servers{tail} sum to {money(total)}"
        )


def check_currency(ctx: Context) -> Iterator[Violation]:
    """The plan is priced in the price list's currency."""
    if ctx.plan.currency != ctx.catalogue.currency:
        yield Violation(
            "currency", "plan", ctx.plan.currency, f"the price list is in {ctx.catalogue.currency}"
        )


def check_status(ctx: Context) -> Iterator[Violation]:
    """A plan to verify is optimal or feasible."""
    if ctx.plan.status not in (Status.OPTIMAL, Status.FEASIBLE):
        yield Violation("status", "plan", f"status {ctx.plan.status}", "optimal or feasible")


def check_gap(ctx: Context) -> Iterator[Violation]:
    """The gap is a share (0…1) and the bound does not exceed the price."""
    plan = ctx.plan
    if plan.gap is not None and not 0 <= plan.gap <= 1:
        yield Violation("gap", "plan", f"gap {num(plan.gap)}", "between 0 and 1")
    if plan.bound is not None and not plan.bound <= plan.total_price + PRICE_TOLERANCE:
        yield Violation(
            "gap",
            "plan",
            f"bound {money(plan.bound)}",
            f"a lower bound ≤ the price {money(plan.total_price)}",
        )
