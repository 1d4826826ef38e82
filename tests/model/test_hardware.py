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


def test_nic_slots_carry_a_nic_only_at_its_whole_host_link() -> None:
    """Issue 30: an 800G ConnectX-8 (PCIe Gen6) goes only on the HGX B300 board's Gen6 positions."""
    catalogue = load_catalogue()
    cx7, cx8 = catalogue.nic("cx7-400g-osfp"), catalogue.nic("cx8-800g-osfp")
    b200, b300 = catalogue.chassis_by_id("hgx-b200-8gpu"), catalogue.chassis_by_id("hgx-b300-8gpu")
    assert b200.carries(cx7) and not b200.carries(cx8)
    assert b300.carries(cx7) and b300.carries(cx8)
    assert not catalogue.chassis_by_id("gpu-server-8").carries(cx7)  # no NIC slots at all


def test_a_cpu_fits_only_a_chassis_of_its_socket_type() -> None:
    catalogue = load_catalogue()
    xeon, epyc = catalogue.cpu("xeon-6732p"), catalogue.cpu("epyc-9355")
    xe7740, generic = catalogue.chassis_by_id("dell-xe7740"), catalogue.chassis_by_id("gpu-server-8")
    assert xe7740.fits(xeon) and not xe7740.fits(epyc)
    assert generic.fits(epyc) and not generic.fits(xeon)
    assert xe7740.inlet_limit_c(catalogue.gpu("rtx-pro-6000-se")) == 35
    assert xe7740.inlet_limit_c(catalogue.gpu("h200-nvl")) == 30
    assert generic.inlet_limit_c(catalogue.gpu("rtx-pro-6000-se")) == 25


def test_stacks_plan_only_the_cards_of_their_platform() -> None:
    """Issue 30: CUDA stacks never plan an AMD Instinct card, ROCm stacks never an NVIDIA one."""
    catalogue = load_catalogue()
    mi350x, h200 = catalogue.gpu("mi350x"), catalogue.gpu("h200-nvl")
    assert mi350x.platform == "rocm" and mi350x.on_baseboard and h200.platform == "cuda"
    for stack in catalogue.stacks:
        runs_amd = stack.runs_on(mi350x.platform, mi350x.card_class)
        assert runs_amd == (stack.id in {"primus", "rocm-fsdp", "torchtune-rocm"})
        assert stack.runs_on(h200.platform, h200.card_class) != runs_amd


def test_a_stack_on_a_platform_needs_the_speed_of_its_card_classes() -> None:
    catalogue = load_catalogue()
    primus = catalogue.stack("primus")
    gddr_amd = catalogue.gpu("mi350x").model_copy(update={"id": "radeon-x", "card_class": "gddr"})
    fields = {name: getattr(catalogue, name) for name in type(catalogue).model_fields}
    prices = (*catalogue.prices, catalogue.price("mi350x").model_copy(update={"item": "radeon-x"}))
    with pytest.raises(ValueError, match="primus"):
        type(catalogue).model_validate({**fields, "gpus": (*catalogue.gpus, gddr_amd), "prices": prices})
    assert "gddr" not in primus.mfu


def test_amd_modules_form_one_all_to_all_domain_of_eight() -> None:
    from ftopt.model.topology import build_graph, nvlink_domains, topology_of

    catalogue = load_catalogue()
    chassis, gpu = catalogue.chassis_by_id("amd-mi350x-8gpu"), catalogue.gpu("mi350x")
    graph = build_graph(topology_of(chassis, gpu))
    assert nvlink_domains(graph) == [list(range(8))]


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
