"""The server interconnect graph: NVLink domains, sockets, bottlenecks, link kinds."""

from __future__ import annotations

import itertools

import pytest

from ftopt.model.hardware import Gpu
from ftopt.model.sizing import intended_link
from ftopt.model.topology import (
    SOCKET_LINK_GBPS,
    bottleneck_gbps,
    gpu_node,
    interconnect,
    nvlink_domains,
    server_graph,
)

PCIE, NVLINK = 128.0, 900.0


def sockets(graph, count: int) -> list[int]:
    return [graph.nodes[gpu_node(i)]["socket"] for i in range(count)]


def test_eight_cards_two_4way_bridges() -> None:
    g = server_graph(8, PCIE, bridge_size=4, nvlink_gbps=NVLINK)
    assert nvlink_domains(g) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert sockets(g, 8) == [0, 0, 0, 0, 1, 1, 1, 1]


def test_eight_cards_four_2way_bridges() -> None:
    g = server_graph(8, PCIE, bridge_size=2, nvlink_gbps=NVLINK)
    assert nvlink_domains(g) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert sockets(g, 8) == [0, 0, 0, 0, 1, 1, 1, 1]


def test_four_cards_one_4way_bridge_all_under_socket_0() -> None:
    g = server_graph(4, PCIE, bridge_size=4, nvlink_gbps=NVLINK)
    assert nvlink_domains(g) == [[0, 1, 2, 3]]
    assert sockets(g, 4) == [0, 0, 0, 0]


def test_unbridged_cards_spread_over_sockets_without_domains() -> None:
    g = server_graph(4, PCIE)
    assert nvlink_domains(g) == []
    assert sockets(g, 4) == [0, 0, 1, 1]


@pytest.mark.parametrize(("count", "bridge"), [(2, 2), (4, 2), (4, 4), (8, 2), (8, 4)])
def test_no_bridge_straddles_two_sockets(count: int, bridge: int) -> None:
    g = server_graph(count, PCIE, bridge_size=bridge, nvlink_gbps=NVLINK)
    domains = nvlink_domains(g)
    assert sum(len(d) for d in domains) == count
    assert all(len(d) == bridge for d in domains)
    for domain in domains:
        assert len({g.nodes[gpu_node(i)]["socket"] for i in domain}) == 1


def test_bottleneck_inside_and_across_domains() -> None:
    g = server_graph(8, PCIE, bridge_size=4, nvlink_gbps=NVLINK)
    assert bottleneck_gbps(g, [0, 1]) == NVLINK
    assert bottleneck_gbps(g, [0, 1, 2, 3]) == NVLINK
    # across domains: gpu3 –PCIe→ socket0 –xGMI→ socket1 –PCIe→ gpu4; the GPU's PCIe link is narrowest
    assert bottleneck_gbps(g, [3, 4]) == PCIE
    assert bottleneck_gbps(g, range(8)) == PCIE
    assert SOCKET_LINK_GBPS > PCIE
    assert bottleneck_gbps(g, [5]) is None


def test_bottleneck_without_nvlink_is_pcie() -> None:
    g = server_graph(8, PCIE)
    for pair in itertools.combinations(range(8), 2):
        assert bottleneck_gbps(g, pair) == PCIE


def test_interconnect() -> None:
    g = server_graph(8, PCIE, bridge_size=4, nvlink_gbps=NVLINK)
    assert interconnect(g, [0, 1]) == "nvlink"
    assert interconnect(g, [4, 5, 6, 7]) == "nvlink"
    assert interconnect(g, [2, 5]) == "pcie"
    assert interconnect(g, range(8)) == "pcie"
    assert interconnect(g, [0]) is None
    assert interconnect(server_graph(8, PCIE), [0, 1]) == "pcie"


@pytest.mark.parametrize(
    ("gpus", "kind", "gbps"),
    [(1, None, None), (2, "nvlink", NVLINK), (4, "nvlink", NVLINK), (8, "pcie", PCIE)],
)
def test_intended_link_bridged_card(bridged_gpu: Gpu, gpus: int, kind: str | None, gbps) -> None:
    # up to 4 cards share one 4-way bridge; 8 span two domains over PCIe
    assert intended_link(bridged_gpu, gpus) == (kind, gbps)


@pytest.mark.parametrize("gpus", [2, 4, 8])
def test_intended_link_pcie_card(pcie_gpu: Gpu, gpus: int) -> None:
    assert intended_link(pcie_gpu, gpus) == ("pcie", PCIE)
