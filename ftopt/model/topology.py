"""A server's interconnect as a networkx graph, and what placement needs from it.

Nodes are the two CPU sockets and the GPUs; edges carry a `link` kind (pcie, nvlink, socket) and a
`gbps` bandwidth (both directions summed). NVLink bridges join consecutive GPUs, and every bridged
group hangs under one socket (NVIDIA's reference architecture): an 8-card server with two 4-way
bridges has GPUs 0–3 on socket 0 and 4–7 on socket 1, and a 4-card server with one 4-way bridge has
all four on socket 0. Unbridged cards are spread evenly over the sockets. NVLink domains and the
bottleneck bandwidth of any GPU set are derived from this graph rather than stated separately, so
the solver's layout and the verifier's check rest on the same physical picture.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import lru_cache

import networkx as nx

#: Socket-to-socket fabric (AMD xGMI); wider than any single PCIe Gen5 x16 link, so the GPU's own
#: PCIe link stays the bottleneck of cross-socket traffic.
SOCKET_LINK_GBPS = 512.0


def gpu_node(index: int) -> str:
    """Graph node name of GPU `index`."""
    return f"gpu{index}"


def socket_of(index: int, gpu_count: int, bridge_size: int) -> int:
    """The socket GPU `index` hangs under; a bridged group never straddles two sockets."""
    half = max(gpu_count // 2, bridge_size, 1)
    group_start = index - index % max(bridge_size, 1)
    return min(1, group_start // half)


def server_graph(
    gpu_count: int, pcie_gbps: float, bridge_size: int = 0, nvlink_gbps: float = 0.0
) -> nx.Graph:
    """The interconnect of a two-socket server with `gpu_count` cards and bridges of `bridge_size`."""
    graph = nx.Graph()
    graph.add_edge("socket0", "socket1", link="socket", gbps=SOCKET_LINK_GBPS)
    for index in range(gpu_count):
        socket = socket_of(index, gpu_count, bridge_size)
        graph.add_node(gpu_node(index), kind="gpu", index=index, socket=socket)
        graph.add_edge(gpu_node(index), f"socket{socket}", link="pcie", gbps=pcie_gbps)
    if bridge_size >= 2:
        for start in range(0, gpu_count - bridge_size + 1, bridge_size):
            members = range(start, start + bridge_size)
            for a, b in itertools.combinations(members, 2):
                graph.add_edge(gpu_node(a), gpu_node(b), link="nvlink", gbps=nvlink_gbps)
    return graph


def nvlink_domains(graph: nx.Graph) -> list[list[int]]:
    """GPU index lists joined by NVLink, sorted; unbridged GPUs belong to no domain."""
    nvlink = nx.Graph([(a, b) for a, b, link in graph.edges(data="link") if link == "nvlink"])
    domains = [sorted(graph.nodes[n]["index"] for n in comp) for comp in nx.connected_components(nvlink)]
    return sorted(domains)


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


@lru_cache(maxsize=4096)
def link_profile(
    gpu_count: int, pcie_gbps: float, bridge_size: int, nvlink_gbps: float, gpus: tuple[int, ...]
) -> tuple[str | None, float | None]:
    """Link kind and bottleneck bandwidth of `gpus` in a server built so; cached, as a bid asks the
    same few questions thousands of times."""
    graph = server_graph(gpu_count, pcie_gbps, bridge_size, nvlink_gbps)
    return link_kind(graph, gpus), bottleneck_gbps(graph, gpus)


@lru_cache(maxsize=256)
def domains_of(gpu_count: int, bridge_size: int) -> tuple[tuple[int, ...], ...]:
    """NVLink domains of a server with `gpu_count` cards and bridges of `bridge_size` (cached)."""
    graph = server_graph(gpu_count, 1.0, bridge_size, 1.0)
    return tuple(tuple(d) for d in nvlink_domains(graph))


def link_kind(graph: nx.Graph, gpus: Iterable[int]) -> str | None:
    """'nvlink' when all of `gpus` share one NVLink domain, 'pcie' when they do not, None for one GPU."""
    members = sorted(gpus)
    if len(members) < 2:
        return None
    return "nvlink" if any(set(members) <= set(d) for d in nvlink_domains(graph)) else "pcie"
