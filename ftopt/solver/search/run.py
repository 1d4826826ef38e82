"""Running one CP-SAT model: parameters, the price stage and the tie-break stage.

`run_model` builds the model for a `ProblemData`, minimises the price, and (when the price is
proven) re-solves with the price held to apply the tie-breaks. It returns the servers its counts
decode to, each right-sized to what it carries, with the objective and bound of the price stage.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from ftopt.model.settings import Progress, SolveSettings
from ftopt.solver.cpsat.formulation import Formulation, build_formulation
from ftopt.solver.cpsat.objective import tie_break_expression
from ftopt.solver.decode.bills import fabric_price
from ftopt.solver.decode.counts import decode
from ftopt.solver.decode.layout import ServerLayout, price_of
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.search.hint import Hint, add_hint, hint
from ftopt.solver.search.lp import MARGIN_CENTS, LpBound, lp_bound


class _Reporter(cp_model.CpSolverSolutionCallback):
    def __init__(self, on_progress: Callable[[Progress], None]) -> None:
        super().__init__()
        self._on_progress = on_progress

    def on_solution_callback(self) -> None:
        """Report the incumbent; a price is never negative, so neither is its bound (CP-SAT's bound
        at a first incumbent found before its own bounding may lie below zero: a gap over 100 %)."""
        bound = max(0.0, self.best_objective_bound / 100)
        self._on_progress(Progress(self.objective_value / 100, bound, self.wall_time))


# Full-search subsolvers, best first. First plans arrive in milliseconds; what takes the time is
# closing the last hundredth of a percent between price and bound, which needs the LP. Of CP-SAT's
# portfolio, quick restarts plus LP-guided branching ("reduced_costs") proved the heavy benchmark
# instances fastest and most steadily on 2 workers (xl-02: median 0.7 s, worst 4.2 s over 10
# seeds, against no proof in 12 s for 9 of 10 seeds with the default 2-worker portfolio, which
# spends one worker on neighbourhood search). The rest of the default portfolio follows for
# machines with more workers.
FULL_SUBSOLVERS = ("quick_restart", "reduced_costs", "default_lp", "max_lp", "pseudo_costs", "no_lp", "core")

# Longest tie-break stage, seconds. Its first hint is the priced plan and it improves fast: on the
# heavy benchmark bids (xl-02 whole and at a quarter of its copies) the plan after 0.2 s already has
# the final server count and mode preferences and differs only in the last term (memory left on
# the cards, by under a fifth of one card); proving that last term took up to 1.4 s more. Without
# the cap a 60 s limit gave this stage 3 s. Halved to 0.5 s (2026-12-05): on 500 copies of 40 runs
# (idle, 5 runs alternating with 1 s) the whole process took 4.15-5.01 s (median 4.67) against
# 5.00-6.32 s (5.35); both gave 85 servers at the proven price, and their mode mixes varied from run
# to run as much at 1 s as at 0.5 s (4 and 5 distinct mixes in 5 runs).
TIE_BREAK_CAP_S = 0.5


#: CP-SAT reports its bound as a float a hair below a whole number of cents; this much is noise.
BOUND_EPSILON = 1e-6


def proven_cents(bound: float) -> int:
    """The whole cents CP-SAT's float bound (in cents) proves: 8183999.999999999 proves 8184000."""
    return math.ceil(bound - BOUND_EPSILON)


def make_solver(
    settings: SolveSettings, time_limit: float, subsolvers: tuple[str, ...] = FULL_SUBSOLVERS
) -> cp_model.CpSolver:
    """A CP-SAT solver with the user's workers and a wall (or, if deterministic, a work) limit; with
    several workers, `subsolvers` first (none: CP-SAT's own portfolio)."""
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, settings.workers)
    if params.num_workers > 1 and subsolvers:
        params.subsolvers.extend(subsolvers)
        params.num_full_subsolvers = min(params.num_workers, len(subsolvers))
    params.random_seed = 0
    params.log_search_progress = settings.log
    if settings.deterministic:
        params.interleave_search = True
        params.max_deterministic_time = time_limit
    else:
        params.max_time_in_seconds = time_limit
    return solver


