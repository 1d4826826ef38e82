"""Queue mode: buy for every job within the horizon, not for every copy at once.

1. The peak bid first: every job as a concurrent copy (`peak_workload`), its deadline shortened to
   its window. Its plan is a queue plan too (each job at its release on its own GPUs), so the queue
   bid is never dearer than the peak bid, and a plan is in hand before the queue model runs.
2. A greedy plan (`ftopt/solver/search/queue_greedy.py`): jobs back to back on the fewest servers
   of one build; the model's hint and price ceiling.
3. When no plan in hand meets the counts relaxation's bound, that relaxation's own fleet and split
   scheduled build by build on the lane model (`ftopt/solver/search/queue_lanes.py`), in part of
   the time left: a schedule found there costs the bound, and the plan is proven.
4. Otherwise the queue model (`ftopt/solver/cpsat/queue.py`), started from the cheapest plan in hand,
   chooses servers per build and a schedule; `realise` gives its jobs GPU indices.

The cheapest plan is returned with the queue model's bound: a proof when every option of every run
is in the model (`ftopt.solver.problem.queue.QueueProblem.complete`).

The plan returned is unfinished: the solve's one finish step (`ftopt.solver.solve.finish`) prices it
for rent, adds its binding rules, savings, alternatives and supply findings and verifies it, as for
a peak plan. The peak bid is the peak search itself (`ftopt.solver.search.peak`), called down the
layers: this module never calls back into the solve.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.settings import SolveSettings
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.families import admits
from ftopt.solver.cpsat.queue import Relaxation, add_hint, aggregate_bound, build_queue_model
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.decode.plan_builder import build_plan
from ftopt.solver.decode.queue import (
    attach_schedule,
    lay_out,
    plan_order,
    read_solution,
    realise,
    starts_by_copy,
)
from ftopt.solver.problem.data import ProblemData, build_problem
from ftopt.solver.problem.queue import QueueProblem, ScheduledOption, peak_workload, queue_problem
from ftopt.solver.search.peak import Alternatives, PeakSearch, Searched, search_peak
from ftopt.solver.search.queue_alternatives import QueueAsk, next_cheapest_queue
from ftopt.solver.search.queue_greedy import (
    GreedyPlan,
    fleet_cost,
    greedy_queue,
    greedy_servers,
    repair_fleet,
    schedule_split,
)
from ftopt.solver.search.queue_lanes import lane_plan
from ftopt.solver.search.run import make_solver, proven_cents

#: Share of the time limit the peak bid may take; the queue model gets the rest.
PEAK_SHARE = 0.3
#: Longest solve of the counts-only relaxation (`aggregate_bound`), seconds.
AGGREGATE_S = 2.0
#: Time kept back from the queue model to build, realise and verify its plan: this share of the
#: limit, and at least MARGIN_MIN_S (a 1,000-job plan took about 3 s to build and verify).
MARGIN_SHARE = 0.08
MARGIN_MIN_S = 0.5
#: Share of the queue model's time the lane model may take first to schedule the relaxation's own
#: fleet (`ftopt.solver.search.queue_lanes`): when it does, the plan meets the bound and the queue
#: model does not run; when not, the queue model keeps the rest. Half: the 200-job stress queue's
#: schedule took 1.4 s of about 11 s given, and on the 1,000-job one, where the lane model finds
#: none, the queue model's half found the plan its whole time had (run 7,
#: `benchmarks/scale-results.md`); not tuned further.
LANES_SHARE = 0.5


def _objective(plan: Plan) -> float:
    """What the solver minimised, in the plan's currency: the price or the TCO."""
    return plan.tco.total if plan.tco is not None and plan.tco.objective == "tco" else plan.total_price


def with_bound(plan: Plan, bound: float | None) -> Plan:
    """The plan with the queue model's bound (on the objective), its gap and the status it proves."""
    if bound is None:
        return plan.model_copy(update={"status": Status.FEASIBLE, "bound": None, "gap": None})
    objective = _objective(plan)
    bound = min(bound, objective)
    gap = (objective - bound) / objective if objective else 0.0
    price_bound = plan.total_price - (objective - bound)
    status = Status.OPTIMAL if objective - bound < 0.005 else Status.FEASIBLE
    return plan.model_copy(
        update={"status": status, "bound": round(max(price_bound, 0.0), 2), "gap": round(gap, 6)}
    )


