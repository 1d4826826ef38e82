"""A user's price list over the catalogue (`--prices FILE`): what it changes, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.catalogue.prices import apply_price_list, load_price_list
from ftopt.errors import InputError

#: Every price says when and where it was read.
SOURCED = '    date: "2026-12"\n    source: "a reseller quote"\n'
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "price-lists" / "stock-limited.yaml"


def test_the_list_lays_stock_and_lead_time_over_the_packaged_prices() -> None:
    catalogue = load_catalogue()
    priced = apply_price_list(catalogue, EXAMPLE)
    card = priced.price("rtx-pro-6000-se")
    assert (card.amount, card.stock) == (13250, 2)
    assert priced.price("h100-nvl").lead_weeks == 12
    untouched = next(p.item for p in catalogue.prices if p.item not in {"rtx-pro-6000-se", "h100-nvl"})
    assert priced.price(untouched) == catalogue.price(untouched)


def _refusal(tmp_path: Path, entry: str) -> InputError:
    path = tmp_path / "prices.yaml"
    path.write_text(f"prices:\n  - item: h100-nvl\n    amount: 24500\n    currency: USD\n{SOURCED}{entry}")
    with pytest.raises(InputError) as caught:
        apply_price_list(load_catalogue(), path)
    return caught.value


def test_an_item_the_catalogue_does_not_price_is_named_with_its_line(tmp_path: Path) -> None:
    err = _refusal(tmp_path, "  - item: h300-nvl\n    amount: 1\n    currency: USD\n" + SOURCED)
    assert (err.field, err.line) == ("prices[1].item", 7)
    assert "unknown item 'h300-nvl'" in err.expected


def test_a_second_currency_is_refused(tmp_path: Path) -> None:
    err = _refusal(tmp_path, "  - item: rtx-pro-6000-se\n    amount: 1\n    currency: EUR\n" + SOURCED)
    assert (err.field, err.line) == ("prices[1].currency", 9) and "expected USD" in err.expected


def test_an_astronomical_price_is_refused_before_it_reaches_the_solver(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("prices:\n  - item: h100-nvl\n    amount: 1e12\n    currency: USD\n" + SOURCED)
    with pytest.raises(InputError, match="at most 1,000,000,000 per unit"):
        load_price_list(path)
