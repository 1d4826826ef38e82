"""`ftopt catalogue list|show|export`, with and without a user's price list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ftopt.catalogue.loader import KINDS, load_catalogue
from ftopt.cli.catalogue_cmd import find_item
from ftopt.cli.errors import CommandInputError
from ftopt.cli.main import cli
from ftopt.model.findings import money
from ftopt.model.hardware import Catalogue

OVERLAY = """\
prices:
  - item: h200-nvl
    amount: 27500
    currency: USD
    date: "2026-11"
    source: our distributor's quote
"""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["catalogue", *args])


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def error_line(result: Result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("ftopt: ")
    return lines[0]


@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(OVERLAY, encoding="utf-8")
    return path


def test_list_every_kind() -> None:
    out = ok(invoke("list"))
    for kind in KINDS:
        assert kind in out
    assert "h200-nvl" in out and "llama-3.3-70b" in out and "230v-16a" in out


@pytest.mark.parametrize("kind", KINDS)
def test_list_one_kind(kind: str) -> None:
    out = ok(invoke("list", kind))
    catalogue = load_catalogue()
    ids = [p.item for p in catalogue.prices] if kind == "prices" else catalogue.ids(kind)  # type: ignore[arg-type]
    for item_id in ids:
        assert item_id in out
    assert max(len(line) for line in out.splitlines()) <= 160


def test_list_gpus_shows_prices() -> None:
    out = ok(invoke("list", "gpus"))
    price = load_catalogue().price("h200-nvl")
    assert money(price.amount, price.currency) in out  # the one price format


def test_list_gpus_names_each_cards_own_link() -> None:
    """An AMD module's link is its maker's Infinity Fabric, not an "NVSwitch baseboard"."""
    out = ok(invoke("list", "gpus"))
    boards = [g for g in load_catalogue().gpus if g.nvlink and not g.nvlink.bridge_sizes]
    nvswitch = [g for g in boards if g.nvlink and g.nvlink.name == "NVLink"]
    assert len(nvswitch) < len(boards) and out.count("NVSwitch") == len(nvswitch)
    assert out.count("Infinity Fabric") == len(boards) - len(nvswitch)
    cards = json.loads(ok(invoke("list", "gpus", "--format", "json")))["gpus"]
    assert {g["id"]: g["nvlink"]["name"] for g in cards if g["nvlink"]}["mi300x"] == "Infinity Fabric"


def test_list_json() -> None:
    data = json.loads(ok(invoke("list", "feeds", "--format", "json")))
    assert [f["id"] for f in data["feeds"]] == list(load_catalogue().ids("feeds"))


def test_list_unknown_kind_is_a_usage_error() -> None:
    result = invoke("list", "gpu")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr


def test_show_a_card_with_price_and_sources() -> None:
    out = ok(invoke("show", "h200-nvl"))
    card = load_catalogue().gpu("h200-nvl")
    price = load_catalogue().price("h200-nvl")
    assert card.name in out
    assert money(price.amount, price.currency) in out  # the one price format
    assert "price source" in out
    assert "source 1" in out


def test_show_json() -> None:
    record = json.loads(ok(invoke("show", "h200-nvl", "--format", "json")))
    catalogue = load_catalogue()
    assert record["kind"] == "gpus"
    assert record["memory_gb"] == catalogue.gpu("h200-nvl").memory_gb
    assert record["sources"] == list(catalogue.gpu("h200-nvl").sources)
    assert record["price"] == catalogue.price("h200-nvl").model_dump(mode="json")


def test_show_a_model_with_its_parameter_counts() -> None:
    record = json.loads(ok(invoke("show", "llama-3.3-70b", "--format", "json")))
    assert record["kind"] == "models"
    assert record["params"]["total"] == 70_553_706_496
    assert "price" not in record
    assert "70,553,706,496" in ok(invoke("show", "llama-3.3-70b"))


def test_show_a_feed_with_its_usable_power() -> None:
    record = json.loads(ok(invoke("show", "230v-16a", "--format", "json")))
    assert record["usable_w"] == 2944


def test_show_unknown_id() -> None:
    line = error_line(invoke("show", "zz-card"))
    assert "unknown catalogue id 'zz-card'" in line and "did you mean" not in line
    assert line.endswith("see `ftopt catalogue list`")


def test_show_unknown_id_suggests_close_ones() -> None:
    line = error_line(invoke("show", "h200"))
    suggestions = line.split("see `ftopt")[0]
    assert "did you mean " in suggestions and "h200-nvl" in suggestions


def test_export_json() -> None:
    data = json.loads(ok(invoke("export", "--format", "json")))
    catalogue = load_catalogue()
    assert data == catalogue.model_dump(mode="json")
    assert set(data) >= set(KINDS) | {"rules"}
    assert Catalogue.model_validate(data) == catalogue


def test_export_is_json_by_default() -> None:
    assert json.loads(ok(invoke("export")))["gpus"]


def test_prices_overlay_on_export_show_and_list(overlay: Path) -> None:
    data = json.loads(ok(invoke("export", "--prices", str(overlay))))
    (h200,) = [p for p in data["prices"] if p["item"] == "h200-nvl"]
    assert h200["amount"] == 27500 and h200["source"] == "our distributor's quote"
    record = json.loads(ok(invoke("show", "h200-nvl", "--format", "json", "--prices", str(overlay))))
    assert record["price"]["amount"] == 27500
    assert "USD 27,500" in ok(invoke("list", "gpus", "--prices", str(overlay)))


def test_prices_overlay_with_a_bad_entry(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(OVERLAY.replace("currency: USD", "currency: dollars"), encoding="utf-8")
    line = error_line(invoke("export", "--prices", str(path)))
    assert line.startswith(f"ftopt: {path}:4: prices[0].currency: ")


def test_find_item_names_the_closest_ids() -> None:
    catalogue = load_catalogue()
    kind, item = find_item(catalogue, "h200-nvl")
    assert (kind, item.id) == ("gpus", "h200-nvl")  # type: ignore[attr-defined]
    with pytest.raises(CommandInputError, match="did you mean h200-nvl"):
        find_item(catalogue, "h200-nv")