@dataclass
class Outcome:
    """What one model gave: its decoded, right-sized servers and the price stage's figures (cents)."""

    servers: list[ServerLayout] | None  # None when a decoded server fits no RAM or disk tier
    proven: bool
    objective: float
    bound: float
    fabric: float = 0.0  # price of the multi-node fabric's switches and cables
    found: bool = True  # False: the search found no plan in time (servers None, bound still valid)

    @property
    def price_cents(self) -> float:
        """Price of the servers as right-sized, in cents (infinite when they cannot be built)."""
        if self.servers is None:
            return float("inf")
        return round((price_of(self.servers) + self.fabric) * 100)


def _tie_break(
    built: Formulation, first: cp_model.CpSolver, settings: SolveSettings, seconds: float
) -> cp_model.CpSolver:
    """With the price held at its optimum, prefer fewer servers, preferred modes, free memory."""
    model = built.model
    model.clear_hints()
    for var in built.variables.all():
        model.add_hint(var, first.value(var))
    model.add(built.price <= round(first.objective_value))
    model.minimize(tie_break_expression(built.data, built.variables))
    solver = make_solver(settings, seconds)
    status = solver.solve(model)
    return solver if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else first


@dataclass(frozen=True)
class _Search:
    """How one search runs: its settings, when it must end, and who hears each plan it finds."""

    settings: SolveSettings
    deadline: float
    on_progress: Callable[[Progress], None] | None = None


def _run(data: ProblemData, search: _Search, hint: Hint | None) -> Outcome | None:
    """One CP-SAT model until the search's deadline: None when infeasible, `found` False when out of time."""
    settings, deadline, on_progress = search.settings, search.deadline, search.on_progress
    if deadline - time.perf_counter() < _build_seconds(data):
        return Outcome(None, False, float("inf"), 0.0, found=False)  # no time left to build it
    built = build_formulation(data)
    built.enforce_all()
    if hint is not None:
        add_hint(built, hint)
    solver = make_solver(settings, max(0.05, deadline - time.perf_counter()))
    status = solver.solve(built.model, _Reporter(on_progress) if on_progress else None)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"internal error: invalid CP-SAT model: {built.model.validate()}")
    if status == cp_model.INFEASIBLE:
        return None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Outcome(None, False, float("inf"), solver.best_objective_bound, found=False)
    objective, bound = solver.objective_value, solver.best_objective_bound
    proven = status == cp_model.OPTIMAL
    if proven:
        # The tie-breaks never change the price: a short, bounded search, not a second proof.
        seconds = max(0.2, min(deadline - time.perf_counter(), settings.time_limit / 20, TIE_BREAK_CAP_S))
        solver = _tie_break(built, solver, settings, seconds)
    servers = decode(data, built, solver)
    fabric = fabric_price(data.catalogue, servers) if servers else 0.0
    return Outcome(servers, proven, objective, bound, fabric)


# Heavy configurations above which the search runs on LP-selected columns (see lp.py). The
# benchmark bids have at most 704; forty distinct offloading runs have 20,000 to 40,000, of which
# CP-SAT found no plan in a minute.
MANY_CONFIGS = 2000
# Configurations the first, heuristic stage searches: those whose LP bound is lowest.
FIRST_COLUMNS = 1000
# Share of the remaining time the first stage may take.
FIRST_SHARE = 0.4


def _build_seconds(data: ProblemData) -> float:
    """A generous guess at the time building and loading a model takes (measured: about 60 µs per
    configuration, 10 µs per light pairing, on the 2-core reference machine), at least 0.1 s."""
    return 0.1 + 60e-6 * len(data.configs) + 10e-6 * len(data.pool)


