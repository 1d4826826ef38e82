"""The quote's blocks: long lists cut to one line with the rest counted, the commercial block's rows
and totals for each copy, the facility block's rows per rack and for the bid, and what is weighed
against what it buys."""

from __future__ import annotations

import io

import pytest
import yaml
from openpyxl import load_workbook

from ftopt.catalogue import load_catalogue
from ftopt.model.findings import FindingKind
from ftopt.model.summary import LIST_LIMIT, summarised, summarize
from ftopt.model.workload import Workload
from ftopt.quote.blocks import commercial_block, facility_block, quote_blocks, weighed_block
from ftopt.quote.copies import quote_copy
from ftopt.quote.formats import QuoteOptions, render_bytes
from ftopt.solver.solve import SolveSettings, solve
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


def test_what_is_weighed_against_what_it_buys_is_a_block_every_format_prints() -> None:
    text = """
site: {feed: 400v-3p-16a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: full, model: llama-3.1-8b, method: full, optimizer: auto, offload: auto, seq_len: 4096,
        gradient_checkpointing: true, train_tokens: 100000000}]
"""
    catalogue = load_catalogue()
    workload = Workload.model_validate(yaml.safe_load(text))
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, what_if=True)).plan_or_raise()
    summary = summarize(plan, workload, catalogue)
    [sentence] = [n.text for n in plan.notes if n.kind == FindingKind.OFFLOAD_DISPROPORTION]
    block = weighed_block(summary)
    assert block is not None and block.rows == ((sentence,),)
    for fmt in ("table", "markdown", "html"):
        body = render_bytes(plan, fmt, summary, QuoteOptions()).decode("utf-8")
        assert body.count(sentence.split(":")[0]) == 1, fmt  # once: in the block, not also in the notes
    book = load_workbook(io.BytesIO(render_bytes(plan, "xlsx", summary, QuoteOptions())))
    cells = [c.value for ws in book for row in ws.iter_rows() for c in row]
    assert sentence in cells
    quiet = summarize(plan.model_copy(update={"notes": []}), workload, catalogue)
    assert weighed_block(quiet) is None


def test_the_facility_note_lists_each_source_once_in_one_sentence(summaries) -> None:
    """The chassis' sources are sentences of the catalogue; the note joins them without doubled stops."""
    _, summary = summaries["buyer"]
    assert summary.facility is not None and summary.facility.sources
    note = facility_block(summary.facility).note
    cited = note.split(" Sources: ")[1]
    assert ".;" not in cited and cited.endswith(".") and not cited.endswith("..")
    assert all(src.rstrip(". ") in cited for src in summary.facility.sources)
