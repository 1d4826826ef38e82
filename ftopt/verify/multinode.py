"""Rules on copies bigger than one server and on the fabric that joins their servers.

A multi-node copy lists its `nodes` (server and GPUs each; `server` and `gpus` are the first's). Its
servers are one build, each holding all its GPUs for the copy and nothing else, each carrying fabric
NICs; it trains fsdp (sharded over all its GPUs) or hsdp (sharded inside each server), which the
memory rules re-size at that shard count (`Context.sizing`). The plan's `fabric` must have switch
ports for every NIC port and, with spines, for every leaf–spine link (leaves with half their ports
up, non-blocking), cables for every link, and a price that is the sum of its lines at the price
list's unit prices. The arithmetic is re-derived here from the plan's ids and counts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Assignment, Fabric, FabricSwitch, LineItem, Node
from ftopt.model.workload import MULTI_NODE_COUNTS, Offload, Strategy
from ftopt.verify.context import Context, Parts, copy_subject
from ftopt.verify.violation import PRICE_TOLERANCE, Violation, close, money

NETWORK = "network"


def _multinode(ctx: Context) -> Iterator[Assignment]:
    yield from (a for a in ctx.plan.assignments if a.multinode)


def _build_of(ctx: Context, server_id: str) -> tuple[object, ...] | None:
    p = ctx.parts.get(server_id)
    if p is None:
        return None
    s = p.server
    return (s.chassis, s.gpu, s.gpu_count, s.cpu, s.bridge, s.gpu_power_cap_w, s.nic, s.nic_count)


def _node_faults(ctx: Context, a: Assignment) -> Iterator[tuple[str, str]]:
    first = a.nodes[0]
    if (first.server, first.gpus) != (a.server, a.gpus):
        yield f"server {a.server} GPUs {a.gpus}", f"the first node's: {first.server} {first.gpus}"
    yield from _server_faults(ctx, [n.server for n in a.nodes])
    if a.gpu_count not in MULTI_NODE_COUNTS:
        yield f"{a.gpu_count} GPUs over {len(a.nodes)} servers", f"{', '.join(map(str, MULTI_NODE_COUNTS))}"
    if a.link != NETWORK:
        yield f"link {a.link}", f"its servers talk over the {NETWORK}"


def _server_faults(ctx: Context, servers: list[str]) -> Iterator[tuple[str, str]]:
    """The nodes' servers are distinct servers of the plan, all of one build (one speed, one shard)."""
    twice = sorted(s for s, n in Counter(servers).items() if n > 1)
    if twice:
        yield f"server {', '.join(twice)} listed twice", "each node a different server"
    missing = [s for s in servers if s not in ctx.parts]
    if missing:
        yield f"node on server {missing[0]!r}", "no such server in the plan"
    builds = {_build_of(ctx, s) for s in servers if s in ctx.parts}
    if len(builds) > 1:
        yield f"nodes on {len(builds)} different builds", "every node the same build"


def check_multinode_nodes(ctx: Context) -> Iterator[Violation]:
    """A multi-node copy's nodes are distinct servers of the plan, all of one build, the first being
    its `server` and `gpus`; it takes a multi-node GPU count and reports the network as its link."""
    for a in _multinode(ctx):
        for found, allowed in _node_faults(ctx, a):
            yield Violation("multinode-nodes", copy_subject(a), found, allowed)


def _holders(ctx: Context) -> dict[str, list[Assignment]]:
    """The copies each server holds, a multi-node copy listed on every server it spans."""
    holders: dict[str, list[Assignment]] = {}
    for a in ctx.plan.assignments:
        for server in dict.fromkeys(n.server for n in a.nodes) if a.multinode else (a.server,):
            holders.setdefault(server, []).append(a)
    return holders


def check_whole_servers(ctx: Context) -> Iterator[Violation]:
    """Every node holds all its server's GPUs for the copy, and no other copy trains there meanwhile."""
    holders = _holders(ctx)
    for a in _multinode(ctx):
        for node in a.nodes:
            p = ctx.parts.get(node.server)
            if p is None:
                continue
            for found, allowed in _whole_server_faults(ctx, a, node, p, holders.get(node.server, [])):
                yield Violation("multinode-servers", copy_subject(a), found, allowed)


def _whole_server_faults(
    ctx: Context, a: Assignment, node: Node, p: Parts, holders: list[Assignment]
) -> Iterator[tuple[str, str]]:
    """One node's faults: a part of its server's GPUs, or a server shared with another copy at once."""
    if sorted(node.gpus) != list(range(p.server.gpu_count)):
        yield f"GPUs {node.gpus} of server {node.server}", f"all its {p.server.gpu_count} GPUs"
    others = [copy_subject(b) for b in holders if b is not a and ctx.overlap(a, b)]
    if others:
        yield (
            f"server {node.server} also holds {', '.join(others)}",
            "a multi-node copy's servers hold nothing else",
        )


