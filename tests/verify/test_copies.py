"""Quote copies at sell prices verify: the buyer's copy with a margin and the seller's copy are
checked line by line against the catalogue's cost raised by the bid's margin, the seller's cost
lines against the catalogue's cost; a tampered price, or a margin the bid does not state, fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.reading.workload_file import load_workload
from ftopt.verify import verify_plan
from ftopt.verify.copies import cost_plan, sell_catalogue, stated_copy
from ftopt.verify.reading import load_plan_file

BID = """
name: margin-bid
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs:
  - {name: lora8b, model: llama-3.1-8b, method: lora, seq_len: 4096, train_tokens: 300000000}
quote: {customer: {name: ACME Labs}, margin_percent: 18, discount_percent: 5}
"""


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The bid and its plan file as `solve --format json` writes each copy."""
    folder = tmp_path_factory.mktemp("copies")
    bid = folder / "bid.yaml"
    bid.write_text(BID)
    out = {"bid": bid}
    for copy in ("buyer", "seller"):
        out[copy] = folder / f"{copy}.json"
        args = ["solve", str(bid), "--format", "json", "--copy", copy, "-o", str(out[copy]), "--no-what-if"]
        result = CliRunner().invoke(cli, [*args, "--time-limit", "20"])
        assert result.exit_code == 0, result.output
    return out


def _verify(bid: Path, plan: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["verify", str(bid), str(plan)])
    return result.exit_code, result.output


@pytest.mark.parametrize("copy", ["buyer", "seller"])
def test_a_copy_at_sell_prices_verifies(copies: dict[str, Path], copy: str) -> None:
    record = json.loads(copies[copy].read_text())
    catalogue = load_catalogue()
    line = record["servers"][0]["bill_of_materials"][0]
    cost = catalogue.price(line["item"]).amount
    assert line["unit_price"] == round(cost * 1.18, 2) != cost  # the file is at sell prices
    assert record["summary"]["commercial"]["copy_for"] == copy
    code, output = _verify(copies["bid"], copies[copy])
    assert code == 0, output
    assert "plan is valid" in output


def test_a_tampered_sell_price_fails_line_by_line(copies: dict[str, Path], tmp_path: Path) -> None:
    record = json.loads(copies["seller"].read_text())
    server = record["servers"][0]
    line = server["bill_of_materials"][0]
    line["unit_price"] += 100.0
    line["price"] = round(line["unit_price"] * line["quantity"], 2)
    server["price"] = round(sum(x["price"] for x in server["bill_of_materials"]), 2)
    record["total_price"] = server["price"]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    code, output = _verify(copies["bid"], tampered)
    assert code == 2 and "summary.price: the plan's own figures give" in output  # the quote disagrees
    read = load_plan_file(tampered)  # and the rules, at the bid's margin, name the line
    workload = load_workload(copies["bid"], load_catalogue())
    found = verify_plan(read.plan, workload, sell_catalogue(load_catalogue(), 18))
    assert ("bill-of-materials", f"{line['item']} at {line['unit_price']:,.2f} each") in [
        (v.rule, v.found) for v in found
    ]
    raised = sell_catalogue(load_catalogue(), 18)
    assert verify_plan(load_plan_file(copies["seller"]).plan, workload, raised) == []


def test_a_margin_the_bid_does_not_state_is_refused(copies: dict[str, Path], tmp_path: Path) -> None:
    bid = tmp_path / "bid.yaml"
    bid.write_text(BID.replace("margin_percent: 18", "margin_percent: 20"))
    code, output = _verify(bid, copies["buyer"])
    assert code != 0 and "margin_percent" in output


def test_a_cost_plan_rebuilt_from_the_catalogue_is_the_sell_plan_at_cost(copies: dict[str, Path]) -> None:
    read = load_plan_file(copies["seller"])
    catalogue = load_catalogue()
    assert stated_copy(read.summary).copy == "seller" and stated_copy(read.summary).margin_percent == 18
    assert stated_copy(None).margin_percent is None
    cost = cost_plan(read.plan, catalogue)
    for line in cost.servers[0].bill_of_materials:
        assert line.unit_price == catalogue.price(line.item).amount
    commercial = read.summary["commercial"]
    assert cost.total_price == commercial["cost"]  # the seller's copy states this cost
    card = catalogue.price("rtx-pro-6000-se").amount
    assert sell_catalogue(catalogue, 18).price("rtx-pro-6000-se").amount == round(card * 1.18, 2)
    assert sell_catalogue(catalogue, None) is catalogue
