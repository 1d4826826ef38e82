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


def test_a_liquid_cooled_chassis_must_name_its_coolant_limit() -> None:
    air = load_catalogue().chassis[0]
    assert air.cooling == "air" and air.coolant_max_c is None
    liquid = air.model_copy(update={"cooling": "liquid", "coolant_max_c": 45.0})
    assert type(air).model_validate(liquid.model_dump()).coolant_max_c == 45.0
    with pytest.raises(ValueError, match="coolant_max_c"):
        type(air).model_validate({**air.model_dump(), "cooling": "liquid"})
    with pytest.raises(ValueError, match="cooling: liquid only"):
        type(air).model_validate({**air.model_dump(), "coolant_max_c": 40.0})
