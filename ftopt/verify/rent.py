"""The plan's buy-or-rent figures: its GPU-hours re-derived from the speed model, each priced at the
cheapest published rate for its card (`ftopt/catalogue/data/cloud.yaml`), and the break-even.

The GPU-hours are each copy's (or job's) hours for its placement (`timing.assignment_speed`, the
verifier's own speed arithmetic) times its GPUs, summed per card of the server it trains on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ftopt.model.plan import Rent, RentSource
from ftopt.model.rent import CloudPrices
from ftopt.model.speed import hours_to_train
from ftopt.verify.context import Context
from ftopt.verify.timing import RELATIVE, assignment_speed
from ftopt.verify.violation import Violation, close, money, num

#: An average month, hours (8,760 / 12).
MONTH_HOURS = 730
#: A stated sum of rent figures each rounded to the cent, against the sum: a cent apart at most.
SUM_TOLERANCE = 0.01


def _gpu_hours(ctx: Context) -> dict[str, float] | None:
    """GPU-hours per card by the verifier's own speed; None when some copy's hours cannot be re-derived."""
    hours: dict[str, float] = defaultdict(float)
    for a in ctx.plan.assignments:
        run, parts, speed = ctx.runs.get(a.run), ctx.parts.get(a.server), assignment_speed(ctx, a)
        if run is None or parts is None or speed is None or run.train_tokens is None:
            return None
        hours[parts.server.gpu] += hours_to_train(run.train_tokens, speed) * a.gpu_count
    return dict(hours)


def _source_faults(
    source: RentSource, table: CloudPrices, own: dict[str, float] | None
) -> Iterator[Violation]:
    """One priced card and kind: its rate is the table's cheapest (the catalogue's table, which a
    vendor's directory may replace), and its GPU-hours are what its copies train on that card."""
    rates = [r for r in table.rates if r.card == source.card and r.kind == source.kind]
    cheapest = min((r.usd_per_gpu_hour for r in rates), default=None)
    if cheapest is None or not close(source.usd_per_gpu_hour, cheapest, 1e-9):
        yield Violation(
            "rent",
            f"{source.kind} rate for {source.card}",
            f"{source.usd_per_gpu_hour} per GPU-hour",
            f"the table's cheapest is {cheapest}" if cheapest is not None else "the table has none",
        )
    if own is not None and not close(
        source.gpu_hours, own.get(source.card, 0.0), max(RELATIVE * source.gpu_hours, 0.01)
    ):
        yield Violation(
            "rent",
            f"GPU-hours on {source.card}",
            num(source.gpu_hours),
            f"its copies train {num(own.get(source.card, 0.0))}",
        )


def check_rent(ctx: Context) -> Iterator[Violation]:
    """GPU-hours, the rates (cheapest of their kind for the card, as published), costs, break-even."""
    rent = ctx.plan.rent
    if rent is None:
        return
    table = ctx.catalogue.cloud
    own = _gpu_hours(ctx)
    if own is not None and not close(
        rent.gpu_hours, sum(own.values()), max(RELATIVE * sum(own.values()), 0.01)
    ):
        yield Violation(
            "rent", "plan", f"{num(rent.gpu_hours)} GPU-hours", f"its copies train {num(sum(own.values()))}"
        )
    for source in rent.sources:
        yield from _source_faults(source, table, own)
    yield from _cost_faults(rent)
    yield from _break_even_faults(ctx, rent)


def _cost_faults(rent: Rent) -> Iterator[Violation]:
    """The on-demand and committed costs are their sources' GPU-hours at their rates."""
    totals: dict[str, float] = defaultdict(float)
    for source in rent.sources:
        totals[source.kind] += source.gpu_hours * source.usd_per_gpu_hour
    for kind, stated in (("on-demand", rent.cost), ("committed", rent.committed_cost)):
        if stated is not None and not close(stated, totals.get(kind, 0.0), SUM_TOLERANCE + 1e-6 * stated):
            yield Violation(
                "rent",
                "plan",
                f"{kind} cost {money(stated)}",
                f"its sources sum to {money(totals.get(kind, 0.0))}",
            )


def _break_even_faults(ctx: Context, rent: Rent) -> Iterator[Violation]:
    """A break-even only for a queue plan (renting repeats every horizon), at price / rent per horizon."""
    horizon = ctx.plan.horizon_hours
    if rent.break_even_months is None:
        return
    if not horizon or rent.cost <= 0:
        yield Violation(
            "rent", "plan", "a break-even", "only a queue plan (a horizon) recovers its price over time"
        )
        return
    months = ctx.plan.total_price / rent.cost * horizon / MONTH_HOURS
    if not close(rent.break_even_months, months, 0.01):
        yield Violation(
            "rent",
            "plan",
            f"break-even {num(rent.break_even_months)} months",
            f"price / rent per horizon gives {num(months)}",
        )
