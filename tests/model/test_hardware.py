"""The catalogue types: lookups by id, prices by item, and a price overlay."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Price


def test_lookups_find_items_by_id_and_refuse_unknown_ones() -> None:
    catalogue = load_catalogue()
    assert catalogue.gpu("h200-nvl").id == "h200-nvl"
    assert catalogue.has("gpus", "h200-nvl") and not catalogue.has("gpus", "no-such-card")
    assert "h200-nvl" in catalogue.ids("gpus")
    with pytest.raises(KeyError):
        catalogue.gpu("no-such-card")


def test_an_overlay_replaces_one_items_price() -> None:
    catalogue = load_catalogue()
    overlay = Price(item="h200-nvl", amount=1.0, currency=catalogue.currency, date="2026-12", source="test")
    cheaper = catalogue.with_prices((overlay,))
    assert cheaper.price("h200-nvl").amount == 1.0
    assert cheaper.price("rtx-pro-6000-se") == catalogue.price("rtx-pro-6000-se")


def test_every_priced_item_has_a_price() -> None:
    catalogue = load_catalogue()
    for gpu in catalogue.gpus:
        assert catalogue.price(gpu.id).amount > 0
