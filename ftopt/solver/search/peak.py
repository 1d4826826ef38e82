"""Peak mode's search: the cheapest servers that hold every copy of every run at once.

The model counts servers per build and per heavy configuration. Heavy configurations are first
priced for their heavy copies alone, an optimistic relaxation; when every server of its plan holds
what it carries with the RAM and disk bought (or right-sized at no extra cost), that plan is optimal
for the true rules. Otherwise the safe configurations, which budget for light copies, give a valid
plan, and the relaxation's bound says how far from optimal it may be.

Why a module of its own: the solve (`ftopt.solver.solve`) picks a strategy, peak or queue, and
finishes whatever plan it returns in one step; the queue strategy starts from the peak bid. Both
strategies call this search, so the data walk goes down the layers: solve → strategy → search →
decode, never back up into the solve.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from ftopt.errors import NoPlanInTimeError
from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.settings import Progress, SolveSettings
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.families import admits
from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.decode.bills import fabric_price
from ftopt.solver.decode.layout import ServerLayout, price_of
from ftopt.solver.decode.plan_builder import build_plan
from ftopt.solver.explain.reasons import describe_core, precheck
from ftopt.solver.problem.data import ProblemData, build_problem
from ftopt.solver.search.greedy import greedy_plan
from ftopt.solver.search.lp import price_floor
from ftopt.solver.search.run import Outcome, make_solver, proven_cents, run_model, run_pruned

#: Longest single-worker feasibility pass when the greedy plan breaks the server limit, seconds.
QUICK_CHECK_S = 5.0
#: Least time left, seconds, for the sized model to be worth enumerating and building: below it the
#: optimistic bound stands. Enumerating and building take 0.1-0.2 s on the stress bids (ckpt, heavy2),
#: so a second leaves most of it to the search; the proof itself took 5-9 s there.
SIZED_LEAST_S = 1.0
#: Longest search for the smallest conflicting set of runs, once the bid is known impossible, seconds.
CORE_S = 2.0


#: A strategy's search for the next cheapest plans after `first`: up to `n` in `seconds`, each with
#: its status and bound set and whether it is proven the next cheapest, and whether time ran out.
Alternatives = Callable[[Plan, int, float], tuple[list[tuple[Plan, bool]], bool]]


@dataclass(frozen=True)
class Searched:
    """What a strategy (peak or queue) hands the finish step: the plan, or the status and reasons
    why there is none; the problem data its explanations are read from; and, at peak, the servers
    the alternatives are cut from."""

    status: Status
    plan: Plan | None = None
    data: ProblemData | None = None
    reasons: tuple[Finding, ...] = ()
    servers: list[ServerLayout] | None = None
    build_s: float = 0.0  # of the search's time, building the problem (builds, modes, configurations)
    alternatives: Alternatives | None = None  # a queue's next cheapest plans (peak: cut from `servers`)

    @property
    def proven(self) -> bool:
        """Whether the plan is proven the cheapest (optimal at gap 0)."""
        return self.plan is not None and self.status == Status.OPTIMAL and not self.plan.gap


class _Infeasible(Exception):
    """Internal: the model is proven infeasible; carries the reasons."""

    def __init__(self, reasons: list[Finding]) -> None:
        super().__init__()
        self.reasons = reasons


def _feasible(data: ProblemData, settings: SolveSettings, seconds: float) -> bool | None:
    """Whether any plan meets every rule (no price asked), None when `seconds` did not settle it.

    One worker, every rule enforced: with a server limit one below the fewest servers a plan needs,
    this answers in 0.06 s where the optimising portfolio used the whole time limit and the
    assumption model (below) took over 10 s."""
    built = build_formulation(data)
    built.enforce_all()
    built.model.clear_objective()
    solver = make_solver(replace(settings, workers=1), max(0.05, seconds))
    status = solver.solve(built.model)
    if status == cp_model.INFEASIBLE:
        return False
    return True if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


def _infeasible(data: ProblemData, settings: SolveSettings, seconds: float, limit_binds: bool) -> _Infeasible:
    """Which runs and limits conflict, from CP-SAT's assumption core, for a model known infeasible.

    When the core takes longer than `seconds`, every run is named, with the server limit when
    `limit_binds` (a plan exists without it: the greedy found one)."""
    built = build_formulation(data)
    model = built.model
    model.clear_objective()
    model.add_assumptions([*built.place_run.values(), built.server_limit])
    solver = make_solver(replace(settings, workers=1), max(0.05, seconds))
    if solver.solve(model) != cp_model.INFEASIBLE:
        if limit_binds:
            return _Infeasible(describe_core(data, list(range(len(data.profiles))), True))
        return _Infeasible([finding(FindingKind.CONFLICT, "runs")])
    core = set(solver.sufficient_assumptions_for_infeasibility())
    runs = [r for r, lit in built.place_run.items() if lit.index in core]
    return _Infeasible(describe_core(data, runs, built.server_limit.index in core))


def _greedy(data: ProblemData, servers: list[ServerLayout] | None) -> Outcome | None:
    """First-fit decreasing's plan, when it keeps every family's rule of the site."""
    if servers is None or not admits(data, [s.build for s in servers]):
        return None  # first fit ignores the site's rules (limit, stock, racks); the model keeps them
    fabric = fabric_price(data.catalogue, servers)  # its multi-node copies' switches and cables
    return Outcome(servers, False, round((price_of(servers) + fabric) * 100), 0.0, fabric)


def best_outcome(
    data: ProblemData,
    settings: SolveSettings,
    deadline: float,
    on_progress: Callable[[Progress], None] | None,
) -> tuple[Outcome, float]:
    """The cheapest buildable outcome and the proven lower bound on the price (cents).

    The greedy plan comes first, in milliseconds: it is CP-SAT's hint and the answer when the
    search has nothing cheaper at the limit, so a plan is never dearer than first-fit decreasing's.
    """
    unlimited = greedy_plan(data)
    greedy = _greedy(data, unlimited)
    if greedy is None:  # the greedy broke a limit: settle quickly whether any plan keeps it
        left = deadline - time.perf_counter()
        if _feasible(data, settings, min(QUICK_CHECK_S, left)) is False:
            raise _infeasible(data, settings, min(CORE_S, left), unlimited is not None)
    floor = price_floor(data, deadline - time.perf_counter())  # big models only; CP-SAT may give none
    relaxed = run_model(data, settings, deadline, on_progress, greedy.servers if greedy else None)
    if relaxed is None:
        left = max(CORE_S, deadline - time.perf_counter())
        raise _infeasible(data, settings, left, unlimited is not None)
    candidates = [o for o in (greedy, relaxed) if o is not None and o.servers is not None]
    tighter, bound = _tighter_outcomes(data, settings, deadline, relaxed, candidates)
    candidates += tighter
    if not candidates:
        raise NoPlanInTimeError("no buildable plan found in time; raise --time-limit")
    return min(candidates, key=lambda o: (o.price_cents, o is greedy)), max(bound, floor)


def _tighter_outcomes(
    data: ProblemData, settings: SolveSettings, deadline: float, relaxed: Outcome, candidates: list[Outcome]
) -> tuple[list[Outcome], float]:
    """When the decoded plan costs more than the search's objective (heavy configurations that did
    not budget for the light copies they take): the safe configurations' plan, hinted with the best
    so far. Then, unless a plan already meets the bound, and only if the optimistic model was proven
    (its bound can rise no further) with time left: the sized model's plan and bound, tighter and
    still valid (configs.py), over the configurations a plan no dearer than the best may use.
    Returns (those outcomes, the best valid bound)."""
    exact = relaxed.price_cents <= relaxed.objective or data.exact
    if not relaxed.found or exact:
        return [], relaxed.bound
    best = min(candidates, key=lambda o: o.price_cents)
    safe = run_model(data.with_safe_configs(), settings, deadline, plan=best.servers)
    found = [safe] if safe is not None and safe.servers is not None else []
    best = min([*candidates, *found], key=lambda o: o.price_cents)
    if best.price_cents <= proven_cents(relaxed.bound):
        return found, relaxed.bound  # the safe plan meets the optimistic bound: proven already
    if not relaxed.proven or deadline - time.perf_counter() < SIZED_LEAST_S:
        return found, relaxed.bound
    assert best.servers is not None  # candidates are buildable plans
    sized = run_pruned(data.with_sized_configs(), settings, deadline, best.servers)
    if sized is None:  # no plan meets even the relaxation: keep what the others found
        return found, relaxed.bound
    return found + ([sized] if sized.servers is not None else []), max(relaxed.bound, sized.bound)


@dataclass(frozen=True)
class PeakSearch:
    """What one peak search is asked: the settings, when its search must end, who hears of its
    progress, and the name its plan carries."""

    settings: SolveSettings
    search_end: float
    started: float
    on_progress: Callable[[Progress], None] | None = None
    workload_name: str | None = None


def search_peak(workload: Workload, catalogue: Catalogue, ask: PeakSearch) -> Searched:
    """The cheapest plan holding every copy at once, with its proof (or why none exists), unfinished:
    no rent, explanations, supply findings or verification yet (the finish step adds them).

    Parts that arrive after site.delivery_weeks are left out; the finished plan is verified against
    the whole catalogue."""
    began = time.perf_counter()
    data = build_problem(workload, catalogue.arriving_within(workload.site.delivery_weeks))
    built = time.perf_counter() - began
    reasons = precheck(data)
    if reasons:
        return Searched(Status.INFEASIBLE, data=data, reasons=tuple(reasons), build_s=built)
    try:
        outcome, bound = best_outcome(data, ask.settings, ask.search_end, ask.on_progress)
    except _Infeasible as exc:
        return Searched(Status.INFEASIBLE, data=data, reasons=tuple(exc.reasons), build_s=built)
    except NoPlanInTimeError:
        reason = finding(FindingKind.NO_PLAN, "time-limit", seconds=ask.settings.time_limit)
        return Searched(Status.NO_PLAN_IN_TIME, data=data, reasons=(reason,), build_s=built)
    assert outcome.servers is not None
    # The bound is a valid lower bound whichever model found the plan: a plan at the bound is optimal
    # even when the model that found it stopped before its own proof (the safe configurations' run).
    # Prices are whole cents, so a bound of 8183999.999999999 (CP-SAT's float) proves 8184000.
    cents = proven_cents(bound)
    status = Status.OPTIMAL if outcome.price_cents <= cents else Status.FEASIBLE
    plan = build_plan(
        data,
        outcome.servers,
        status,
        bound=min(cents, outcome.price_cents) / 100,
        wall_seconds=time.perf_counter() - ask.started,
        workload_name=ask.workload_name,
    )
    return Searched(status, plan, data, servers=outcome.servers, build_s=built)