#: Why the peak bid has no plan that holds for the queue too: about one run alone, not runs together
#: (the findings that come with them, such as an inlet that rules a card out, explain them).
ALONE = frozenset({FindingKind.NO_FIT, FindingKind.NO_SERVER, FindingKind.NO_CARD, FindingKind.DEADLINE})


def _peak(workload: Workload, catalogue: Catalogue, settings: SolveSettings, seconds: float) -> Searched:
    """The peak bid's search, its plan (if any) made a queue plan: each job at its release."""
    quick = replace(settings, time_limit=max(1.0, seconds), what_if=False, alternatives=0, verify=False)
    now = time.perf_counter()
    searched = search_peak(peak_workload(workload), catalogue, PeakSearch(quick, now + seconds, now))
    if searched.plan is None:
        return searched
    releases = {r.name: r.release_hours or 0.0 for r in workload.runs}
    starts = {(a.run, a.copy_): releases[a.run] for a in searched.plan.assignments}
    return replace(searched, plan=attach_schedule(searched.plan, workload, starts))


@dataclass
class QueueOutcome:
    """The queue plans found (greedy, model) and the model's bound on the objective (None: no proof)."""

    plans: list[Plan]
    bound: float | None
    infeasible: bool = False  # the model proved that no plan in its options exists


def _plan_of(
    qp: QueueProblem, workload: Workload, laid: list[tuple[ServerLayout, list[ScheduledOption]]]
) -> Plan:
    """A queue plan from servers with their jobs."""
    ordered = plan_order(laid)
    plan = build_plan(qp.data, [layout for layout, _ in ordered], Status.FEASIBLE, 0.0, 0.0, workload.name)
    return attach_schedule(plan, workload, starts_by_copy(plan, ordered))


def _cheapest(qp: QueueProblem, plans: list[GreedyPlan | None]) -> GreedyPlan | None:
    """The cheapest greedy plan that keeps every family's rule of the site (stock, owned servers, racks)."""
    fits = [
        p
        for p in plans
        if p is not None
        and admits(qp.data, [qp.data.builds[f] for f, n in p.fleet.items() for _ in range(n)])
    ]
    return min(fits, key=lambda p: p.cost_cents(qp), default=None)


def _first_split(
    qp: QueueProblem, fleet: dict[int, int], splits: list[dict[tuple[int, int], int]]
) -> GreedyPlan | None:
    """The first of the relaxation's splits that schedules build by build on its fleet."""
    return next((plan for plan in (schedule_split(qp, fleet, s) for s in splits) if plan), None)


def _laid(qp: QueueProblem, plan: GreedyPlan) -> list[tuple[ServerLayout, list[ScheduledOption]]]:
    """The greedy plan's servers as layouts with their jobs."""
    return [pair for f, servers in greedy_servers(plan).items() for pair in lay_out(qp.data, f, servers)]


def _greedy_plans(
    qp: QueueProblem, fleet: dict[int, int] | None, splits: list[dict[tuple[int, int], int]]
) -> GreedyPlan | None:
    """The cheapest of the greedy plans: back to back, the relaxation's split on its fleet, and the
    fleet repaired."""
    split = _first_split(qp, fleet, splits) if fleet else None
    repaired = repair_fleet(qp, fleet) if fleet else None
    return _cheapest(qp, [greedy_queue(qp), split, repaired])


def _model_plan(
    qp: QueueProblem,
    workload: Workload,
    settings: SolveSettings,
    deadline: float,
    ceiling: float | None,
    greedy: GreedyPlan | None,
) -> tuple[Plan | None, float, cp_model.CpSolverStatus]:
    """The queue model's plan (None when it has none, or its servers break a site rule), its bound
    (cents) and CP-SAT's status, searched from the greedy plan below the ceiling."""
    cap = round(ceiling * 100) if ceiling is not None else None
    built = build_queue_model(qp, cap)
    if greedy is not None and greedy.cost_cents(qp) <= (cap or 0):
        add_hint(qp, built, greedy.fleet, [job for job, _, _ in greedy.jobs])
    solver = make_solver(settings, max(0.1, deadline - time.perf_counter() - _margin(settings)))
    status = solver.solve(built.model)
    bound = solver.best_objective_bound if status != cp_model.UNKNOWN else 0.0
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, bound, status
    counts, jobs = read_solution(qp, built, solver)
    laid = realise(qp.data, counts, jobs)
    # A server added for fragmentation may break a site rule.
    plan = _plan_of(qp, workload, laid) if admits(qp.data, [layout.build for layout, _ in laid]) else None
    return plan, bound, status


