"""The variables alone: every count has the tightest domain the bid allows, and a multi-node copy
takes its k servers."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.variables import add_multinode_variables, make_variables
from tests.solver.tiny import MULTINODE, SMALL, optimum, problem


def test_copy_counts_are_bounded_by_the_runs_copies() -> None:
    data = problem(SMALL)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    assert set(v.light_copies) == set(data.pool)
    for (o, _), x in v.light_copies.items():
        assert list(x.proto.domain) == [0, data.copies[data.modes[o].run]]
    assert len(v.copies_by_mode()) == len(v.light_copies)
    assert len(v.all()) == len(v.plain_servers) + len(v.light_copies)


def test_a_multinode_copy_takes_its_servers() -> None:
    data = problem(MULTINODE)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    add_multinode_variables(model, data, v)
    option = data.multinode[0]
    model.add(v.multinode_copies[option.mode] == 1)
    assert optimum(model, v.multinode_servers[option.mode]) == option.nodes
