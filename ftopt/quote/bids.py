"""The HTML quote's three bids (cheapest, knee, fastest): the price-makespan frontier behind them.

Why here, shared by `ftopt solve --format html` and the workbench: the quote's bids must be the
points `ftopt frontier` finds with the same settings, so both callers search that frontier the same
way, within what the solve left of the time limit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ftopt.model.commercial import Copy, sell_plan
from ftopt.model.hardware import Catalogue
from ftopt.model.settings import SolveSettings
from ftopt.model.workload import Workload

if TYPE_CHECKING:
    from ftopt.model.plan import Plan
    from ftopt.solver.frontier import Frontier, FrontierPoint

#: Points `ftopt frontier` finds by default, and the HTML quote's three bids with it: both search
#: the same frontier with the same settings, so the quote's cheapest, knee and fastest are the
#: frontier command's own points.
FRONTIER_POINTS = 10


def quote_bids(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings,
    budget_s: float,
    plan: Plan | None = None,
) -> Frontier | None:
    """The frontier behind the quote's three bids: the one `ftopt frontier` finds with the same
    settings, within `budget_s` (what the solve left of the time limit), so that they are that
    command's own points whenever the budget lets the frontier finish (None when no run gives
    train_tokens or no point was found; a queue bid's time axis is its last job's end, as in
    `ftopt frontier`). The quote's own `plan` is the frontier's first point, so the cheapest bid is
    never dearer than the plan beside it. OR-Tools is imported only here, when a frontier is asked for."""
    from ftopt.solver.frontier import frontier, has_train_tokens

    if not has_train_tokens(workload):
        return None
    same = replace(settings, deterministic=False, what_if=False, alternatives=0)  # as `ftopt frontier`
    found = frontier(
        workload, catalogue, same, points=FRONTIER_POINTS, budget_s=max(budget_s, 0.0), first=plan
    )
    return found if found.points and found.solves else None  # not the plan alone, unsearched


def _sold(point: FrontierPoint, margin_percent: float) -> FrontierPoint:
    plan = sell_plan(point.plan, margin_percent)
    tco = plan.tco.total if plan.tco is not None else None
    return replace(point, plan=plan, total_price=plan.total_price, tco=tco)


def bids_for_copy(
    found: Frontier | None, workload: Workload | None, copy: Copy
) -> tuple[Frontier | None, Frontier | None]:
    """The three bids as `copy` shows them, and the cost beside them: with `quote.margin_percent`
    the catalogue's prices are the seller's cost, so every point is priced at sell prices (each plan
    through `sell_plan`, as the quote's own plan) for both copies, and the seller's copy keeps the
    cost frontier to print cost and margin per bid; without a margin, the frontier as found and no
    cost. The frontier searched cost prices; a uniform margin keeps its order and its knee."""
    quote = workload.quote if workload is not None else None
    margin = quote.margin_percent if quote is not None else None
    if found is None or not margin:
        return found, None
    sold = replace(found, points=[_sold(p, margin) for p in found.points])
    return sold, (found if copy == "seller" else None)
