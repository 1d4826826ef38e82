"""The quote's three bids are `ftopt frontier`'s own points, searched within what the solve left."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.quote.bids import FRONTIER_POINTS, quote_bids
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_bid_without_train_tokens_has_no_frontier() -> None:
    """No run with train_tokens: no hours, so no makespan to trade price against, and no search."""
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "first-project.yaml", catalogue)
    assert all(r.train_tokens is None for r in workload.runs)
    assert quote_bids(workload, catalogue, SolveSettings(time_limit=10), budget_s=10) is None


def test_the_frontier_command_and_the_quote_search_as_many_points() -> None:
    from ftopt.cli.frontier import frontier_command

    points = next(p for p in frontier_command.params if p.name == "points")
    assert points.default == FRONTIER_POINTS


def test_with_a_margin_the_buyer_reads_the_bids_at_sell_prices_and_the_seller_cost_and_margin(
    tmp_path: Path,
) -> None:
    """The frontier searches cost prices; with `margin_percent` the buyer's three bids are sell prices
    (each point's plan through sell_plan, as the quote's own plan), no cost in sight, and the
    seller's copy adds each bid's cost and its margin in money."""
    from ftopt.model.commercial import sell_plan
    from ftopt.model.findings import money
    from ftopt.quote.bids import bids_for_copy
    from ftopt.quote.frontier import three_bids_html
    from ftopt.solver.frontier import Frontier, FrontierPoint
    from tests.quote.commercial_bid import QUOTE, solved

    plan, workload, _ = solved(tmp_path)
    point = FrontierPoint(makespan_hours=10.0, total_price=plan.total_price, tco=None, status=plan.status,
                          gap=plan.gap, plan=plan, seconds=1.0)  # fmt: skip
    found = Frontier(objective="price", points=[point], solves=1)
    sell = sell_plan(plan, QUOTE["margin_percent"]).total_price
    cost, currency = plan.total_price, plan.currency
    assert sell > cost
    buyer, none = bids_for_copy(found, workload, "buyer")
    assert none is None and buyer is not None and buyer.cheapest().total_price == sell
    page = three_bids_html(buyer)
    assert money(sell, currency) in page and money(cost, currency) not in page and "margin" not in page
    seller, at_cost = bids_for_copy(found, workload, "seller")
    assert seller is not None and at_cost is found
    page = three_bids_html(seller, at_cost)
    for figure in (sell, cost, sell - cost):
        assert money(figure, currency) in page
    # without a margin the frontier is shown as found, in both copies
    plain = workload.model_copy(update={"quote": workload.quote.model_copy(update={"margin_percent": None})})
    assert bids_for_copy(found, plain, "seller") == (found, None)
