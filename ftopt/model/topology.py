"""A server's interconnect as a networkx graph, built from its chassis and card data.

Nodes are the CPU sockets (`socket<i>`), the PCIe switches (`switch<j>`), the GPUs (`gpu<k>`), an
NVSwitch baseboard (`nvswitch`) and the NIC slots (`nic<n>`); edges carry a `link` kind (pcie,
nvlink, socket) and a `gbps` bandwidth (both directions summed). Nothing here knows a socket count
or a domain shape: the chassis declares its sockets, where each GPU slot and NIC slot attaches (a
socket or a PCIe switch), its PCIe switches and whether an NVSwitch joins its GPUs; the card
declares its PCIe and NVLink bandwidth and the bridges it accepts.

- An NVSwitch baseboard (HGX) joins every GPU to the `nvswitch` node at the card's NVLink
  bandwidth: one domain of all its GPUs, any two of them one NVSwitch hop apart.
- NVLink bridges join consecutive GPUs, `bridge_size` at a time, each pair at the card's NVLink
  bandwidth.
- A chassis whose GPU slots attach "by-domain" follows NVIDIA's reference placement: every bridged
  group hangs under one socket, groups spread evenly over the sockets, unbridged cards spread
  evenly (an 8-card two-socket server has GPUs 0–3 on socket 0 and 4–7 on socket 1; a 4-card one
  with one 4-way bridge has all four on socket 0).

NVLink domains and the bottleneck bandwidth of any GPU set are derived from this graph rather than
stated separately, so the solver's layouts and the verifier's checks rest on the same picture.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import networkx as nx

from ftopt.model.hardware import Chassis, Gpu, attach_node

#: Socket-to-socket fabric (AMD xGMI); wider than any single PCIe Gen5 x16 link, so the GPU's own
#: PCIe link stays the bottleneck of cross-socket traffic.
SOCKET_LINK_GBPS = 512.0

#: A PCIe Gen5 x16 slot, both directions summed: what a NIC slot offers its card unless the chassis
#: says otherwise (`Chassis.nic_slot_gbps`).
PCIE_GEN5_X16_GBPS = 128.0

NVSWITCH = "nvswitch"


def gpu_node(index: int) -> str:
    """Graph node name of GPU `index`."""
    return f"gpu{index}"


def nic_node(index: int) -> str:
    """Graph node name of NIC slot `index`."""
    return f"nic{index}"


def socket_of(index: int, gpu_count: int, bridge_size: int, sockets: int = 2) -> int:
    """The socket GPU `index` hangs under by the reference placement: a bridged group never
    straddles two sockets, and groups (or single cards) spread evenly over the sockets."""
    share = max(gpu_count // sockets, bridge_size, 1)
    group_start = index - index % max(bridge_size, 1)
    return min(sockets - 1, group_start // share)


@dataclass(frozen=True)
class Topology:
    """Everything the graph is built from: hashable, so that questions about it can be cached."""

    gpu_count: int
    sockets: int
    gpu_attach: tuple[str, ...]  # node each GPU's PCIe link runs to
    switches: tuple[tuple[str, float], ...]  # per PCIe switch: its socket node, uplink GB/s
    nic_attach: tuple[str, ...]  # node each NIC slot runs to
    pcie_gbps: float
    nvlink_gbps: float
    bridge_size: int  # 0: no bridges
    nvswitch: bool
    nic_gbps: float = PCIE_GEN5_X16_GBPS  # each NIC slot's host link

    @property
    def largest_domain(self) -> int:
        """GPUs in its largest NVLink domain; 0 when it has none."""
        if self.nvswitch:
            return self.gpu_count
        return self.bridge_size if self.bridge_size >= 2 else 0


def reference_topology(
    gpu_count: int,
    pcie_gbps: float,
    bridge_size: int = 0,
    nvlink_gbps: float = 0.0,
    sockets: int = 2,
    nvswitch: bool = False,
) -> Topology:
    """A server whose GPUs attach by the reference placement and has no PCIe switches or NIC slots."""
    attach = tuple(f"socket{socket_of(i, gpu_count, bridge_size, sockets)}" for i in range(gpu_count))
    return Topology(gpu_count, sockets, attach, (), (), pcie_gbps, nvlink_gbps, bridge_size, nvswitch)


def topology_of(chassis: Chassis, gpu: Gpu, bridge_size: int = 0, gpu_count: int | None = None) -> Topology:
    """The interconnect of `chassis` holding `gpu_count` (default: all its slots) `gpu` cards joined
    by bridges of `bridge_size` (0: none).

    A GPU count other than the chassis' slots (a hand-edited plan) falls back to the reference
    placement, so that the graph still exists for the rules that report the count.
    """
    count = chassis.gpu_slots if gpu_count is None else gpu_count
    nvlink = gpu.nvlink.bandwidth_gbps if gpu.nvlink else 0.0
    size = 0 if chassis.nvswitch else bridge_size
    if chassis.gpu_attach == "by-domain" or len(chassis.gpu_attach) != count:
        attach = tuple(f"socket{socket_of(i, count, size, chassis.sockets)}" for i in range(count))
    else:
        attach = tuple(attach_node(point) for point in chassis.gpu_attach)
    switches = tuple((f"socket{s.socket}", s.uplink_gbps) for s in chassis.pcie_switches)
    nics = tuple(attach_node(point) for point in chassis.nic_slots)
    return Topology(
        count,
        chassis.sockets,
        attach,
        switches,
        nics,
        gpu.pcie_gbps,
        nvlink,
        size,
        chassis.nvswitch,
        chassis.nic_slot_gbps,
    )


def largest_domain(chassis: Chassis, gpu: Gpu) -> int:
    """The largest NVLink domain `chassis` can give `gpu` cards: its NVSwitch baseboard, else the
    card's largest bridge (the bridge may exceed the slots: a 2-slot server with a 4-way-capable
    card still asks a 2-card shard to stay in one domain); 0 without NVLink."""
    if chassis.nvswitch:
        return chassis.gpu_slots
    return max(gpu.nvlink.bridge_sizes, default=0) if gpu.nvlink else 0


def build_graph(topology: Topology) -> nx.Graph:
    """The interconnect graph of a topology (a new graph: callers may annotate it)."""
    graph = nx.Graph()
    for a, b in itertools.combinations(range(topology.sockets), 2):
        graph.add_edge(f"socket{a}", f"socket{b}", link="socket", gbps=SOCKET_LINK_GBPS)
    for s in range(topology.sockets):
        graph.add_node(f"socket{s}", kind="socket", index=s)
    _add_pcie(graph, topology)
    _add_nvlink(graph, topology)
    return graph


def _add_pcie(graph: nx.Graph, topology: Topology) -> None:
    """PCIe switches under their sockets, then each GPU and NIC slot under its attachment point."""
    for j, (socket, uplink) in enumerate(topology.switches):
        graph.add_node(f"switch{j}", kind="pcie-switch", socket=int(socket.removeprefix("socket")))
        graph.add_edge(f"switch{j}", socket, link="pcie", gbps=uplink)
    for index, point in enumerate(topology.gpu_attach):
        graph.add_node(gpu_node(index), kind="gpu", index=index, socket=_socket_index(graph, point))
        graph.add_edge(gpu_node(index), point, link="pcie", gbps=topology.pcie_gbps)
    for index, point in enumerate(topology.nic_attach):
        graph.add_node(nic_node(index), kind="nic-slot", index=index, socket=_socket_index(graph, point))
        graph.add_edge(nic_node(index), point, link="pcie", gbps=topology.nic_gbps)


def _add_nvlink(graph: nx.Graph, topology: Topology) -> None:
    """NVLink: every GPU to the NVSwitch of a baseboard, else all-to-all within each bridge of
    `bridge_size` consecutive cards; none without either."""
    if topology.nvswitch:
        graph.add_node(NVSWITCH, kind="nvswitch")
        for index in range(topology.gpu_count):
            graph.add_edge(gpu_node(index), NVSWITCH, link="nvlink", gbps=topology.nvlink_gbps)
    elif topology.bridge_size >= 2:
        size = topology.bridge_size
        for start in range(0, topology.gpu_count - size + 1, size):
            for a, b in itertools.combinations(range(start, start + size), 2):
                graph.add_edge(gpu_node(a), gpu_node(b), link="nvlink", gbps=topology.nvlink_gbps)


def _socket_index(graph: nx.Graph, point: str) -> int:
    """The socket a PCIe attachment point leads to (a switch's own socket)."""
    if point.startswith("switch"):
        return int(graph.nodes[point]["socket"])
    return int(point.removeprefix("socket"))


def server_graph(
    gpu_count: int, pcie_gbps: float, bridge_size: int = 0, nvlink_gbps: float = 0.0
) -> nx.Graph:
    """The reference two-socket server with `gpu_count` cards and bridges of `bridge_size`."""
    return build_graph(reference_topology(gpu_count, pcie_gbps, bridge_size, nvlink_gbps))


def nvlink_domains(graph: nx.Graph) -> list[list[int]]:
    """GPU index lists joined by NVLink (bridges or an NVSwitch), sorted; unjoined GPUs belong to none."""
    nvlink = nx.Graph([(a, b) for a, b, link in graph.edges(data="link") if link == "nvlink"])
    domains = [
        sorted(graph.nodes[n]["index"] for n in comp if graph.nodes[n].get("kind") == "gpu")
        for comp in nx.connected_components(nvlink)
    ]
    return sorted(d for d in domains if d)


def bridged_domains(graph: nx.Graph) -> list[list[int]]:
    """The NVLink domains made by bridges (an NVSwitch baseboard's domain is not one)."""
    if NVSWITCH in graph:
        switched = set(nx.node_connected_component(graph.edge_subgraph(_nvlink_edges(graph)), NVSWITCH))
        return [d for d in nvlink_domains(graph) if gpu_node(d[0]) not in switched]
    return nvlink_domains(graph)


def _nvlink_edges(graph: nx.Graph) -> list[tuple[str, str]]:
    return [(a, b) for a, b, link in graph.edges(data="link") if link == "nvlink"]


def bottleneck_gbps(graph: nx.Graph, gpus: Iterable[int]) -> float | None:
    """The narrowest link any two of `gpus` must cross on their widest path; None for one GPU."""
    nodes = [gpu_node(i) for i in gpus]
    if len(nodes) < 2:
        return None
    widest = nx.maximum_spanning_tree(graph, weight="gbps")
    narrowest = float("inf")
    for a, b in itertools.combinations(nodes, 2):
        path = nx.shortest_path(widest, a, b)
        narrowest = min(narrowest, *(widest.edges[u, v]["gbps"] for u, v in itertools.pairwise(path)))
    return narrowest


#: What a copy's GPUs share on one server, as the plan's `link` reports it; the speed model's finer
#: *link kinds* (`ftopt.model.stack.LinkKind`: bridge size, NVSwitch, PCIe within or across sockets)
#: are another name for another thing.
Interconnect = Literal["nvlink", "pcie"]


def interconnect(graph: nx.Graph, gpus: Iterable[int]) -> Interconnect | None:
    """'nvlink' when all of `gpus` share one NVLink domain, 'pcie' when they do not, None for one GPU."""
    members = sorted(gpus)
    if len(members) < 2:
        return None
    return "nvlink" if any(set(members) <= set(d) for d in nvlink_domains(graph)) else "pcie"


@lru_cache(maxsize=4096)
def topology_profile(topology: Topology, gpus: tuple[int, ...]) -> tuple[str | None, float | None]:
    """Interconnect and bottleneck bandwidth of `gpus` in a server of this topology; cached, as a bid
    asks the same few questions thousands of times."""
    graph = build_graph(topology)
    return interconnect(graph, gpus), bottleneck_gbps(graph, gpus)


@lru_cache(maxsize=256)
def topology_domains(topology: Topology) -> tuple[tuple[int, ...], ...]:
    """NVLink domains of a server of this topology (cached)."""
    return tuple(tuple(d) for d in nvlink_domains(build_graph(topology)))


def link_profile(
    gpu_count: int, pcie_gbps: float, bridge_size: int, nvlink_gbps: float, gpus: tuple[int, ...]
) -> tuple[str | None, float | None]:
    """Link kind and bottleneck bandwidth of `gpus` in the reference server built so (cached)."""
    return topology_profile(reference_topology(gpu_count, pcie_gbps, bridge_size, nvlink_gbps), gpus)
