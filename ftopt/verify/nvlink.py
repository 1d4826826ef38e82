"""Rules on NVLink: the bridges fit the card and fill the server, and sharded copies stay on NVLink.

The server's interconnect is rebuilt with the model layer's topology from its chassis, card, card
count and bridge size; the plan's `nvlink_domains` must be that graph's domains. An NVSwitch
baseboard (HGX) joins all its GPUs in one domain and takes no bridges. A sharded (fsdp) copy on an
NVLink card gathers its weights over the slowest link it spans, so it must lie inside one domain
when the largest domain the chassis can give the card (its NVSwitch baseboard, else the card's
largest bridge) could hold it, and otherwise span whole domains of that largest size (an eight-card
shard over two 4-way bridges, never over four 2-way ones).
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from ftopt.model.hardware import Bridge, Chassis, Gpu
from ftopt.model.plan import Assignment
from ftopt.model.topology import bridged_domains, gpu_node, interconnect, largest_domain, nvlink_domains
from ftopt.model.workload import Strategy
from ftopt.verify.context import Context, Parts, copy_subject
from ftopt.verify.violation import Violation


def check_nvlink_domains(ctx: Context) -> Iterator[Violation]:
    """The plan's NVLink domains are those its bridges make."""
    for p in ctx.servers():
        graph = ctx.graphs[p.server.id]
        if graph is None:
            continue
        expected = nvlink_domains(graph)
        stated = sorted(sorted(d) for d in p.server.nvlink_domains)
        if stated != expected:
            bridges = f"{p.server.bridge_count} × {p.server.bridge}" if p.server.bridge else "no bridges"
            if p.chassis is not None and p.chassis.nvswitch:
                bridges = f"the NVSwitch baseboard of {p.chassis.id}"
            yield Violation(
                "nvlink-domains", p.subject, f"domains {stated}", f"{bridges} make {expected or 'none'}"
            )


def _bridge_faults(p: Parts) -> Iterator[tuple[str, str]]:
    """A bridge count needs a bridge; a resolved bridge goes on no NVSwitch baseboard, fits the card
    and joins every card once (an unknown one is the catalogue-id rule's)."""
    s, bridge = p.server, p.bridge
    if s.bridge is None:
        if s.bridge_count:
            yield f"bridge_count {s.bridge_count} without a bridge", "0 when unbridged"
        return
    if bridge is None:
        return
    if p.chassis is not None and p.chassis.nvswitch:
        yield f"bridge {bridge.id} on {p.chassis.id}", "an NVSwitch baseboard takes no bridges"
        return
    yield from _bridge_fit_faults(p, bridge)
    if s.bridge_count * bridge.size != s.gpu_count:
        yield (
            f"{s.bridge_count} × {bridge.size}-way bridges for {s.gpu_count} cards",
            "the bridges join every card once",
        )


def _bridge_fit_faults(p: Parts, bridge: Bridge) -> Iterator[tuple[str, str]]:
    """The bridge is made for the server's card, in a size the card takes."""
    s, card = p.server, p.gpu
    if bridge.gpu != s.gpu:
        yield f"bridge {bridge.id}", f"it fits {bridge.gpu}, not {s.gpu}"
    elif card is not None and (card.nvlink is None or bridge.size not in card.nvlink.bridge_sizes):
        sizes = card.nvlink.bridge_sizes if card.nvlink else ()
        yield f"{bridge.size}-way bridge on {card.id}", f"card takes bridges of {list(sizes) or 'no'} cards"


def _straddling(graph: nx.Graph) -> Iterator[list[int]]:
    for domain in bridged_domains(graph):
        if len({graph.nodes[gpu_node(i)]["socket"] for i in domain}) > 1:
            yield domain


def check_bridges(ctx: Context) -> Iterator[Violation]:
    """Bridges fit the server's card, join every card once, and bridged cards share a CPU socket."""
    for p in ctx.servers():
        for found, allowed in _bridge_faults(p):
            yield Violation("bridge", p.subject, found, allowed)
        graph = ctx.graphs[p.server.id]
        for domain in _straddling(graph) if graph is not None else ():
            yield Violation("bridge", p.subject, f"bridged GPUs {domain} straddle sockets", "one socket")


