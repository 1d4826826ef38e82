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


@pytest.mark.parametrize(
    ("redundancy", "count", "carrying"), [("none", 2, 2), ("N+1", 4, 3), ("N+N", 4, 2), ("N+N", 6, 3)]
)
def test_supplies_that_must_carry_the_server_follow_the_redundancy(
    redundancy: str, count: int, carrying: int
) -> None:
    base = load_catalogue().chassis_by_id("gpu-server-8")
    chassis = base.model_validate(
        base.model_dump() | {"psu_redundancy": redundancy, "psu_count": count, "psu_watts": 3000}
    )
    assert chassis.psu_carrying == carrying
    assert chassis.psu_capacity_w == carrying * 3000


def test_redundant_supplies_need_a_second_supply_or_an_even_count() -> None:
    base = load_catalogue().chassis_by_id("gpu-server-8").model_dump()
    with pytest.raises(ValueError, match="N\\+N needs an even"):
        load_catalogue().chassis_by_id("gpu-server-8").model_validate(
            base | {"psu_redundancy": "N+N", "psu_count": 3}
        )
    with pytest.raises(ValueError, match="N\\+1 needs at least two"):
        load_catalogue().chassis_by_id("gpu-server-8").model_validate(
            base | {"psu_redundancy": "N+1", "psu_count": 1}
        )
