"""The fabric family alone: for the NIC ports the multi-node copies bring, its least price is the
cheapest switch-and-cable tree `ftopt.model.fabric` sizes for those ports."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.model.fabric import cheapest_fabric
from ftopt.solver.cpsat.fabric import add_fabric
from ftopt.solver.cpsat.objective import cents
from ftopt.solver.cpsat.variables import add_multinode_variables, make_variables
from tests.solver.tiny import MULTINODE, SMALL, catalogue, optimum, problem


def test_no_multinode_options_no_fabric() -> None:
    data = problem(SMALL)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    assert add_fabric(model, data, v) == 0


def test_the_least_fabric_price_is_the_cheapest_tree_for_the_ports() -> None:
    data = problem(MULTINODE)
    assert data.multinode
    for option in data.multinode:
        model = cp_model.CpModel()
        v = make_variables(model, data)
        add_multinode_variables(model, data, v)
        for o in data.multinode:
            model.add(v.multinode_copies[o.mode] == (1 if o is option else 0))
        price = add_fabric(model, data, v)
        tree = cheapest_fabric(catalogue(), option.build.nic, option.ports)
        assert tree is not None
        assert optimum(model, price, maximize=False) == cents(tree.price(catalogue()))


def test_no_copies_need_no_fabric() -> None:
    data = problem(MULTINODE)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    add_multinode_variables(model, data, v)
    for x in v.multinode_copies.values():
        model.add(x == 0)
    assert optimum(model, add_fabric(model, data, v), maximize=False) == 0
