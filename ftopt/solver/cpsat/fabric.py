"""Constraint family: the multi-node fabric's switches and cables, as counts.

NIC ports P_n = Σ ports per copy × copies over the options whose servers carry NIC model n. Per
switch kit s of a NIC model (radix R, at most one kit is bought: one fabric, one NIC model, per plan;
Σ_{s of n} P_s = P_n), with integer leaves L, spines S, uplinks U, cable units C and a boolean t for
two levels:

    P_s ≤ R + M·t_s                         one leaf holds at most R ports
    (R/2)·L_s ≥ P_s − M·(1 − t_s),  L_s ≥ z_s   two levels: half of each leaf's ports down
    U_s ≥ (R/2)·L_s − M'·(1 − t_s)          and half up
    R·S_s ≥ U_s                             spines for every uplink
    links·C ≥ P_s (NIC cables), links·C' ≥ U_s (leaf–spine cables)

With the price minimised these are exactly `ftopt.model.fabric.size_fabric`'s counts for P (no
enumeration of port totals is needed), and the plan's fabric is re-derived from P alone
(`ftopt.solver.decode.bills.build_fabric`).
"""

from __future__ import annotations

import math

from ortools.sat.python import cp_model

from ftopt.model.fabric import FabricKit, fabric_kits
from ftopt.model.hardware import Catalogue
from ftopt.solver.cpsat.objective import cents
from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.problem.data import ProblemData


def add_fabric(model: cp_model.CpModel, data: ProblemData, v: Variables) -> cp_model.LinearExprT:
    """The fabric's switches and cables as counts; returns their price in cents (0 without options)."""
    if not data.multinode:
        return 0
    catalogue = data.catalogue
    ports, most = _nic_ports(data, v)
    shares: dict[str, list[cp_model.IntVar]] = {nic: [] for nic in ports}
    chosen: list[cp_model.IntVar] = []
    price: list[cp_model.LinearExprT] = []
    for nic_id in sorted(n for n in ports if n):
        for kit in fabric_kits(catalogue, catalogue.nic(nic_id)):
            s = len(chosen)
            share, z, kit_price = _kit(model, catalogue, kit, most[nic_id], s)
            shares[nic_id].append(share)
            chosen.append(z)
            price += kit_price
    for nic_id, total in ports.items():
        model.add(sum(shares[nic_id]) == total)
    model.add(sum(chosen) <= 1)
    return sum(price)


def _nic_ports(data: ProblemData, v: Variables) -> tuple[dict[str, cp_model.LinearExprT], dict[str, int]]:
    """Per NIC model, the ports the multi-node copies use (an expression) and the most they could
    (every copy of their runs on that option), which sizes each kit's variables."""
    terms: dict[str, list[cp_model.LinearExprT]] = {}
    most: dict[str, int] = {}
    for o in data.multinode:
        nic = o.build.nic.id if o.build.nic else ""
        terms.setdefault(nic, []).append(o.ports * v.multinode_copies[o.mode])
        most[nic] = most.get(nic, 0) + o.ports * data.copies[data.modes[o.mode].run]
    return {nic: sum(t) for nic, t in terms.items()}, most


def _kit(
    model: cp_model.CpModel, catalogue: Catalogue, kit: FabricKit, most: int, s: int
) -> tuple[cp_model.IntVar, cp_model.IntVar, list[cp_model.LinearExprT]]:
    """One kit's port share, whether it is bought, and its price terms in cents."""
    radix, half = kit.switch.ports, kit.switch.ports // 2
    cap = min(most, radix * half)
    leaves_most = max(1, math.ceil(cap / half))
    z = model.new_bool_var(f"fabric[{s}]")
    two = model.new_bool_var(f"two_level[{s}]")
    share = model.new_int_var(0, cap, f"ports[{s}]")
    leaves = model.new_int_var(0, leaves_most, f"leaves[{s}]")
    uplinks = model.new_int_var(0, half * leaves_most, f"uplinks[{s}]")
    spines = model.new_int_var(0, math.ceil(half * leaves_most / radix), f"spines[{s}]")
    nic_cables = model.new_int_var(0, math.ceil(cap / kit.nic_cable.links), f"nic_cables[{s}]")
    link_cables = model.new_int_var(0, math.ceil(half * leaves_most / kit.link_cable.links), f"links[{s}]")
    model.add(share <= cap * z)
    model.add(two <= z)
    model.add(leaves >= z)
    model.add(share <= radix + cap * two)
    model.add(half * leaves >= share - cap * (1 - two))
    model.add(uplinks >= half * leaves - half * leaves_most * (1 - two))
    model.add(radix * spines >= uplinks)
    model.add(kit.nic_cable.links * nic_cables >= share)
    model.add(kit.link_cable.links * link_cables >= uplinks)
    switch, nic_cable, link_cable = (
        cents(catalogue.price(item).amount) for item in (kit.switch.id, kit.nic_cable.id, kit.link_cable.id)
    )
    return share, z, [switch * (leaves + spines), nic_cable * nic_cables, link_cable * link_cables]
