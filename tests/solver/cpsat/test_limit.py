"""The server-limit family: the cap on the fleet, its plan check, its relaxation and its finding."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.limit import ServerLimit
from ftopt.solver.cpsat.variables import make_variables
from tests.solver.tiny import SMALL, optimum, problem


def _switch(model: cp_model.CpModel, on: bool) -> cp_model.IntVar:
    literal = model.new_bool_var("switch")
    model.add(literal == int(on))
    return literal


def test_server_limit_caps_the_servers_only_when_switched_on() -> None:
    data = problem(SMALL, max_servers=1)
    for switched_on, expected in ((True, 1), (False, None)):
        model = cp_model.CpModel()
        v = make_variables(model, data)
        ServerLimit().add(model, data, v.fleet(data), _switch(model, switched_on))
        most = optimum(model, cp_model.LinearExpr.sum(v.servers()))
        assert most == expected if expected is not None else most > 1


def test_the_limit_checks_a_plan_in_hand_and_eases_to_none() -> None:
    data = problem(SMALL, max_servers=1)
    family, build = ServerLimit(), data.builds[0]
    assert family.admits(data, [build]) and not family.admits(data, [build, build])
    [(words, eased)] = family.relax(data)
    assert words == "no server limit" and eased.site.max_servers is None
    assert family.relax(problem(SMALL)) == [] and family.admits(problem(SMALL), [build] * 5)
