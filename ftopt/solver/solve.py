"""The library entry point: `solve(workload, catalogue) -> Result`.

The model counts servers per build and per heavy configuration. Heavy configurations are first
priced for their heavy copies alone, an optimistic relaxation; when every server of its plan holds
what it carries with the RAM and disk bought (or right-sized at no extra cost), that plan is optimal
for the true rules. Otherwise the safe configurations, which budget for light copies, give a valid
plan, and the relaxation's bound says how far from optimal it may be.

Every outcome is a `Result`: a plan (optimal or feasible), a proof that none exists with the
reasons, or no plan in time. Invalid input (an id the catalogue lacks) raises `InputError`, and a
plan the independent verifier rejects raises `UnverifiedPlanError`: both are the caller's or
ftopt's bug, never an answer.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from ftopt.errors import InputError, NoPlanInTimeError, quoted
from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Alternative, Plan, Status
from ftopt.model.references import unknown_references
from ftopt.model.result import PhaseTimings, Result
from ftopt.model.settings import Progress, SolveSettings
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.families import admits
from ftopt.solver.cpsat.family import Relaxation
from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.decode.bills import fabric_price
from ftopt.solver.decode.layout import ServerLayout, price_of
from ftopt.solver.decode.plan_builder import build_plan, verify, with_rent
from ftopt.solver.explain.disproportion import disproportions
from ftopt.solver.explain.reasons import describe_core, precheck
from ftopt.solver.explain.supply import with_supply
from ftopt.solver.explain.whatif import binding_rules, feasible_if, relaxations, savings
from ftopt.solver.problem.data import ProblemData, build_problem
from ftopt.solver.search.alternatives import ServerKey, next_cheapest, server_set
from ftopt.solver.search.greedy import greedy_plan
from ftopt.solver.search.lp import price_floor
from ftopt.solver.search.queue import solve_queue
from ftopt.solver.search.run import Outcome, make_solver, proven_cents, run_model

__all__ = ["Progress", "SolveSettings", "solve"]


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


#: What-if re-solves together take this share of the solve's own time, and at least WHAT_IF_MIN_S.
WHAT_IF_SHARE = 0.5
WHAT_IF_MIN_S = 0.5
#: An impossible bid's re-solves (which relaxation gives it a plan) share this part of the time
#: limit: the search ended early (a proof of no plan), so most of the limit is still unspent.
FEASIBLE_IF_SHARE = 0.25
#: Share of the time limit the search may use: the rest is kept for the plan, the binding rules and
#: the verifier, so that the whole solve ends within the limit. What-if re-solves and alternatives
#: get what the search leaves, or are skipped with a note in the plan.
SEARCH_SHARE = 0.9
#: Seconds per run copy kept back from the search for the plan, its explanations, the verifier and
#: the caller's rendering, beyond the share above: on 7,500 copies of 5,000 distinct runs these took
#: about 1 ms per copy on an idle 2-core machine, 2.4 ms on a loaded one, and the process ran 17 s
#: past a 60 s limit.
AFTER_SEARCH_S_PER_COPY = 0.002
#: Shortest time an alternative search is worth starting, seconds.
ALTERNATIVES_MIN_S = 1.0
#: Longest single-worker feasibility pass when the greedy plan breaks the server limit, seconds.
QUICK_CHECK_S = 5.0
#: Longest search for the smallest conflicting set of runs, once the bid is known impossible, seconds.
CORE_S = 2.0


def _greedy(data: ProblemData, servers: list[ServerLayout] | None) -> Outcome | None:
    """First-fit decreasing's plan, when it keeps every family's rule of the site."""
    if servers is None or not admits(data, [s.build for s in servers]):
        return None  # first fit ignores the site's rules (limit, stock, racks); the model keeps them
    fabric = fabric_price(data.catalogue, servers)  # its multi-node copies' switches and cables
    return Outcome(servers, False, round((price_of(servers) + fabric) * 100), 0.0, fabric)


def _best_outcome(
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
    candidates += _safe_outcome(data, settings, deadline, relaxed, candidates)
    if not candidates:
        raise NoPlanInTimeError("no buildable plan found in time; raise --time-limit")
    return min(candidates, key=lambda o: (o.price_cents, o is greedy)), max(relaxed.bound, floor)


def _safe_outcome(
    data: ProblemData, settings: SolveSettings, deadline: float, relaxed: Outcome, candidates: list[Outcome]
) -> list[Outcome]:
    """When the decoded plan costs more than the search's objective (heavy configurations that did
    not budget for the light copies they take), a re-solve on the safe configurations hinted with
    the best plan so far; empty when none is needed or found."""
    exact = relaxed.price_cents <= relaxed.objective or data.exact
    if not relaxed.found or exact:
        return []
    best = min(candidates, key=lambda o: o.price_cents)
    safe = run_model(data.with_safe_configs(), settings, deadline, plan=best.servers)
    return [safe] if safe is not None and safe.servers is not None else []


@dataclass
class _Clock:
    """Phase timings, measured as the solve goes."""

    started: float
    marks: dict[str, float]

    def lap(self, phase: str, since: float) -> float:
        now = time.perf_counter()
        self.marks[phase] = self.marks.get(phase, 0.0) + now - since
        return now

    def timings(self) -> PhaseTimings:
        return PhaseTimings(**self.marks, total=time.perf_counter() - self.started)


def check_references(workload: Workload, catalogue: Catalogue) -> None:
    """Raise `InputError` for the first id the workload names that the catalogue lacks."""
    for ref in unknown_references(workload, catalogue)[:1]:
        raise InputError("<workload>", ref.field, f"unknown {ref.what} {quoted(ref.value)}")


def solve(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    workload_name: str | None = None,
) -> Result:
    """The cheapest set of servers that holds every copy of every run at once, and where each goes.

    With `settings.verify` (the default) the plan is re-checked by the independent verifier before
    it is returned; switch it off only where speed matters more than that check (the what-if
    re-solves do).
    """
    settings = settings or SolveSettings()
    started = time.perf_counter()
    clock = _Clock(started, {})
    check_references(workload, catalogue)
    if workload.queue is not None:  # every job within the horizon, not every copy at once
        return solve_queue(workload, catalogue, settings, solve, workload_name)
    # Parts that arrive after site.delivery_weeks are left out; the plan is verified against all.
    data = build_problem(workload, catalogue.arriving_within(workload.site.delivery_weeks))
    mark = clock.lap("build", started)
    reasons = precheck(data)
    if reasons:
        return _impossible(data, reasons, settings, clock)
    try:
        after = AFTER_SEARCH_S_PER_COPY * sum(data.copies)
        limit = settings.time_limit  # the search keeps at least half of it whatever the bid's size
        search_end = started + min(SEARCH_SHARE * limit, max(limit / 2, limit - after))
        outcome, bound = _best_outcome(data, settings, search_end, on_progress)
    except _Infeasible as exc:
        clock.lap("search", mark)
        return _impossible(data, exc.reasons, settings, clock)
    except NoPlanInTimeError:
        clock.lap("search", mark)
        reason = finding(FindingKind.NO_PLAN, "time-limit", seconds=settings.time_limit)
        return Result(status=Status.NO_PLAN_IN_TIME, reasons=(reason,), timings=clock.timings())
    assert outcome.servers is not None
    # The bound is a valid lower bound whichever model found the plan: a plan at the bound is optimal
    # even when the model that found it stopped before its own proof (the safe configurations' run).
    # Prices are whole cents, so a bound of 8183999.999999999 (CP-SAT's float) proves 8184000.
    bound = proven_cents(bound)
    proven = outcome.price_cents <= bound
    plan = build_plan(
        data,
        outcome.servers,
        Status.OPTIMAL if proven else Status.FEASIBLE,
        bound=min(bound, outcome.price_cents) / 100,
        wall_seconds=time.perf_counter() - started,
        workload_name=workload_name,
    )
    plan = with_rent(plan, data.catalogue)
    mark = clock.lap("search", mark)
    ends = started + settings.time_limit
    plan = _explain_optimum(data, plan, settings, proven, time.perf_counter() - started, ends)
    plan = with_supply(plan, workload, catalogue)
    mark = clock.lap("explain", mark)
    if settings.verify:
        verify(plan, workload, catalogue)
        mark = clock.lap("verify", mark)
    if settings.alternatives:
        plan = _with_alternatives(data, plan, outcome.servers, settings, workload_name, ends)
        clock.lap("alternatives", mark)
    return Result(
        status=plan.status,
        plan=plan,
        price=plan.total_price,
        bound=plan.bound,
        gap=plan.gap,
        verified=settings.verify,
        timings=clock.timings(),
    )


def _with_alternatives(
    data: ProblemData,
    plan: Plan,
    servers: list[ServerLayout],
    settings: SolveSettings,
    workload_name: str | None,
    ends: float,
) -> Plan:
    """The plan with the next cheapest bids whose server sets differ, each built and verified, in
    what is left of the time limit (skipped with a note when that is under a second, or when it ran
    out before the search found as many as asked)."""
    seconds = min(max(1.0, settings.time_limit / 2), ends - time.perf_counter())
    if seconds < ALTERNATIVES_MIN_S:
        return with_note(plan, skipped("the alternatives", settings.time_limit))
    offered = []
    found, timed_out = next_cheapest(data, settings, servers, settings.alternatives, seconds)
    for rank, alt in enumerate(found, 1):
        other = build_plan(data, alt.servers, Status.FEASIBLE, plan.total_price, 0.0, workload_name)
        if settings.verify:
            verify(other, data.workload, data.catalogue)
        offered.append(
            Alternative(
                rank=rank,
                price_difference=round(other.total_price - plan.total_price, 2),
                differs=differences(server_set(servers), server_set(alt.servers)),
                proven_next=alt.proven,
                plan=other,
            )
        )
    plan = plan.model_copy(update={"alternatives": offered})
    if timed_out and len(found) < settings.alternatives:  # fewer than asked, and not for want of plans
        what = (
            "the alternatives" if not found else f"alternatives {len(found) + 1} to {settings.alternatives}"
        )
        plan = with_note(plan, skipped(what, settings.time_limit, "before the search found them"))
    return plan


def differences(base: Counter[ServerKey], other: Counter[ServerKey]) -> list[str]:
    """Servers `other` adds (+) and drops (−) against `base`, in words a buyer reads."""

    def words(key: ServerKey) -> str:
        chassis, gpu, count, ram, disk, nics = key
        nic = f", {nics} NICs" if nics else ""
        return f"{chassis} with {count} × {gpu}, {ram:,} GB RAM, {disk / 1000:g} TB NVMe{nic}"

    added = [f"+{n} × {words(k)}" for k, n in sorted((other - base).items())]
    dropped = [f"−{n} × {words(k)}" for k, n in sorted((base - other).items())]
    return added + dropped


def _explain_optimum(
    data: ProblemData, plan: Plan, settings: SolveSettings, proven: bool, elapsed: float, ends: float
) -> Plan:
    """Attach the binding rules and, when asked and the optimum is proven, what relaxations save.

    The re-solves share one budget: half the time the solve itself took (at least 0.5 s, at most a
    quarter of the time limit), and never more than the time limit leaves once the verifier's share
    is kept (`SEARCH_SHARE`); when that is under 0.5 s they are skipped with a note. Each had
    min(5 s, a quarter of the limit) before, and four of them on a 10,000-copy bid took longer than
    the solve."""
    saved: list[Finding] = []
    binding = binding_rules(data, plan)
    if settings.what_if and proven:
        eased = relaxations(data)
        reserve = (1 - SEARCH_SHARE) * settings.time_limit
        left = ends - reserve - time.perf_counter()
        budget = min(settings.time_limit / 4, max(WHAT_IF_MIN_S, WHAT_IF_SHARE * elapsed), left)
        if eased and budget < WHAT_IF_MIN_S:
            plan = with_note(plan, skipped("the what-if savings", settings.time_limit))
        elif eased:
            seconds = budget / len(eased)  # no alternatives: a re-solve needs only its price
            quick = replace(settings, time_limit=seconds, what_if=False, verify=False, alternatives=0)
            until = time.perf_counter() + budget
            saved = savings(data, plan, _resolver(data, quick), until)
    notes = [*plan.notes, *disproportions(plan)]
    return plan.model_copy(update={"binding": binding, "savings": saved, "notes": notes})


def _resolver(data: ProblemData, quick: SolveSettings) -> Callable[[Relaxation], Result]:
    """A re-solve of one relaxation with the quick settings, on its eased catalogue where it has one."""

    def resolve(relaxation: Relaxation) -> Result:
        return solve(relaxation.workload, relaxation.catalogue or data.catalogue, quick)

    return resolve


def _impossible(data: ProblemData, reasons: list[Finding], settings: SolveSettings, clock: _Clock) -> Result:
    """An impossible bid's result: its reasons, then (with `what_if`) each relaxation whose quick
    re-solve finds a plan, within `FEASIBLE_IF_SHARE` of the time limit shared by the re-solves."""
    eased = relaxations(data) if settings.what_if else []
    mark = time.perf_counter()
    budget = min(FEASIBLE_IF_SHARE * settings.time_limit, clock.started + settings.time_limit - mark)
    if eased and budget >= WHAT_IF_MIN_S:
        seconds = budget / len(eased)
        quick = replace(settings, time_limit=seconds, what_if=False, verify=False, alternatives=0)
        until = mark + budget
        reasons = [*reasons, *feasible_if(data, _resolver(data, quick), until)]
        clock.lap("explain", mark)
    return Result(status=Status.INFEASIBLE, reasons=tuple(reasons), timings=clock.timings())


def skipped(what: str, seconds: float, on: str = "on the plan itself") -> Finding:
    """A note that `what` was left out to keep within the time limit, which went `on` something."""
    return finding(FindingKind.RULE, "skipped", what=what, seconds=seconds, on=on)


def with_note(plan: Plan, note: Finding) -> Plan:
    """The plan with one more note."""
    return plan.model_copy(update={"notes": [*plan.notes, note]})