def _placed_gpus(ctx: Context, a: Assignment) -> tuple[nx.Graph, set[int]] | None:
    """The server graph and the copy's GPUs, when both are well-formed (else gpu-index reports)."""
    graph = ctx.graphs.get(a.server)
    gpus = set(a.gpus)
    if graph is None or not gpus or len(gpus) != len(a.gpus):
        return None
    count = ctx.parts[a.server].server.gpu_count
    return (graph, gpus) if all(0 <= i < count for i in gpus) else None


def _shard_fault(domains: list[list[int]], gpus: set[int], largest: int, joiner: str) -> str | None:
    if len(gpus) <= largest:
        if any(gpus <= set(d) for d in domains):
            return None
        return f"stays inside one NVLink domain ({joiner} up to {largest})"
    touched = [set(d) for d in domains if gpus & set(d)]
    if all(len(d) == largest and d <= gpus for d in touched) and set().union(*touched) == gpus:
        return None
    return f"spans whole NVLink domains of {largest} cards"


def check_sharded_domains(ctx: Context) -> Iterator[Violation]:
    """Sharded copies on NVLink cards sit in one domain, or in whole domains of the largest bridge."""
    for a in ctx.plan.assignments:
        sharded = _sharded_on_nvlink(ctx, a)
        if sharded is None:
            continue
        graph, gpus, card = sharded
        chassis = ctx.parts[a.server].chassis
        largest = _largest_domain(chassis, card)
        if largest == 0:
            continue
        domains = nvlink_domains(graph)
        joiner = "the NVSwitch baseboard joins" if chassis and chassis.nvswitch else "the card's bridges join"
        fault = _shard_fault(domains, gpus, largest, joiner)
        if fault:
            yield Violation(
                "sharded-domain",
                copy_subject(a),
                f"fsdp on GPUs {sorted(gpus)} of server {a.server} (domains {domains or 'none'})",
                f"a sharded copy of {len(gpus)} {card.id} {fault}",
            )


def _sharded_on_nvlink(ctx: Context, a: Assignment) -> tuple[nx.Graph, set[int], Gpu] | None:
    """The server graph, GPUs and card of an fsdp copy on well-formed GPUs of an NVLink card (the
    copies this rule is about), else None."""
    placed = _placed_gpus(ctx, a)
    if a.strategy != Strategy.FSDP or placed is None:
        return None
    card = ctx.parts[a.server].gpu
    if card is None or card.nvlink is None:
        return None
    return placed[0], placed[1], card


def _largest_domain(chassis: Chassis | None, card: Gpu) -> int:
    """The largest NVLink domain the chassis can give the card (an unknown chassis: its largest
    bridge)."""
    if chassis is not None:
        return largest_domain(chassis, card)
    return max(card.nvlink.bridge_sizes, default=0) if card.nvlink else 0


def check_link_report(ctx: Context) -> Iterator[Violation]:
    """The link the plan reports for a copy is the one its GPUs share on the server."""
    for a in ctx.plan.assignments:
        placed = _placed_gpus(ctx, a)
        if placed is None or a.multinode:  # multi-node links: ftopt.verify.multinode
            continue
        expected = interconnect(*placed)
        if a.link != expected:
            yield Violation("link-report", copy_subject(a), f"link {a.link}", f"its GPUs share {expected}")
    yield from _link_names(ctx)


def _link_names(ctx: Context) -> Iterator[Violation]:
    """The link name a server states (what every format prints for its copies) is its card's own."""
    for p in ctx.servers():
        stated = p.server.link_name
        if stated is None or p.gpu is None:
            continue
        own = p.gpu.nvlink.name if p.gpu.nvlink else None
        if stated != own:
            yield Violation("link-report", p.subject, f"link name {stated}", f"{p.gpu.id} links over {own}")
