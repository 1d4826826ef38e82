"""Things a plan buys whose cost is large against what they buy, flagged in its notes.

A hot spare server is bought so that a broken node's share restarts at once instead of waiting for
its repair: it buys hours at P90 (`Assignment.hours_p90_without_spares` against `hours_p90`). The
model buys one whenever the rules ask for it, however few hours it saves; a buyer should see when a
spare costing a six-figure sum saves under an hour. The yardstick is the plan itself: its price per
hour of its slowest copy at P90, what an hour of the whole plan costs. A spare whose price per hour
saved is more than `DISPROPORTION_RATIO` times that is flagged with both figures.
"""

from __future__ import annotations

from collections import defaultdict

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Assignment, Plan

#: Flag a purchase whose price per hour it saves is more than this many times the whole plan's
#: price per hour (its price over its slowest copy's hours at P90). Why 1: at that rate the hour
#: the spare saves costs more than an hour of everything else bought, which no buyer weighs as
#: insurance without being told; below it a spare is cheap against what it protects.
DISPROPORTION_RATIO = 1.0
#: The confidence the hours saved are stated at: spares are sized against P90 hours.
SPARE_CONFIDENCE = 0.9


def disproportions(plan: Plan) -> list[Finding]:
    """A note per run whose spare servers cost more per hour saved than the plan's own rate."""
    hours = [a.hours_p90 for a in plan.assignments if a.hours_p90 is not None]
    if not hours or max(hours) <= 0:
        return []
    plan_per_hour = plan.total_price / max(hours)
    prices = {s.id: s.price for s in plan.servers}
    notes = []
    for run, copies in _spared(plan).items():
        cost = sum(prices.get(spare, 0.0) for a in copies for spare in a.spares)
        saved = sum(_hours_saved(a) for a in copies)
        if saved > 0 and cost / saved > DISPROPORTION_RATIO * plan_per_hour:
            notes.append(_note(run, cost, saved, plan_per_hour, plan.currency))
        elif saved <= 0 < cost:
            notes.append(_note(run, cost, 0.0, plan_per_hour, plan.currency))
    return notes


def _spared(plan: Plan) -> dict[str, list[Assignment]]:
    """The copies with spare servers, by run."""
    found: dict[str, list[Assignment]] = defaultdict(list)
    for a in plan.assignments:
        if a.spares:
            found[a.run].append(a)
    return found


def _hours_saved(a: Assignment) -> float:
    """Hours at P90 the copy's spares save: its hours without them less its hours with them."""
    if a.hours_p90_without_spares is None or a.hours_p90 is None:
        return 0.0
    return max(0.0, a.hours_p90_without_spares - a.hours_p90)


def _note(run: str, cost: float, saved: float, plan_per_hour: float, currency: str) -> Finding:
    return finding(
        FindingKind.DISPROPORTION,
        f"of {run}",
        what="spare servers",
        cost=round(cost, 2),
        currency=currency,
        hours_saved=round(saved, 3),
        confidence=SPARE_CONFIDENCE,
        cost_per_hour=round(cost / saved) if saved else round(cost),
        plan_per_hour=round(plan_per_hour),
    )
