"""Buy or rent: what the plan's training hours would cost on public clouds, and when buying pays off.

The same GPU-hours the plan trains (each copy's or job's hours × its GPUs, per card) priced at the
cheapest published rate for that card: on-demand, and committed where a provider publishes one. A
queue plan trains its jobs once per horizon, so renting them costs the same every horizon, and the
purchase price is recovered after purchase / (rent per horizon) horizons, given in months of
730 hours. A plan without a horizon gets no break-even: its copies' hours happen once.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ftopt.model.plan import Plan, Rent, RentSource

#: Hours in an average month (8,760 / 12).
HOURS_PER_MONTH = 730


class CloudRate(BaseModel):
    """One published rate per GPU-hour for one card."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    card: str = Field(description="catalogue card id the rate is compared with")
    match: Literal["exact", "nearest"] = Field(description="the same product, or the closest rented one")
    provider: str
    offer: str = Field(description="the instance or product as the provider names it")
    kind: Literal["on-demand", "committed"]
    usd_per_gpu_hour: float = Field(gt=0)
    url: str = Field(description="where the rate is published")
    via: str | None = Field(default=None, description="a dated transcription of that page, where read there")
    read: str = Field(description="when the figure was read")


class CloudPrices(BaseModel):
    """The dated table of cloud rates (ftopt/catalogue/data/cloud.yaml, `Catalogue.cloud`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    currency: str
    read_by_ftopt: str
    rates: tuple[CloudRate, ...]

    def cheapest(self, card: str, kind: str) -> CloudRate | None:
        """The lowest rate of one kind for a card, exact matches before nearest ones at equal price."""
        found = [r for r in self.rates if r.card == card and r.kind == kind]
        return min(found, key=lambda r: (r.usd_per_gpu_hour, r.match != "exact", r.provider), default=None)


def gpu_hours_by_card(plan: Plan) -> dict[str, float]:
    """GPU-hours the plan trains on each card: Σ hours × GPUs over its copies (or jobs)."""
    card = {s.id: s.gpu for s in plan.servers}
    hours: dict[str, float] = defaultdict(float)
    for a in plan.assignments:
        if a.hours is not None and a.server in card:
            hours[card[a.server]] += a.hours * a.gpu_count
    return dict(hours)


def _cost(by_card: dict[str, float], prices: CloudPrices, kind: str) -> tuple[float | None, list[RentSource]]:
    """The GPU-hours at the cheapest rate of one kind per card; None when a card has no such rate."""
    total, used = 0.0, []
    for card, hours in sorted(by_card.items()):
        rate = prices.cheapest(card, kind)
        if rate is None:
            return None, []
        total += hours * rate.usd_per_gpu_hour
        used.append(
            RentSource(
                card=card,
                kind=rate.kind,
                provider=rate.provider,
                offer=rate.offer,
                match=rate.match,
                usd_per_gpu_hour=rate.usd_per_gpu_hour,
                gpu_hours=round(hours, 3),
                url=rate.url,
                read=rate.read,
            )
        )
    return round(total, 2), used


def rent_for(plan: Plan, prices: CloudPrices) -> Rent | None:
    """Renting the plan's training hours, or None when it trains no hours or is not priced in the
    table's currency."""
    by_card = gpu_hours_by_card(plan)
    if not by_card or plan.currency != prices.currency:
        return None
    on_demand, sources = _cost(by_card, prices, "on-demand")
    if on_demand is None:
        return None
    committed, committed_sources = _cost(by_card, prices, "committed")
    months = None
    if plan.horizon_hours and on_demand > 0:
        months = round(plan.total_price / on_demand * plan.horizon_hours / HOURS_PER_MONTH, 2)
    return Rent(
        cost=on_demand,
        committed_cost=committed,
        gpu_hours=round(sum(by_card.values()), 3),
        break_even_months=months,
        sources=sources + committed_sources,
        read_by_ftopt=prices.read_by_ftopt,
    )
