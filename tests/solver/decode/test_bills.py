"""Bills of materials: one line per part at the price list's unit price, and the fabric's ports."""

from __future__ import annotations

from ftopt.solver.decode.bills import bill_of_materials, line_item, nic_ports
from ftopt.solver.decode.layout import ServerLayout, price_of
from tests.solver.tiny import MULTINODE, SMALL, catalogue, problem


def test_a_line_is_quantity_times_the_listed_price() -> None:
    line = line_item(catalogue(), "h200-nvl", "H200 NVL", 3)
    unit = catalogue().price("h200-nvl").amount
    assert (line.unit_price, line.price, line.quantity) == (unit, round(3 * unit, 2), 3)


def test_a_servers_bill_sums_to_its_price() -> None:
    for build in problem(SMALL).builds:
        layout = ServerLayout(build, build.ram, build.disk)
        lines = bill_of_materials(catalogue(), layout)
        assert abs(sum(line.price for line in lines) - price_of([layout])) < 0.01
        assert {line.item for line in lines} >= {build.chassis.id, build.gpu.id, build.cpu.id}


def test_only_networked_servers_bring_nic_ports() -> None:
    plain = [ServerLayout(b, b.ram, b.disk) for b in problem(SMALL).builds]
    assert nic_ports(plain) == {}
    option = problem(MULTINODE).multinode[0]
    networked = [ServerLayout(option.build, option.ram, option.disk)] * option.nodes
    assert option.build.nic is not None and option.ports > 0
    assert nic_ports(networked) == {option.build.nic.id: option.ports}