def _lowered(qp: QueueProblem, ceiling: float | None, greedy: GreedyPlan | None) -> float | None:
    """The price ceiling (currency) once the greedy plan is in hand."""
    if greedy is None:
        return ceiling
    cost = greedy.cost_cents(qp) / 100
    return cost if ceiling is None else min(ceiling, cost)


def _queue_plans(
    qp: QueueProblem, workload: Workload, settings: SolveSettings, deadline: float, ceiling: float | None
) -> QueueOutcome:
    """The greedy plan, then the queue model's from its hint, realised on servers."""
    if any(not options for options in qp.options):
        return QueueOutcome([], None)
    left = deadline - time.perf_counter()
    relaxed = aggregate_bound(qp, min(AGGREGATE_S, max(0.1, left / 4)), settings.workers)
    if relaxed.bound == math.inf:  # the jobs' GPU-minutes fit no servers the site allows
        return QueueOutcome([], None, infeasible=qp.complete and ceiling is None)
    greedy = _greedy_plans(qp, relaxed.fleet, relaxed.splits)
    if _open(qp, relaxed, _lowered(qp, ceiling, greedy)):
        greedy = _cheapest(qp, [greedy, _on_lanes(qp, relaxed, settings, deadline)])
    plans = [_plan_of(qp, workload, _laid(qp, greedy))] if greedy is not None else []
    search = _Search(qp, workload, settings, deadline)
    return _proved(search, plans, _lowered(qp, ceiling, greedy), greedy, relaxed.bound)


def _open(qp: QueueProblem, relaxed: Relaxation, ceiling: float | None) -> bool:
    """Whether the relaxation's fleet is cheaper than every plan in hand: scheduling it would give a
    cheaper plan, and, when the relaxation was solved to the end, one that meets the bound."""
    if relaxed.fleet is None or relaxed.bound is None:
        return False
    return ceiling is None or round(ceiling * 100) > proven_cents(fleet_cost(qp, relaxed.fleet))


def _on_lanes(
    qp: QueueProblem, relaxed: Relaxation, settings: SolveSettings, deadline: float
) -> GreedyPlan | None:
    """The relaxation's fleet and splits scheduled on the lane model, in `LANES_SHARE` of the time
    the queue model would have."""
    assert relaxed.fleet is not None
    now = time.perf_counter()
    until = now + LANES_SHARE * max(0.0, deadline - now - _margin(settings))
    return lane_plan(qp, relaxed.fleet, relaxed.splits, settings, until)


def _margin(settings: SolveSettings) -> float:
    """Seconds kept back from the searches to build, realise and verify the plan."""
    return max(MARGIN_MIN_S, MARGIN_SHARE * settings.time_limit)


@dataclass(frozen=True)
class _Search:
    """What the queue model's search runs on: the problem, the workload, the settings, the deadline."""

    qp: QueueProblem
    workload: Workload
    settings: SolveSettings
    deadline: float


def _proved(
    search: _Search, plans: list[Plan], ceiling: float | None, greedy: GreedyPlan | None, floor: float | None
) -> QueueOutcome:
    """The plans in hand and the bound: the relaxation's `floor` (cents) when the cheapest plan meets
    it, else the queue model's search below the ceiling, and its plan."""
    proof = search.qp.complete  # a bound proves something only when every option is in the model
    if ceiling is not None and floor is not None and round(ceiling * 100) <= proven_cents(floor):
        return QueueOutcome(plans, floor / 100 if proof else None)  # the plan in hand meets the bound
    qp, workload, settings, deadline = search.qp, search.workload, search.settings, search.deadline
    plan, found, status = _model_plan(qp, workload, settings, deadline, ceiling, greedy)
    if status == cp_model.INFEASIBLE:
        # Nothing in the model's options costs at most the ceiling: the plan in hand is optimal.
        return QueueOutcome(plans, ceiling if proof else None, infeasible=ceiling is None)
    plans = plans + ([plan] if plan is not None else [])
    return QueueOutcome(plans, max(found, floor or 0.0) / 100 if proof else None)