def check_multinode_strategy(ctx: Context) -> Iterator[Violation]:
    """Multi-node copies shard (fsdp over all GPUs, hsdp inside each server) without CPU offload;
    hsdp only over several servers."""
    for a in ctx.plan.assignments:
        if a.multinode and (a.strategy not in (Strategy.FSDP, Strategy.HSDP) or a.offload != Offload.NONE):
            yield Violation(
                "multinode-strategy",
                copy_subject(a),
                f"{a.strategy}, offload {a.offload} over {len(a.nodes)} servers",
                "fsdp or hsdp, offload none",
            )
        elif not a.multinode and a.strategy == Strategy.HSDP:
            yield Violation("multinode-strategy", copy_subject(a), "hsdp on one server", "hsdp spans servers")


def check_nics(ctx: Context) -> Iterator[Violation]:
    """Servers of multi-node copies carry catalogue NICs, one per GPU or per NIC slot of the chassis,
    of a model whose host link the chassis' NIC slots carry in full."""
    nodes = {n.server for a in _multinode(ctx) for n in a.nodes} | {
        s for a in _multinode(ctx) for s in a.spares
    }
    for p in ctx.servers():
        for found, allowed in _nic_faults(p, p.server.id in nodes):
            yield Violation("nic", p.subject, found, allowed)


def _nic_faults(p: Parts, networked: bool) -> Iterator[tuple[str, str]]:
    """One server's NIC faults; an unknown model is the only one (its figures are unknown)."""
    if p.server.nic is not None and p.nic is None:
        yield f"nic {p.server.nic!r}", "no such NIC in the catalogue"
        return
    if p.nic is not None and p.chassis is not None and p.nic.pcie_gbps > p.chassis.nic_slot_gbps:
        yield (
            f"{p.nic.id} ({p.nic.pcie_gbps:g} GB/s host link)",
            f"{p.chassis.id}'s NIC slots carry {p.chassis.nic_slot_gbps:g} GB/s",
        )
    yield from _nic_count_faults(p, networked)


def _nic_count_faults(p: Parts, networked: bool) -> Iterator[tuple[str, str]]:
    """A node carries one NIC per GPU, capped by its chassis' NIC slots; any server at most its slots."""
    s = p.server
    slots = len(p.chassis.nic_slots) if p.chassis else s.nic_count
    want = min(s.gpu_count, slots)
    if networked and (s.nic is None or s.nic_count != want or want == 0):
        found = f"{s.nic_count} × {s.nic}" if s.nic else "no fabric NICs"
        yield found, f"a multi-node server carries {want} (one per GPU, ≤ NIC slots)"
    elif s.nic_count > slots:
        yield f"{s.nic_count} NICs", f"{s.chassis} has {slots} NIC slots"


