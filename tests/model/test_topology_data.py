"""Topology from chassis data: HGX baseboards, explicit attachment, and the PCIe chassis unchanged."""

from __future__ import annotations

import itertools

import pytest
from pydantic import ValidationError

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Chassis, Gpu
from ftopt.model.topology import (
    bottleneck_gbps,
    bridged_domains,
    build_graph,
    gpu_node,
    interconnect,
    largest_domain,
    nic_node,
    nvlink_domains,
    server_graph,
    topology_of,
)

CATALOGUE = load_catalogue()


def test_hgx_h200_is_one_nvswitch_domain_over_two_sockets() -> None:
    chassis, gpu = CATALOGUE.chassis_by_id("hgx-h200-8gpu"), CATALOGUE.gpu("h200-sxm")
    graph = build_graph(topology_of(chassis, gpu))
    assert nvlink_domains(graph) == [list(range(8))]
    assert bridged_domains(graph) == []
    assert [graph.nodes[gpu_node(i)]["socket"] for i in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert interconnect(graph, [3, 4]) == "nvlink"
    assert bottleneck_gbps(graph, range(8)) == 900
    assert largest_domain(chassis, gpu) == 8


def test_hgx_nic_slots_share_the_gpus_pcie_switch() -> None:
    graph = build_graph(topology_of(CATALOGUE.chassis_by_id("hgx-b200-8gpu"), CATALOGUE.gpu("b200-sxm")))
    for gpu in range(8):
        switch = next(n for n in graph[gpu_node(gpu)] if n.startswith("switch"))
        assert {nic_node(gpu), gpu_node(gpu)} <= set(graph[switch])
    assert [graph.nodes[nic_node(i)]["socket"] for i in (8, 9)] == [0, 1]


@pytest.mark.parametrize("chassis_id", ["gpu-server-2", "gpu-server-4", "gpu-server-8"])
@pytest.mark.parametrize("gpu_id", ["h200-nvl", "rtx-pro-6000-se", "h100-nvl", "l40s"])
def test_pcie_chassis_give_the_reference_graph(chassis_id: str, gpu_id: str) -> None:
    chassis, gpu = CATALOGUE.chassis_by_id(chassis_id), CATALOGUE.gpu(gpu_id)
    nvlink = gpu.nvlink.bandwidth_gbps if gpu.nvlink else 0.0
    for size in (0, *(gpu.nvlink.bridge_sizes if gpu.nvlink else ())):
        if chassis.gpu_slots % max(size, 1):
            continue
        new = build_graph(topology_of(chassis, gpu, size))
        old = server_graph(chassis.gpu_slots, gpu.pcie_gbps, size, nvlink)
        assert nvlink_domains(new) == nvlink_domains(old)
        count = chassis.gpu_slots
        assert [new.nodes[gpu_node(i)]["socket"] for i in range(count)] == [
            old.nodes[gpu_node(i)]["socket"] for i in range(count)
        ]
        for pair in itertools.combinations(range(count), 2):
            assert bottleneck_gbps(new, pair) == bottleneck_gbps(old, pair)


def test_pcie_chassis_take_no_sxm_module_and_hgx_only_its_own() -> None:
    sxm, nvl = CATALOGUE.gpu("h200-sxm"), CATALOGUE.gpu("h200-nvl")
    assert not CATALOGUE.chassis_by_id("gpu-server-8").takes(sxm)
    assert CATALOGUE.chassis_by_id("hgx-h200-8gpu").takes(sxm)
    assert not CATALOGUE.chassis_by_id("hgx-h200-8gpu").takes(nvl)
    assert not CATALOGUE.chassis_by_id("hgx-b200-8gpu").takes(sxm)


def _chassis(**update: object) -> Chassis:
    base = CATALOGUE.chassis_by_id("hgx-h200-8gpu").model_dump()
    return Chassis.model_validate(base | update)


@pytest.mark.parametrize(
    "update",
    [
        {"gpu_attach": ["switch0"] * 7},  # one entry short
        {"gpu_attach": ["switch4"] * 8},  # no such switch
        {"gpu_attach": [2] * 8},  # no such socket
        {"nic_slots": ["bus0"]},  # not an attachment point
        {"pcie_switches": [{"socket": 2}]},
        {"gpus": None},  # an NVSwitch baseboard names its modules
    ],
)
def test_inconsistent_interconnect_data_is_refused(update: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _chassis(**update)


def test_an_sxm_module_takes_no_bridge() -> None:
    data = CATALOGUE.gpu("h200-sxm").model_dump()
    with pytest.raises(ValidationError):
        Gpu.model_validate(data | {"nvlink": {"bandwidth_gbps": 900, "bridge_sizes": [2]}})


def test_socket_indices_attach_to_sockets() -> None:
    chassis = _chassis(gpu_attach=[0, 0, 0, 0, 1, 1, 1, 1], pcie_switches=[], nic_slots=[], nvswitch=True)
    graph = build_graph(topology_of(chassis, CATALOGUE.gpu("h200-sxm")))
    assert [graph.nodes[gpu_node(i)]["socket"] for i in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert set(graph["socket0"]) >= {gpu_node(i) for i in range(4)}
