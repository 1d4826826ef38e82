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
