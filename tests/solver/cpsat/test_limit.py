"""The server-limit family: the cap on the fleet, its plan check, its relaxation and its finding."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.model.findings import FindingKind
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import limit
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
        limit.add(model, data, v.fleet(data), _switch(model, switched_on))
        most = optimum(model, cp_model.LinearExpr.sum(v.servers()))
        assert most == expected if expected is not None else most > 1


def test_the_limit_checks_a_plan_in_hand_and_eases_to_none() -> None:
    data = problem(SMALL, max_servers=1)
    build = data.builds[0]
    assert limit.admits(data, [build]) and not limit.admits(data, [build, build])
    [eased] = limit.relax(data)
    assert eased.id == RelaxationId.SERVER_LIMIT and eased.workload.site.max_servers is None
    assert limit.relax(problem(SMALL)) == [] and limit.admits(problem(SMALL), [build] * 5)


def test_the_family_declares_its_hooks_and_nothing_it_lacks() -> None:
    family = limit.ServerLimit
    assert family.add is limit.add and family.admits is limit.admits and family.explain is limit.explain
    assert family.impossible is None and family.rack_limit is None
    assert family.relaxations == (RelaxationId.SERVER_LIMIT,) and family.verifier_rules == ("max-servers",)


def test_a_full_limit_is_a_binding_line(solve_yaml) -> None:  # type: ignore[no-untyped-def]
    plan = solve_yaml(SMALL.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"), time_limit=10)
    data = problem(SMALL, max_servers=1)
    assert [f.kind for f in limit.explain(data, plan)] == [FindingKind.SERVER_LIMIT]
    assert limit.explain(problem(SMALL, max_servers=5), plan) == []
