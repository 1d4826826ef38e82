"""The family interface: the peak and the queue model hand every registered family the same fleet."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from ortools.sat.python import cp_model

from ftopt.model.plan import Plan
from ftopt.solver.cpsat import families
from ftopt.solver.cpsat.family import Family, Fleet
from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.cpsat.queue import build_queue_model
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData, build_problem
from ftopt.solver.problem.queue import queue_problem
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL, catalogue, problem

QUEUE = """
queue: {horizon_hours: 720}
runs: [{name: lora, model: llama-3.1-8b, method: lora, jobs: 3, train_tokens: 1000000000}]
site: {feed: 230v-32a, inlet_c: 27}
hardware: {gpus: [rtx-pro-6000-se]}
"""


class OneServer:
    """Hooks of a family made up for the test: at most one server of all, in whichever model."""

    def __init__(self) -> None:
        self.seen: list[list[Build]] = []

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        self.seen.append([build for build, _ in fleet])
        model.add(sum(count for _, count in fleet) <= 1)

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        return len(builds) <= 1


def test_one_registered_family_constrains_the_peak_and_the_queue_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    family = OneServer()
    declared = Family("one-server", (), (), add=family.add, admits=family.admits)
    registered: tuple[Family, ...] = (*families.FAMILIES, declared)
    monkeypatch.setattr(families, "FAMILIES", registered)
    peak = build_formulation(problem(SMALL))
    workload = workload_from(QUEUE)
    data = build_problem(workload, catalogue())
    queue = build_queue_model(queue_problem(data, workload))
    assert len(family.seen) == 2 and all(family.seen)
    for model, servers in (
        (peak.model, peak.variables.servers()),
        (queue.model, list(queue.servers.values())),
    ):
        model.maximize(sum(servers))
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = 5
        solver.parameters.num_workers = 1
        assert solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        assert solver.objective_value == 1  # the family's cap holds in both models
    assert not families.admits(problem(SMALL), [problem(SMALL).builds[0]] * 2)


def test_the_registry_calls_only_the_hooks_a_family_has(
    monkeypatch: pytest.MonkeyPatch, solve_yaml: Callable[..., Plan]
) -> None:
    """A family with constraints alone adds no relaxation, binding line or reason: its missing hooks
    are never called (they do not exist), where a no-op method would have looked like a rule."""
    family = OneServer()
    plan = solve_yaml(SMALL, time_limit=10)
    monkeypatch.setattr(families, "FAMILIES", (Family("one-server", (), (), add=family.add),))
    data = problem(SMALL)
    assert families.relaxations(data) == [] and families.findings(data, plan) == []
    assert families.impossible(data) == [] and families.admits(data, data.builds * 3)
