"""Things a plan buys whose cost is large against what they buy, flagged in its notes.

Three are weighed, each note with both figures: hot spare servers, a CPU offload tier, and buying
against renting the same hours.

A hot spare server is bought so that a broken node's share restarts at once instead of waiting for
its repair: it buys hours at P90 (`Assignment.hours_p90_without_spares` against `hours_p90`). The
model buys one whenever the rules ask for it, however few hours it saves; a buyer should see when a
spare costing a six-figure sum saves under an hour. The yardstick is the plan itself: its price per
hour of its slowest copy at P90, what an hour of the whole plan costs. A spare whose price per hour
saved is more than `DISPROPORTION_RATIO` times that is flagged with both figures.

CPU offload (a run's `offload: auto` lets the solver choose it) buys the other way round: it saves
money (fewer or smaller cards, paid for in host RAM) and costs hours (the optimiser steps on the
CPU). What it saves is read off a re-solve the solver actually ran, the bid with those runs held
to `offload: none`: that plan's price less this one's. What it costs is the offloaded runs' slowest
P90 hours less theirs in that plan. Saving less per hour added than the plan's own price per hour
is flagged: offload chosen on a tie (it saves nothing) is the common case.

Buying against renting: the plan's rent figure prices its GPU-hours at on-demand cloud rates. The
purchase pays off after purchase / rent such workloads; the servers can train at most
years × 8,760 h × utilisation / the workload's hours of them (the workload's energy settings, its
TCO years). Flagged when the first exceeds the second (buying never pays off, even busy back to
back) or when renting the workload once costs more than the servers (`purchase_multiple` > 1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Assignment, Plan
from ftopt.model.result import Result
from ftopt.model.timing import HOURS_PER_YEAR
from ftopt.model.workload import Offload, Workload

#: Flag a purchase whose price per hour it saves is more than this many times the whole plan's
#: price per hour (its price over its slowest copy's hours at P90). Why 1: at that rate the hour
#: the spare saves costs more than an hour of everything else bought, which no buyer weighs as
#: insurance without being told; below it a spare is cheap against what it protects.
DISPROPORTION_RATIO = 1.0
#: The confidence the hours saved are stated at: spares are sized against P90 hours.
SPARE_CONFIDENCE = 0.9


def _plan_per_hour(plan: Plan) -> float | None:
    """The plan's price per hour of its slowest copy at P90: what an hour of everything costs."""
    hours = [a.hours_p90 for a in plan.assignments if a.hours_p90 is not None]
    if not hours or max(hours) <= 0:
        return None
    return plan.total_price / max(hours)


def disproportions(plan: Plan) -> list[Finding]:
    """A note per run whose spare servers cost more per hour saved than the plan's own rate."""
    plan_per_hour = _plan_per_hour(plan)
    if plan_per_hour is None:
        return []
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


def offloaded_runs(workload: Workload, plan: Plan) -> tuple[str, ...]:
    """The runs whose copies the plan offloads by its own choice (their `offload: auto`)."""
    auto = {r.name for r in workload.runs if r.offload == "auto"}
    return tuple(sorted({a.run for a in plan.assignments if a.offload == Offload.CPU and a.run in auto}))


def without_offload(workload: Workload, runs: tuple[str, ...]) -> Workload:
    """The bid with `runs` held to no offload: the re-solve that prices what their offload saves."""
    held = tuple(
        r.model_copy(update={"offload": Offload.NONE}) if r.name in runs else r for r in workload.runs
    )
    return workload.model_copy(update={"runs": held})


def offload_disproportion(
    workload: Workload, plan: Plan, resolve: Callable[[Workload], Result]
) -> list[Finding]:
    """A note when the plan's own choice of CPU offload saves less per hour it adds (at P90) than the
    plan costs per hour, against a re-solve without it; none when that re-solve finds no plan
    (offload is what makes the bid possible) or is no faster."""
    runs = offloaded_runs(workload, plan)
    plan_per_hour = _plan_per_hour(plan)
    if not runs or plan_per_hour is None:
        return []
    other = resolve(without_offload(workload, runs)).plan
    if other is None:
        return []
    lost = _slowest(plan, runs) - _slowest(other, runs)
    saved = max(0.0, other.total_price - plan.total_price)
    if lost <= 0 or saved / lost >= DISPROPORTION_RATIO * plan_per_hour:
        return []
    note = finding(
        FindingKind.OFFLOAD_DISPROPORTION,
        ", ".join(runs),
        saved=round(saved, 2),
        without_price=other.total_price,
        without_status=other.status.value,
        currency=plan.currency,
        hours_lost=round(lost, 3),
        confidence=SPARE_CONFIDENCE,
        saved_per_hour=round(saved / lost),
        plan_per_hour=round(plan_per_hour),
    )
    return [note]


def _slowest(plan: Plan, runs: tuple[str, ...]) -> float:
    """The slowest P90 hours of the copies of `runs` in `plan`."""
    return max((a.hours_p90 or 0.0 for a in plan.assignments if a.run in runs), default=0.0)


def rent_disproportion(plan: Plan, years: float, utilisation: float) -> list[Finding]:
    """A note when buying never pays off against renting the same GPU-hours within the servers'
    `years` at `utilisation`, or when renting the workload once costs more than buying; none when
    some run has no hours (the rent would not cover it) or the plan has no rent figure."""
    rent, period = plan.rent, plan.horizon_hours or plan.makespan_hours
    if (
        rent is None
        or not rent.cost
        or plan.total_price <= 0
        or not period
        or any(a.hours is None for a in plan.assignments)
    ):
        return []
    to_pay_off = plan.total_price / rent.cost
    in_life = years * HOURS_PER_YEAR * utilisation / period
    if to_pay_off <= in_life and rent.cost <= plan.total_price:
        return []
    note = finding(
        FindingKind.RENT_DISPROPORTION,
        "the plan's servers",
        side="rent" if rent.cost > plan.total_price else "buy",
        purchase=plan.total_price,
        rent_cost=rent.cost,
        currency=plan.currency,
        gpu_hours=rent.gpu_hours,
        queue=plan.horizon_hours is not None,
        purchase_multiple=round(rent.cost / plan.total_price, 3) if plan.total_price else 0.0,
        workloads_to_pay_off=round(to_pay_off, 1),
        workloads_in_life=round(in_life, 1),
        years=years,
        utilisation=utilisation,
    )
    return [note]