def _port_faults(ctx: Context, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """The fabric's counts against the servers' NICs, then its switches and cables; switches not in
    the catalogue end the check (their ports are unknown)."""
    networked = {p.server.id: p for p in ctx.servers() if p.server.nic_count and p.nic is not None}
    ports = sum(p.server.nic_count * p.nic.ports for p in networked.values() if p.nic)
    yield from _nic_port_faults(fabric, networked, ports)
    roles = {sw.role: sw for sw in fabric.switches}
    leaf, spine = roles.get("leaf"), roles.get("spine")
    if leaf is None or not _catalogued(ctx.catalogue, leaf, spine):
        yield (
            "switches " + ", ".join(f"{sw.count} × {sw.id} ({sw.role})" for sw in fabric.switches),
            ("catalogue leaf switches, and spines of a catalogue model"),
        )
        return
    yield from _switch_faults(ctx.catalogue, leaf, spine, ports, _up_links(fabric))
    yield from _cable_faults(ctx.catalogue, fabric)


def _up_links(fabric: Fabric) -> int:
    """The fabric's leaf–spine links (0 without spines)."""
    up = {group.joins: group for group in fabric.links}.get("switch-switch")
    return up.links if up else 0


def _nic_port_faults(fabric: Fabric, networked: dict[str, Parts], ports: int) -> Iterator[tuple[str, str]]:
    """The fabric states the servers' NIC ports and NICs, and links every NIC port to a leaf."""
    if fabric.nic_ports != ports:
        yield f"nic_ports {fabric.nic_ports}", f"the servers' NICs have {ports} ports"
    stated = {k: v for k, v in fabric.nics_per_server.items() if v}
    if stated != {sid: p.server.nic_count for sid, p in networked.items()}:
        yield f"nics_per_server {stated}", "the servers' nic_count"
    down = {group.joins: group for group in fabric.links}.get("switch-nic")
    if down is None or down.links != ports:
        yield f"{down.links if down else 0} NIC links", f"one per NIC port: {ports}"


def _catalogued(c: Catalogue, leaf: FabricSwitch, spine: FabricSwitch | None) -> bool:
    """The leaf model, and the spine model if any, are catalogue switches."""
    return c.has("switches", leaf.id) and (spine is None or c.has("switches", spine.id))


def _switch_faults(
    c: Catalogue, leaf: FabricSwitch, spine: FabricSwitch | None, ports: int, up_links: int
) -> Iterator[tuple[str, str]]:
    """Leaves have ports for every NIC port and uplink; several leaves need spines, which take
    half of every leaf's ports (non-blocking) and have ports for every uplink."""
    radix = c.switch(leaf.id).ports
    if leaf.count * radix < ports + up_links:
        yield (
            f"{leaf.count} × {leaf.id} leaves ({leaf.count * radix} ports)",
            f"{ports + up_links} ports in use",
        )
    if spine is None and (leaf.count > 1 or up_links):
        yield f"{leaf.count} leaves without spines", "one leaf, or leaves joined by spines"
    if spine is None:
        return
    if up_links < ports or up_links < leaf.count * (radix // 2):
        yield f"{up_links} leaf–spine links", f"non-blocking: half of every leaf's ports, ≥ {ports}"
    if spine.count * c.switch(spine.id).ports < up_links:
        yield f"{spine.count} × {spine.id} spines", f"ports for {up_links} uplinks"


def _cable_faults(c: Catalogue, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """Every link group's cables are a catalogue cable joining those ends, enough for its links."""
    for group in fabric.links:
        cable = c.cable(group.cable) if c.has("cables", group.cable) else None
        if cable is None or cable.joins != group.joins or group.cables * cable.links < group.links:
            carried = group.cables * cable.links if cable else 0
            yield f"{group.cables} × {group.cable} for {group.links} {group.joins} links", f"carry {carried}"


def check_fabric_ports(ctx: Context) -> Iterator[Violation]:
    """A plan with multi-node copies has a fabric whose switch ports hold every NIC port and, with
    spines, every leaf–spine link (non-blocking), with cables for every link."""
    fabric = ctx.plan.fabric
    if fabric is None:
        if any(True for _ in _multinode(ctx)):
            yield Violation("fabric-ports", "plan", "no fabric", "multi-node copies need one")
        return
    for found, allowed in (*_port_faults(ctx, fabric), *_rate_faults(ctx, fabric)):
        yield Violation("fabric-ports", "fabric", found, allowed)


def _rate_faults(ctx: Context, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """The switches' ports run at the rate of every NIC they take (one NIC model's fabric)."""
    c = ctx.catalogue
    rates = {p.nic.port_gbits for p in ctx.servers() if p.server.nic_count and p.nic is not None}
    for sw in fabric.switches:
        rate = c.switch(sw.id).port_gbits if c.has("switches", sw.id) else None
        if rate is not None and rates and rates != {rate}:
            yield f"{sw.id} ports at {rate} Gb/s", f"the NICs' rate, {sorted(rates)} Gb/s"


def _expected_lines(fabric: Fabric) -> Counter[str]:
    quantities: Counter[str] = Counter()
    for sw in fabric.switches:
        quantities[sw.id] += sw.count
    for group in fabric.links:
        quantities[group.cable] += group.cables
    return quantities


def check_fabric_price(ctx: Context) -> Iterator[Violation]:
    """The fabric's lines are its switches and cables at price-list unit prices, and its price their sum."""
    fabric = ctx.plan.fabric
    if fabric is None:
        return
    billed: Counter[str] = Counter()
    for line in fabric.bill_of_materials:
        billed[line.item] += line.quantity
        for found, allowed in _bill_line_faults(ctx, line):
            yield Violation("fabric-price", "fabric", found, allowed)
    expected = _expected_lines(fabric)
    for item in sorted(set(billed) | set(expected)):
        if billed[item] != expected[item]:
            yield Violation(
                "fabric-price", "fabric", f"{billed[item]} × {item} billed", f"it has {expected[item]}"
            )
    total = sum(line.price for line in fabric.bill_of_materials)
    if not close(fabric.price, total, PRICE_TOLERANCE) or math.isnan(fabric.price):
        yield Violation("fabric-price", "fabric", money(fabric.price), f"its lines sum to {money(total)}")


def _bill_line_faults(ctx: Context, line: LineItem) -> Iterator[tuple[str, str]]:
    """A fabric line's unit price is the price list's, and its price is quantity × unit."""
    unit = ctx.catalogue.price(line.item).amount if _priced(ctx, line.item) else None
    if unit is None or not close(line.unit_price, unit, PRICE_TOLERANCE):
        wanted = f"price list says {money(unit)}" if unit is not None else "no such priced item"
        yield f"{line.item} at {money(line.unit_price)}", wanted
    if not close(line.price, line.unit_price * line.quantity, PRICE_TOLERANCE):
        yield f"{line.item} line {money(line.price)}", f"{line.quantity} × unit"


def _priced(ctx: Context, item: str) -> bool:
    try:
        ctx.catalogue.price(item)
    except KeyError:
        return False
    return True
