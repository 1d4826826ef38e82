"""The quote's blocks: long lists cut to one line with the rest counted, the commercial block's rows
and totals for each copy, and the facility block's rows per rack and for the bid."""

from __future__ import annotations

import pytest

from ftopt.model.summary import LIST_LIMIT, summarised
from ftopt.quote.blocks import commercial_block, facility_block, quote_blocks
from ftopt.quote.copies import quote_copy
from tests.quote.commercial_bid import solved


def test_a_long_list_is_cut_to_a_line_and_counts_the_rest() -> None:
    names = [f"run-{i:02d}" for i in range(45)]
    line = summarised(names)
    assert line.startswith(", ".join(names[:LIST_LIMIT])) and "and 37 more (all in the appendix)" in line
    assert "run-08" not in line
    assert summarised(names[:LIST_LIMIT]) == ", ".join(names[:LIST_LIMIT])


@pytest.fixture(scope="module")
def summaries(tmp_path_factory: pytest.TempPathFactory):
    plan, workload, catalogue = solved(tmp_path_factory.mktemp("bid"))
    return {copy: quote_copy(plan, workload, catalogue, copy) for copy in ("buyer", "seller")}


def test_the_buyers_block_has_prices_only_and_the_sellers_cost_and_margin(summaries) -> None:
    _, buyer = summaries["buyer"]
    _, seller = summaries["seller"]
    b, s = commercial_block(buyer), commercial_block(seller)
    assert b is not None and s is not None
    assert [h for h, _ in b.columns] == [
        "line",
        "servers",
        "qty",
        "unit price",
        "price",
        "lead time",
        "delivery",
    ]
    assert {"unit cost", "cost", "margin"} <= {h for h, _ in s.columns}
    labels = [row[0] for row in b.foot]
    assert labels[0] == "Hardware" and labels[-1] == "Total to pay" and "Subtotal" in labels
    assert [row[0] for row in s.foot][-2:] == ["Cost of the hardware", "Margin after discount"]
    assert len(b.rows) == len(buyer.commercial.lines) + len(buyer.commercial.services)  # type: ignore[union-attr]


def test_the_facility_block_has_a_row_per_rack_and_the_bid_last(summaries) -> None:
    shown, summary = summaries["buyer"]
    assert summary.facility is not None
    block = facility_block(summary.facility)
    assert [row[0] for row in block.rows] == [r.name for r in shown.racks]
    assert block.foot[0][0] == "bid" and f"{summary.facility.bid.power_max_w:,}" in block.foot[0]
    assert "<svg" in block.figure
    assert block.columns[4][0] == summary.facility.average_label
    bid = summary.facility.bid
    weight, airflow = block.foot[0][-1], block.foot[0][-2]
    if bid.weight_lacking == len(bid.servers):  # the racked example's PCIe servers publish no weight
        assert weight.startswith("—") and f"any of {len(bid.servers)} servers" in weight
    if bid.airflow_lacking == len(bid.servers):
        assert airflow.startswith("—")
        assert all(name in block.note.split("Not published for: ")[1] for name in bid.missing)
    assert [b.id for b in quote_blocks(shown, summary)] == ["commercial", "facility"]
