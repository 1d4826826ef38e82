"""Bills of materials: a server's line items, and the fabric's switches and cables.

One `line_item` prices every line, so a server's bill and the fabric's bill round the same way.
"""

from __future__ import annotations

from ftopt.model.fabric import FabricSize, cheapest_fabric
from ftopt.model.hardware import Catalogue, Nic
from ftopt.model.plan import Fabric, FabricLinks, FabricSwitch, LineItem, Server
from ftopt.solver.decode.layout import ServerLayout


def line_item(catalogue: Catalogue, item: str, name: str, quantity: int) -> LineItem:
    """One line of a bill: `quantity` units of catalogue `item` at its listed price."""
    unit = catalogue.price(item).amount
    return LineItem(item=item, name=name, quantity=quantity, unit_price=unit, price=round(unit * quantity, 2))


def bill_of_materials(catalogue: Catalogue, layout: ServerLayout) -> list[LineItem]:
    """Chassis, cards, bridges, CPUs, DIMMs, data drives, boot drive and NICs, with line prices (all
    0 on a server the customer owns: there is nothing to buy)."""
    lines = _lines(catalogue, layout)
    if layout.build.owned is None:
        return lines
    return [line.model_copy(update={"unit_price": 0.0, "price": 0.0}) for line in lines]


def _lines(catalogue: Catalogue, layout: ServerLayout) -> list[LineItem]:
    f = layout.build
    lines = [
        line_item(catalogue, f.chassis.id, f.chassis.name, 1),
        line_item(catalogue, f.gpu.id, f.gpu.name, f.gpu_count),
        line_item(catalogue, f.cpu.id, f.cpu.name, f.chassis.sockets),
        line_item(catalogue, layout.ram.dimm.id, layout.ram.dimm.name, layout.ram.count),
        line_item(catalogue, layout.disk.drive.id, layout.disk.drive.name, layout.disk.count),
        line_item(catalogue, f.boot.id, f.boot.name, 1),
    ]
    if f.bridge:
        lines.insert(2, line_item(catalogue, f.bridge.id, f.bridge.name, f.bridge_count))
    if f.nic:
        lines.append(line_item(catalogue, f.nic.id, f.nic.name, f.nic_count))
    return lines


def nic_ports(servers: list[ServerLayout]) -> dict[str, int]:
    """NIC ports of all networked servers, per NIC model."""
    ports: dict[str, int] = {}
    for s in servers:
        if s.build.nic:
            ports[s.build.nic.id] = ports.get(s.build.nic.id, 0) + s.build.nic_count * s.build.nic.ports
    return ports


def fabric_price(catalogue: Catalogue, servers: list[ServerLayout]) -> float:
    """What the least-priced fabric for the servers' NIC ports costs (0 without any). The model buys
    one fabric for one NIC model; a plan in hand that mixes models (a greedy guess) is priced as one
    fabric per model, so it never looks cheaper than it is."""
    total = 0.0
    for nic, ports in nic_ports(servers).items():
        fabric = cheapest_fabric(catalogue, catalogue.nic(nic), ports)
        total += fabric.price(catalogue) if fabric else 0.0
    return total


def build_fabric(catalogue: Catalogue, servers: list[Server]) -> Fabric | None:
    """The fabric section for the plan's networked servers: the least-priced switches and cables for
    their NIC ports (what the model's fabric counts come to), with its own bill of materials."""
    networked = [s for s in servers if s.nic and s.nic_count]
    if not networked:
        return None
    nic = _one_nic(catalogue, networked)
    ports = sum(s.nic_count * nic.ports for s in networked)
    size = cheapest_fabric(catalogue, nic, ports)
    if size is None:
        raise RuntimeError(f"internal error: no fabric for {ports} NIC ports")
    lines = _fabric_lines(catalogue, size)
    return Fabric(
        nic=nic.id,
        nics_per_server={s.id: s.nic_count for s in networked},
        nic_ports=ports,
        switches=_switches(size, ports),
        links=_links(size, ports),
        price=round(sum(line.price for line in lines), 2),
        bill_of_materials=lines,
    )


def _one_nic(catalogue: Catalogue, networked: list[Server]) -> Nic:
    """The one NIC model the networked servers share (the searches never mix two in one fabric)."""
    nic = catalogue.nic(networked[0].nic or "")
    if any(s.nic != nic.id for s in networked):
        raise RuntimeError("internal error: one fabric joins servers of one NIC model")
    return nic


def _switches(size: FabricSize, ports: int) -> list[FabricSwitch]:
    """The leaves, taking every NIC port and uplink, and the spines when there are uplinks."""
    switch = size.kit.switch
    switches = [FabricSwitch(id=switch.id, role="leaf", count=size.leaves, ports_used=ports + size.uplinks)]
    if size.spines:
        switches.append(FabricSwitch(id=switch.id, role="spine", count=size.spines, ports_used=size.uplinks))
    return switches


def _links(size: FabricSize, ports: int) -> list[FabricLinks]:
    """One link per NIC port, and the leaf–spine links when there are spines, with their cables."""
    links = [
        FabricLinks(joins="switch-nic", links=ports, cable=size.kit.nic_cable.id, cables=size.nic_cables)
    ]
    if size.uplinks:
        links.append(
            FabricLinks(
                joins="switch-switch",
                links=size.uplinks,
                cable=size.kit.link_cable.id,
                cables=size.link_cables,
            )
        )
    return links


def _fabric_lines(catalogue: Catalogue, size: FabricSize) -> list[LineItem]:
    """The fabric's bill of materials: its switches, NIC cables and leaf–spine cables."""
    kit = size.kit
    lines = [line_item(catalogue, kit.switch.id, kit.switch.name, size.leaves + size.spines)]
    lines.append(line_item(catalogue, kit.nic_cable.id, kit.nic_cable.name, size.nic_cables))
    if size.link_cables:
        lines.append(line_item(catalogue, kit.link_cable.id, kit.link_cable.name, size.link_cables))
    return lines