def search_queue(
    workload: Workload, catalogue: Catalogue, settings: SolveSettings, deadline: float, started: float
) -> Searched:
    """The cheapest servers that train every job of every run inside its window and the horizon,
    searched until `deadline`; the plan unfinished (the solve's finish step completes it)."""
    peak_result = _peak(workload, catalogue, settings, PEAK_SHARE * (deadline - started))
    if peak_result.status == Status.INFEASIBLE and any(r.kind in ALONE for r in peak_result.reasons):
        # A run that fits no card, or misses its window's length even alone, has no queue plan either.
        return Searched(Status.INFEASIBLE, reasons=peak_result.reasons)
    peak = peak_result.plan
    data = build_problem(peak_workload(workload), catalogue.arriving_within(workload.site.delivery_weeks))
    if peak_result.status == Status.INFEASIBLE and not data.builds:
        # The site rules out every server (an inlet no card allows, a feed none fits): proven, as for
        # the peak bid, with its reasons.
        return Searched(Status.INFEASIBLE, reasons=peak_result.reasons)
    qp = queue_problem(data, workload)
    outcome = _queue_plans(qp, workload, settings, deadline, _objective(peak) if peak is not None else None)
    candidates = [*outcome.plans, *([peak] if peak is not None else [])]
    if not candidates:
        return Searched(_no_plan_status(qp, outcome), reasons=_no_plan(qp, workload, outcome, settings))
    best = min(candidates, key=lambda p: (_objective(p), p is peak))
    return _searched(best, outcome, data, started, _alternatives(QueueAsk(qp, workload, settings)))


def _no_plan(
    qp: QueueProblem, workload: Workload, outcome: QueueOutcome, settings: SolveSettings
) -> tuple[Finding, ...]:
    """Why there is no queue plan: runs in conflict (proven), runs the queue cannot schedule, or time."""
    if outcome.infeasible and qp.complete:
        return (finding(FindingKind.CONFLICT, "runs"),)
    unscheduled = [workload.runs[r].name for r, options in enumerate(qp.options) if not options]
    if unscheduled:
        return tuple(finding(FindingKind.QUEUE_HEAVY, name) for name in unscheduled)
    return (finding(FindingKind.NO_PLAN, "time-limit", seconds=settings.time_limit),)


def _no_plan_status(qp: QueueProblem, outcome: QueueOutcome) -> Status:
    """Infeasible when the model proved no plan exists among every option; else no plan in time."""
    return Status.INFEASIBLE if outcome.infeasible and qp.complete else Status.NO_PLAN_IN_TIME


def _searched(
    best: Plan, outcome: QueueOutcome, data: ProblemData, started: float, more: Alternatives
) -> Searched:
    """The cheapest plan with the model's bound, its status and its search time; the problem data
    (every job as a copy) its binding rules are read from, and how to find its alternatives."""
    bound = proven_cents(outcome.bound * 100) / 100 if outcome.bound is not None else None
    plan = with_bound(best, bound).model_copy(
        update={"wall_seconds": round(time.perf_counter() - started, 3)}
    )
    return Searched(plan.status, plan, data, alternatives=more)


def _alternatives(ask: QueueAsk) -> Alternatives:
    """The queue plan's next cheapest bids, each with its own search's bound and status: cut from
    the queue model (`next_cheapest_queue`), built as any queue plan."""

    def find(first: Plan, n: int, seconds: float) -> tuple[list[tuple[Plan, bool]], bool]:
        found, timed_out = next_cheapest_queue(
            ask, first, n, seconds, lambda laid: _plan_of(ask.qp, ask.workload, laid)
        )
        # a bound proves something only when every option is in the model, as for the plan itself
        proof = ask.qp.complete
        return [
            (with_bound(f.plan, f.bound if proof else None), f.proven and proof) for f in found
        ], timed_out

    return find
