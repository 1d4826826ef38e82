"""The greedy plan as a hint: its counts are a solution of the model the search starts from."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.search.greedy import greedy_plan
from ftopt.solver.search.hint import add_hint, hint
from tests.solver.tiny import HEAVY, MULTINODE, SMALL, problem


def test_the_greedy_plans_counts_satisfy_every_constraint() -> None:
    for text in (SMALL, HEAVY, MULTINODE):
        data = problem(text)
        servers = greedy_plan(data)
        assert servers is not None
        counts = hint(data, servers)
        assert counts.complete
        built = build_formulation(data)
        built.enforce_all()
        v = built.variables
        for values, variables in (
            (counts.plain, v.plain_servers),
            (counts.light, v.light_copies),
            (counts.config, v.config_servers),
            (counts.heavy, v.heavy_copies),
            (counts.multinode, v.multinode_copies),
        ):
            for key, var in variables.items():  # fixed, not hinted: the counts must be feasible
                built.model.add(var == values.get(key, 0))  # type: ignore[call-overload]
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        assert solver.solve(built.model) == cp_model.OPTIMAL


def test_add_hint_hints_every_count() -> None:
    for text in (SMALL, MULTINODE):
        data = problem(text)
        servers = greedy_plan(data)
        assert servers is not None
        built = build_formulation(data)
        add_hint(built, hint(data, servers))
        assert len(built.model.proto.solution_hint.vars) == len(built.variables.all())