def _restrict(data: ProblemData, keep: Iterable[int]) -> ProblemData:
    return replace(data, configs=[data.configs[c] for c in sorted(keep)])


def _configs_used(data: ProblemData, servers: list[ServerLayout] | None) -> set[int]:
    return set(hint(data, servers).config) if servers else set()


def run_model(
    data: ProblemData,
    settings: SolveSettings,
    deadline: float,
    on_progress: Callable[[Progress], None] | None = None,
    plan: list[ServerLayout] | None = None,
) -> Outcome | None:
    """Minimise the price of `data`'s model until `deadline`; None when the model is infeasible.

    `plan` (servers in hand, within every rule) is the search's hint and, with many heavy
    configurations, the upper bound for reduced-cost fixing: an LP picks the most promising
    configurations, CP-SAT searches those first, and the cheapest plan found then rules out every
    configuration no plan as cheap can use (lp.py); the search goes on over the rest. When the time
    runs out before a first plan, the outcome has `found` False and a valid lower bound.
    """
    lp = lp_bound(data) if len(data.configs) >= MANY_CONFIGS and plan else None
    search = _Search(settings, deadline, on_progress)
    if lp is None or plan is None:
        return _run(data, search, hint(data, plan) if plan else None)
    return _by_columns(data, search, plan, lp)


def run_pruned(
    data: ProblemData, settings: SolveSettings, deadline: float, plan: list[ServerLayout]
) -> Outcome | None:
    """`run_model` over only the configurations some plan no dearer than `plan` may use (reduced-cost
    fixing on the LP, lp.py), hinted with `plan`: for a model run to prove `plan` optimal or beat it,
    where every configuration dropped is one CP-SAT need not rule out (the sized model's proof on the
    many-checkpoint stress bid: benchmarks/scale-results.md, run 6)."""
    lp = lp_bound(data, max(0.0, deadline - time.perf_counter()))
    if lp is not None:
        upper = round((price_of(plan) + fabric_price(data.catalogue, plan)) * 100)
        data = _restrict(data, set(lp.keep(upper)) | _configs_used(data, plan))
    return _run(data, _Search(settings, deadline), hint(data, plan))


def _by_columns(data: ProblemData, search: _Search, plan: list[ServerLayout], lp: LpBound) -> Outcome | None:
    """The two stages over LP-selected columns: the most promising configurations first, then every
    configuration a plan as cheap as the best found may use (`run_model`)."""
    upper = round((price_of(plan) + fabric_price(data.catalogue, plan)) * 100)
    ranked = sorted(range(len(data.configs)), key=lambda c: lp.config_bounds[c])
    first = set(ranked[:FIRST_COLUMNS]) | _configs_used(data, plan)
    first_data = _restrict(data, first)
    stage_end = time.perf_counter() + FIRST_SHARE * max(0.0, search.deadline - time.perf_counter())
    found = _run(first_data, replace(search, deadline=stage_end), hint(first_data, plan))
    lower = math.ceil(lp.bound - MARGIN_CENTS)
    if found is not None and found.found:
        upper = min(upper, round(found.objective))
        if found.objective <= lower or (found.proven and set(lp.keep(upper)) <= first):
            return replace(found, proven=True, bound=max(found.bound, lower))
    rest = _restrict(data, lp.keep(upper))
    start = found.servers if found is not None and found.servers else plan
    second = _run(rest, search, hint(rest, start))
    return _second_stage(found, second, lower, upper)


def _second_stage(found: Outcome | None, second: Outcome | None, lower: int, upper: int) -> Outcome:
    """The second stage's outcome with the best bound known; the first stage's plan when the second
    found none in time."""
    if second is not None and second.found:
        return replace(second, bound=max(lower, min(second.bound, upper)))
    bound = max(lower, min(second.bound, upper) if second is not None else upper)
    if found is not None and found.found:
        return replace(found, proven=False, bound=bound)
    return Outcome(None, False, float("inf"), bound, found=False)
