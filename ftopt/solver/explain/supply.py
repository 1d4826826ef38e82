"""What stock and lead times did to a plan, as findings the quote shows beside the binding rules.

A part whose stock the plan uses up shaped it (one more unit might have made it cheaper); a part
left out because it arrives after `site.delivery_weeks` shaped it when the bid could otherwise have
used it (a card the workload allows, or any other part of the catalogue's builds).
"""

from __future__ import annotations

from collections import Counter

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.references import allowed_gpus
from ftopt.model.workload import Workload


def supply_findings(plan: Plan, workload: Workload, catalogue: Catalogue) -> list[Finding]:
    """Stock used up and parts left out for their lead time (`catalogue` is the whole one)."""
    used = _units_used(plan)
    found = [
        finding(FindingKind.STOCK, item, stock=stock)
        for item, count in sorted(used.items())
        if (stock := catalogue.stock(item)) is not None and count >= stock
    ]
    return found + _lead_time_findings(workload, catalogue)


def _units_used(plan: Plan) -> Counter[str]:
    """Units of each stocked part the plan's servers take: chassis, cards, CPUs, bridges, NICs."""
    used: Counter[str] = Counter()
    for s in plan.servers:
        used.update({s.chassis: 1, s.gpu: s.gpu_count, s.cpu: s.cpu_count})
        if s.bridge:
            used[s.bridge] += s.bridge_count
        if s.nic:
            used[s.nic] += s.nic_count
    return used


def _lead_time_findings(workload: Workload, catalogue: Catalogue) -> list[Finding]:
    """Parts arriving after the site's delivery weeks that the bid could otherwise have used: cards
    the workload allows, and every part that is not a card."""
    weeks = workload.site.delivery_weeks
    if weeks is None:
        return []
    allowed = {g.id for g in allowed_gpus(catalogue, workload)}
    gpus = {g.id for g in catalogue.gpus}
    return [
        finding(FindingKind.LEAD_TIME, price.item, lead_weeks=price.lead_weeks, delivery_weeks=weeks)
        for price in sorted(catalogue.prices, key=lambda p: p.item)
        if price.lead_weeks is not None
        and price.lead_weeks > weeks
        and (price.item in allowed or price.item not in gpus)
    ]


def with_supply(plan: Plan, workload: Workload, catalogue: Catalogue) -> Plan:
    """The plan with the stock it used up and the parts left out for their lead time among its binding
    rules (`catalogue` is the whole one)."""
    return plan.model_copy(update={"binding": [*plan.binding, *supply_findings(plan, workload, catalogue)]})
