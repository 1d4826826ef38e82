"""Constraint family: the multi-node fabric's switches and cables, as counts.

NIC ports P = Σ ports per copy × copies. Per switch kit s (radix R, at most one kit is bought), with
integer leaves L, spines S, uplinks U, cable units C and a boolean t for two levels:

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

from ftopt.model.fabric import fabric_kits
from ftopt.solver.cpsat.objective import cents
from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.problem.data import ProblemData


def add_fabric(model: cp_model.CpModel, data: ProblemData, v: Variables) -> cp_model.LinearExprT:
    """The fabric's switches and cables as counts; returns their price in cents (0 without options)."""
    if not data.multinode:
        return 0
    catalogue = data.catalogue
    terms = [
        (o.ports, v.multinode_copies[o.mode], data.copies[data.modes[o.mode].run]) for o in data.multinode
    ]
    most = sum(ports * copies for ports, _, copies in terms)
    ports = sum(p * x for p, x, _ in terms)
    shares, chosen, price = [], [], []
    for s, kit in enumerate(fabric_kits(catalogue)):
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
        link_cables = model.new_int_var(
            0, math.ceil(half * leaves_most / kit.link_cable.links), f"links[{s}]"
        )
        model.add(share <= cap * z)
        model.add(two <= z)
        model.add(leaves >= z)
        model.add(share <= radix + cap * two)
        model.add(half * leaves >= share - cap * (1 - two))
        model.add(uplinks >= half * leaves - half * leaves_most * (1 - two))
        model.add(radix * spines >= uplinks)
        model.add(kit.nic_cable.links * nic_cables >= share)
        model.add(kit.link_cable.links * link_cables >= uplinks)
        shares.append(share)
        chosen.append(z)
        price += [
            cents(catalogue.price(kit.switch.id).amount) * (leaves + spines),
            cents(catalogue.price(kit.nic_cable.id).amount) * nic_cables,
            cents(catalogue.price(kit.link_cable.id).amount) * link_cables,
        ]
    model.add(sum(shares) == ports)
    model.add(sum(chosen) <= 1)
    return sum(price)
