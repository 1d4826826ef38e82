"""The library entry point: `solve(workload, catalogue) -> Plan`.

Two lexicographic stages: the cheapest price, proven optimal where time allows; then, with the
price held, the tie-breaks. Infeasible bids raise `InfeasibleError` with reasons; a time limit
without any plan raises `NoPlanInTimeError`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ortools.sat.python import cp_model

from ftopt.errors import InfeasibleError, NoPlanInTimeError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.workload import Workload
from ftopt.solver.explain import describe_core, precheck
from ftopt.solver.layout import HeavyServer, ServerLayout, lay_out_frame
from ftopt.solver.model import BuiltModel, build_model
from ftopt.solver.objective import tie_break_expression
from ftopt.solver.options import Option
from ftopt.solver.plan_builder import build_plan
from ftopt.solver.problem import ProblemData, build_problem
from ftopt.solver.whatif import binding_rules, savings


@dataclass(frozen=True)
class Progress:
    """A new incumbent: its price, the bound, and the time since the solve began."""

    price: float
    bound: float
    seconds: float

    @property
    def gap(self) -> float:
        """Relative gap to the bound."""
        return (self.price - self.bound) / self.price if self.price else 0.0


class _Reporter(cp_model.CpSolverSolutionCallback):
    def __init__(self, on_progress: Callable[[Progress], None]) -> None:
        super().__init__()
        self._on_progress = on_progress

    def on_solution_callback(self) -> None:
        self._on_progress(
            Progress(self.objective_value / 100, self.best_objective_bound / 100, self.wall_time)
        )


@dataclass(frozen=True)
class SolveSettings:
    """The few knobs a user sets."""

    time_limit: float = 60.0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)  # one per core: measured best
    deterministic: bool = False
    log: bool = False
    what_if: bool = False  # re-solve once per relaxation to report savings (whatif.py)


def _solver(settings: SolveSettings, time_limit: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, settings.workers)
    params.random_seed = 0
    params.log_search_progress = settings.log
    if settings.deterministic:
        params.interleave_search = True
        params.max_deterministic_time = time_limit
    else:
        params.max_time_in_seconds = time_limit
    return solver


def _hint_from(built: BuiltModel, solver: cp_model.CpSolver) -> None:
    model = built.model
    model.clear_hints()
    for var in _all_vars(built):
        model.add_hint(var, solver.value(var))


def _all_vars(built: BuiltModel) -> list[cp_model.IntVar]:
    v = built.variables
    return [
        *v.plain_servers.values(),
        *v.light_copies.values(),
        *v.config_servers.values(),
    ]


def _layouts(data: ProblemData, built: BuiltModel, solver: cp_model.CpSolver) -> list[ServerLayout]:
    """Concrete servers from the solution's counts, frame by frame."""
    v = built.variables
    layouts: list[ServerLayout] = []
    for f, frame in enumerate(data.frames):
        heavy = [
            HeavyServer(config.ram, config.disk, _expand(data, config.heavy), bool(config.free_blocks))
            for c, config in enumerate(data.configs)
            if config.frame == f
            for _ in range(solver.value(v.config_servers[c]))
        ]
        light = [
            data.options[o]
            for (o, ff), x in sorted(v.light_copies.items())
            if ff == f
            for _ in range(solver.value(x))
        ]
        plain = solver.value(v.plain_servers[f]) if f in v.plain_servers else 0
        layouts += lay_out_frame(frame, heavy, plain, light)
    return layouts


def _expand(data: ProblemData, counts: tuple[tuple[int, int], ...]) -> list[Option]:
    return [data.options[o] for o, count in counts for _ in range(count)]


def _infeasible(data: ProblemData, built: BuiltModel, settings: SolveSettings) -> InfeasibleError:
    """Find which runs and limits conflict, from CP-SAT's assumption core."""
    model = built.model
    model.clear_objective()
    literals = [*built.place_run.values(), built.server_limit]
    model.add_assumptions(literals)
    solver = _solver(settings, settings.time_limit)
    solver.parameters.num_workers = 1
    if solver.solve(model) != cp_model.INFEASIBLE:
        return InfeasibleError(["the runs cannot all be placed (no smaller conflict found in time)"])
    core = set(solver.sufficient_assumptions_for_infeasibility())
    runs = [r for r, lit in built.place_run.items() if lit.index in core]
    return InfeasibleError(describe_core(data, runs, built.server_limit.index in core))


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
    built = build_model(data)
    for literal in (*built.place_run.values(), built.server_limit):
        built.model.add(literal == 1)
    solver = _solver(settings, settings.time_limit)
    reporter = _Reporter(on_progress) if on_progress else None
    status = solver.solve(built.model, reporter)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"internal error: invalid CP-SAT model: {built.model.validate()}")
    if status == cp_model.INFEASIBLE:
        raise _infeasible(data, build_model(data), settings)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise NoPlanInTimeError(
            f"no plan found within the time limit of {settings.time_limit:g} s; raise --time-limit"
        )
    price, bound = solver.objective_value, solver.best_objective_bound
    proven = status == cp_model.OPTIMAL
    solver = _tie_break(built, solver, settings, started, price) if proven else solver
    layouts = _layouts(data, built, solver)
    plan = build_plan(
        data,
        layouts,
        Status.OPTIMAL if proven else Status.FEASIBLE,
        bound=bound / 100,
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


def _tie_break(
    built: BuiltModel,
    first: cp_model.CpSolver,
    settings: SolveSettings,
    started: float,
    price: float,
) -> cp_model.CpSolver:
    """With the price held at its optimum, prefer fewer servers, preferred options, free memory."""
    _hint_from(built, first)
    model = built.model
    model.add(built.price <= round(price))
    model.minimize(tie_break_expression_for(built))
    remaining = settings.time_limit - (time.perf_counter() - started)
    # The tie-breaks never change the price: a short, bounded search, not a second proof.
    solver = _solver(settings, max(0.2, min(remaining, settings.time_limit / 20)))
    status = solver.solve(model)
    return solver if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else first


def tie_break_expression_for(built: BuiltModel) -> cp_model.LinearExpr:
    """The tie-break objective of a built model (kept apart for tests)."""
    return tie_break_expression(built.data, built.variables)
