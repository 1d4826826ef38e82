"""The library entry point: `solve(workload, catalogue) -> Plan`.

The model counts servers per build and per heavy configuration. Heavy configurations are first
priced for their heavy copies alone, an optimistic relaxation; when every server of its plan holds
what it carries with the RAM and disk bought (or right-sized at no extra cost), that plan is optimal
for the true rules. Otherwise the safe configurations, which budget for light copies, give a valid
plan, and the relaxation's bound says how far from optimal it may be. Infeasible bids raise
`InfeasibleError` with reasons; a time limit without any plan raises `NoPlanInTimeError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from ortools.sat.python import cp_model

from ftopt.errors import InfeasibleError, NoPlanInTimeError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.workload import Workload
from ftopt.solver.explain import describe_core, precheck
from ftopt.solver.model import build_model
from ftopt.solver.plan_builder import build_plan
from ftopt.solver.problem import ProblemData, build_problem
from ftopt.solver.search import Outcome, Progress, SolveSettings, make_solver, run_model
from ftopt.solver.whatif import binding_rules, savings

__all__ = ["Progress", "SolveSettings", "solve"]


def _infeasible(data: ProblemData, settings: SolveSettings) -> InfeasibleError:
    """Find which runs and limits conflict, from CP-SAT's assumption core."""
    built = build_model(data)
    model = built.model
    model.clear_objective()
    model.add_assumptions([*built.place_run.values(), built.server_limit])
    solver = make_solver(settings, settings.time_limit)
    solver.parameters.num_workers = 1
    if solver.solve(model) != cp_model.INFEASIBLE:
        return InfeasibleError(["the runs cannot all be placed (no smaller conflict found in time)"])
    core = set(solver.sufficient_assumptions_for_infeasibility())
    runs = [r for r, lit in built.place_run.items() if lit.index in core]
    return InfeasibleError(describe_core(data, runs, built.server_limit.index in core))


def _best_outcome(
    data: ProblemData,
    settings: SolveSettings,
    deadline: float,
    on_progress: Callable[[Progress], None] | None,
) -> tuple[Outcome, float]:
    """The cheapest buildable outcome and the proven lower bound on the price (cents)."""
    relaxed = run_model(data, settings, deadline, on_progress)
    if relaxed is None:
        raise _infeasible(data, settings)
    if relaxed.price_cents <= relaxed.objective or data.exact:
        return relaxed, relaxed.bound
    safe = run_model(data.with_safe_configs(), settings, deadline)
    candidates = [o for o in (relaxed, safe) if o is not None and o.servers is not None]
    if not candidates:
        raise NoPlanInTimeError("no buildable plan found in time; raise --time-limit")
    return min(candidates, key=lambda o: o.price_cents), relaxed.bound


def solve(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    workload_name: str | None = None,
) -> Plan:
    """The cheapest set of servers that holds every copy of every run at once, and where each goes."""
    settings = settings or SolveSettings()
    started = time.perf_counter()
    data = build_problem(workload, catalogue)
    reasons = precheck(data)
    if reasons:
        raise InfeasibleError(reasons)
    outcome, bound = _best_outcome(data, settings, started + settings.time_limit, on_progress)
    assert outcome.servers is not None
    proven = outcome.proven and outcome.price_cents <= bound
    plan = build_plan(
        data,
        outcome.servers,
        Status.OPTIMAL if proven else Status.FEASIBLE,
        bound=min(bound, outcome.price_cents) / 100,
        wall_seconds=time.perf_counter() - started,
        workload_name=workload_name,
    )
    return _explain_optimum(data, plan, settings, proven)


def _explain_optimum(data: ProblemData, plan: Plan, settings: SolveSettings, proven: bool) -> Plan:
    """Attach the binding rules and, when asked and the optimum is proven, what relaxations save."""
    lines = binding_rules(data, plan)
    if settings.what_if and proven:
        quick = replace(settings, time_limit=min(5.0, settings.time_limit / 4), what_if=False)
        lines += savings(data, plan, lambda eased: solve(eased, data.catalogue, quick))
    return plan.model_copy(update={"binding": lines})
