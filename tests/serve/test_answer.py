"""One solve's answer as a worker computes it: the CLI's plan and quote, or the CLI's one line."""

from __future__ import annotations

import json

import pytest

from ftopt.model.findings import money
from ftopt.model.plan import Plan
from ftopt.serve.answer import answer
from ftopt.serve.solve_request import SolveRequest
from tests.serve.conftest import FEED_BOUND


def test_a_solved_bid_carries_its_plan_and_the_quote_of_that_plan() -> None:
    found = answer(SolveRequest(FEED_BOUND, time_limit=10, what_if=False, frontier=False))
    assert found["state"] == "done" and found["frontier"] is None
    plan = Plan.model_validate(json.loads(found["plan"]))
    assert (found["price"], found["bound"], found["gap"]) == (plan.total_price, plan.bound, plan.gap)
    assert f"{plan.total_price:,.0f}" in found["quote_html"]


def test_a_bid_no_plan_can_meet_fails_with_the_clis_reason() -> None:
    impossible = FEED_BOUND.replace("inlet_c: 25", "inlet_c: 60")
    found = answer(SolveRequest(impossible, time_limit=10, frontier=False))
    assert found["state"] == "failed"
    assert found["error"].startswith("no plan exists: site inlet 60 °C rules out h200-nvl")
    assert "\n" not in found["error"]


def bids(page: str) -> str:
    """The three-bids section of an HTML quote."""
    return page.split('id="three-bids"')[1].split("</section>")[0]


def test_a_queue_bid_gets_its_frontier_with_each_points_proof() -> None:
    """The workbench said a frontier "is not available" for queue bids: it now searches one, its time
    axis the last job's end, each point with its status, gap and whether it is proven."""
    from pathlib import Path

    queue = (Path(__file__).resolve().parents[2] / "examples" / "monthly-queue.yaml").read_text()
    queue += "\nquote:\n  margin_percent: 18\n"
    found = answer(SolveRequest(queue, time_limit=20, what_if=False, frontier=True))
    assert found["state"] == "done" and found["frontier"] is not None
    points = json.loads(found["frontier"])
    plan = Plan.model_validate(json.loads(found["plan"]))
    assert points and max(p["total_price"] for p in points) >= plan.total_price
    assert min(p["total_price"] for p in points) <= plan.total_price  # never dearer than the plan
    for p in points:
        assert p["proven"] == (p["status"] == "optimal" and not p["gap"])
    # both copies carry the three bids: the buyer's at sell prices, the seller's with cost and margin
    buyer, seller = found["quote_html"], found["seller_html"]
    assert 'id="three-bids"' in buyer and 'id="three-bids"' in seller
    assert "<th class=num>cost</th>" not in bids(buyer) and "<th class=num>margin</th>" in bids(seller)
    for p in points:  # each point at cost (the stored plan's prices) and as the buyer's copy shows it
        assert p["sell_price"] == pytest.approx(p["total_price"] * 1.18, rel=1e-4)
    fastest = min(points, key=lambda p: p["makespan_hours"])  # the quote's "fastest" bid
    sell, cost = (money(fastest[k], fastest["currency"]) for k in ("sell_price", "total_price"))
    assert sell in bids(buyer) and cost not in bids(buyer) and cost in bids(seller)
