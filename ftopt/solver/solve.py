"""The library entry point: `solve(workload, catalogue) -> Result`.

One solve is three steps, each going down the layers and never back up:

1. **The budget** (`_Budget`): `time_limit` bounds the whole call. The search gets `SEARCH_SHARE`
   of it (less on bids of many copies, whose plan and verifier take longer); the what-if re-solves
   and the alternatives get what it leaves; the plan records how it was shared (`Plan.budget`).
2. **A search strategy**: peak (`ftopt.solver.search.peak`: every copy at once) or queue
   (`ftopt.solver.search.queue`: every job within the horizon, starting from the peak search).
   Each returns an unfinished plan with its proof, or the status and reasons why there is none.
3. **One finish step** (`finish`), the same for both: rent, binding rules and savings, supply
   findings, the independent verifier, the alternatives and the budget record.

Every outcome is a `Result`: a plan (optimal or feasible), a proof that none exists with the
reasons, or no plan in time. Invalid input (an id the catalogue lacks) raises `InputError`, and a
plan the independent verifier rejects raises `UnverifiedPlanError`: both are the caller's or
ftopt's bug, never an answer.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ftopt.errors import InputError, quoted
from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Alternative, Budget, Plan, Status
from ftopt.model.references import unknown_references
from ftopt.model.result import PhaseTimings, Result
from ftopt.model.settings import Progress, SolveSettings
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.family import Relaxation
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.decode.plan_builder import build_plan
from ftopt.solver.decode.rent import with_rent
from ftopt.solver.decode.verification import verify
from ftopt.solver.explain.disproportion import (
    disproportions,
    offload_disproportion,
    offloaded_runs,
    rent_disproportion,
)
from ftopt.solver.explain.supply import with_supply
from ftopt.solver.explain.whatif import binding_rules, feasible_if, relaxations, savings
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.search.alternatives import ServerKey, next_cheapest, server_set
from ftopt.solver.search.peak import Alternatives, PeakSearch, Searched, search_peak
from ftopt.solver.search.queue import search_queue

__all__ = ["Progress", "SolveSettings", "finish", "solve"]


#: What-if re-solves together take this share of the solve's own time, and at least
#: WHAT_IF_EACH_S per re-solve (WHAT_IF_MIN_S in all, below which they are skipped with a note). On
#: 500 copies of 40 runs four re-solves at half the solve's time were a third of the whole process
#: (2.5 s of 7.9 s), for savings the solve's proof does not depend on; each re-solve's plan carries
#: its own status, so a shorter one is reported as the best it found, never as proven.
WHAT_IF_SHARE = 0.2
WHAT_IF_MIN_S = 0.5
WHAT_IF_EACH_S = 0.3
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


@dataclass
class _Clock:
    """Phase timings, measured as the solve goes."""

    started: float
    marks: dict[str, float]

    def lap(self, phase: str, since: float) -> float:
        now = time.perf_counter()
        self.marks[phase] = self.marks.get(phase, 0.0) + now - since
        return now

    def split(self, part: str, of: str, seconds: float) -> None:
        """Count `seconds` of phase `of` as phase `part` instead."""
        self.marks[part] = self.marks.get(part, 0.0) + seconds
        self.marks[of] = max(0.0, self.marks.get(of, 0.0) - seconds)

    def timings(self) -> PhaseTimings:
        return PhaseTimings(**self.marks, total=time.perf_counter() - self.started)


def check_references(workload: Workload, catalogue: Catalogue) -> None:
    """Raise `InputError` for the first id the workload names that the catalogue lacks."""
    for ref in unknown_references(workload, catalogue)[:1]:
        raise InputError("<workload>", ref.field, f"unknown {ref.what} {quoted(ref.value)}")


@dataclass
class _Budget:
    """How the time limit is shared: when the search must end, and the seconds each later phase
    was allowed (recorded in the plan as `Plan.budget`)."""

    started: float
    limit: float
    search_end: float
    shares: dict[str, float] = field(default_factory=dict)

    @property
    def ends(self) -> float:
        """When the whole solve must end."""
        return self.started + self.limit

    def allow(self, phase: str, seconds: float) -> None:
        """Record that `phase` was allowed `seconds` (0: skipped)."""
        self.shares[phase] = round(max(seconds, 0.0), 3)

    def record(self) -> Budget:
        """The plan's record of it, with the sharing in words."""
        search = self.search_end - self.started
        shares = {"search": round(search, 3), **self.shares}
        later = ", ".join(f"the {p} {s:.3g} s" for p, s in self.shares.items() if s > 0)
        words = (
            f"one budget of {self.limit:g} s for the whole solve: the search up to {search:.3g} s"
            + (f", then {later} at most, of what it leaves" if later else "")
            + ", the rest kept for building and verifying the plan"
        )
        return Budget(limit_s=self.limit, shares=shares, sharing=words)


def _budget(workload: Workload, settings: SolveSettings, started: float) -> _Budget:
    """The search's share: `SEARCH_SHARE` of the limit, less `AFTER_SEARCH_S_PER_COPY` per copy
    beyond it, and at least half of the limit whatever the bid's size. The queue search keeps its own
    margin for building and verifying its plan (`ftopt.solver.search.queue.MARGIN_SHARE`), so it is
    given the whole limit, as before the finish step was shared."""
    limit = settings.time_limit
    if workload.queue is not None:
        return _Budget(started, limit, started + limit)
    copies = sum(run.concurrent for run in workload.runs)
    search = min(SEARCH_SHARE * limit, max(limit / 2, limit - AFTER_SEARCH_S_PER_COPY * copies))
    return _Budget(started, limit, started + search)


def solve(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    workload_name: str | None = None,
) -> Result:
    """The cheapest set of servers that holds every copy of every run at once (or, with a queue,
    every job within the horizon), and where each goes.

    With `settings.verify` (the default) the plan is re-checked by the independent verifier before
    it is returned; switch it off only where speed matters more than that check (the what-if
    re-solves do).
    """
    settings = settings or SolveSettings()
    started = time.perf_counter()
    clock = _Clock(started, {})
    check_references(workload, catalogue)
    budget = _budget(workload, settings, started)
    if workload.queue is not None:  # every job within the horizon, not every copy at once
        searched = search_queue(workload, catalogue, settings, budget.search_end, started)
    else:
        ask = PeakSearch(settings, budget.search_end, started, on_progress, workload_name)
        searched = search_peak(workload, catalogue, ask)
    clock.lap("search", started)
    clock.split("build", "search", searched.build_s)
    if searched.plan is None and searched.status == Status.INFEASIBLE and searched.data is not None:
        return _impossible(searched.data, list(searched.reasons), settings, clock)
    if searched.plan is None:
        return Result(status=searched.status, reasons=searched.reasons, timings=clock.timings())
    plan = finish(searched, _Finishing(workload, catalogue, settings, budget, clock, workload_name))
    return Result(
        status=plan.status,
        plan=plan,
        price=plan.total_price,
        bound=plan.bound,
        gap=plan.gap,
        verified=settings.verify,
        timings=clock.timings(),
    )


@dataclass(frozen=True)
class _Finishing:
    """What the finish step needs beside the plan: the bid, the settings, the budget and the clock."""

    workload: Workload
    catalogue: Catalogue
    settings: SolveSettings
    budget: _Budget
    clock: _Clock
    workload_name: str | None


def finish(searched: Searched, job: _Finishing) -> Plan:
    """The one finish step of every plan, peak or queue: rent, binding rules and what-if savings,
    supply findings, the independent verifier, the alternatives, and how the budget was shared."""
    assert searched.plan is not None and searched.data is not None
    settings, budget, clock = job.settings, job.budget, job.clock
    mark = time.perf_counter()
    name = job.workload_name or job.workload.name
    plan = searched.plan.model_copy(
        update={"wall_seconds": round(mark - budget.started, 3), "workload": name}
    )
    plan = with_rent(plan, job.catalogue)
    # A queue plan's relaxations ease the queue bid itself (its plans are compared with queue plans).
    data = searched.data if job.workload.queue is None else replace(searched.data, workload=job.workload)
    window = _Window(mark - budget.started, budget.ends, budget)
    plan = _explain_optimum(data, plan, settings, searched.proven, window)
    plan = with_supply(plan, job.workload, job.catalogue)
    mark = clock.lap("explain", mark)
    if settings.verify:
        verify(
            plan, job.workload, job.catalogue, "the queue plan" if job.workload.queue else "the solver's plan"
        )
        mark = clock.lap("verify", mark)
    if settings.alternatives:
        plan = _alternatives(searched, plan, job)
        clock.lap("alternatives", mark)
    return plan.model_copy(update={"budget": budget.record()})


def _alternatives(searched: Searched, plan: Plan, job: _Finishing) -> Plan:
    """The next cheapest bids: cut from the peak search's servers, or found by the queue strategy's
    own search (`Searched.alternatives`)."""
    if searched.servers is not None and searched.data is not None:
        return _with_alternatives(searched.data, plan, searched.servers, job)
    if searched.alternatives is None:
        return plan
    return _with_queue_alternatives(searched.alternatives, plan, job)


def _with_queue_alternatives(find: Alternatives, plan: Plan, job: _Finishing) -> Plan:
    """A queue plan's alternatives, each verified against the queue bid, in what is left of the
    time limit (skipped with a note as the peak plan's are)."""
    settings = job.settings
    seconds = min(_alternatives_cap(settings), job.budget.ends - time.perf_counter())
    job.budget.allow("alternatives", _alternatives_cap(settings) if seconds >= ALTERNATIVES_MIN_S else 0.0)
    if seconds < ALTERNATIVES_MIN_S:
        return with_note(plan, skipped("the alternatives", settings.time_limit))
    found, timed_out = find(plan, settings.alternatives, seconds)
    offered = []
    for rank, (other, proven) in enumerate(found, 1):
        other = other.model_copy(update={"workload": plan.workload})
        if proven and not other.gap:
            other = other.model_copy(update={"status": Status.OPTIMAL})
        if settings.verify:
            verify(other, job.workload, job.catalogue, "the queue plan's alternative")
        offered.append(
            Alternative(
                rank=rank,
                price_difference=round(max(other.total_price - plan.total_price, 0.0), 2),
                differs=differences(plan_server_set(plan), plan_server_set(other)),
                proven_next=proven,
                plan=other,
            )
        )
    return _noted_short(plan.model_copy(update={"alternatives": offered}), len(found), timed_out, settings)


def _alternatives_cap(settings: SolveSettings) -> float:
    """The most the alternatives may take: half the limit (at least a second), within what is left."""
    return max(1.0, settings.time_limit / 2)


def plan_server_set(plan: Plan) -> Counter[ServerKey]:
    """A plan's servers as a buyer tells them apart (`server_set` of laid-out servers, read back)."""
    return Counter(
        (s.chassis, s.gpu, s.gpu_count, s.ram_gb, round(s.nvme_tb * 1000), s.nic_count) for s in plan.servers
    )


def _with_alternatives(data: ProblemData, plan: Plan, servers: list[ServerLayout], job: _Finishing) -> Plan:
    """The plan with the next cheapest bids whose server sets differ, each built and verified, in
    what is left of the time limit (skipped with a note when that is under a second, or when it ran
    out before the search found as many as asked)."""
    settings, workload_name = job.settings, job.workload_name
    seconds = min(_alternatives_cap(settings), job.budget.ends - time.perf_counter())
    job.budget.allow("alternatives", _alternatives_cap(settings) if seconds >= ALTERNATIVES_MIN_S else 0.0)
    if seconds < ALTERNATIVES_MIN_S:
        return with_note(plan, skipped("the alternatives", settings.time_limit))
    offered: list[Alternative] = []
    found, timed_out = next_cheapest(data, settings, servers, settings.alternatives, seconds)
    for alt in found:
        # Its status and gap are its own search's: proven only when nothing cheaper differs from the
        # options before it (gap 0), else the best found with its distance to that search's bound.
        other = build_plan(data, alt.servers, Status.FEASIBLE, alt.bound_cents / 100, 0.0, workload_name)
        if other.total_price < plan.total_price:
            # Below a merely feasible plan's price it is no "next cheapest" after it: left out (it
            # failed the Alternative's price check with a traceback, ckpt-02 at stop 45); the plan's
            # own status and gap already say a cheaper plan may exist.
            continue
        if alt.proven and not other.gap:
            other = other.model_copy(update={"status": Status.OPTIMAL})
        if settings.verify:
            verify(other, data.workload, data.catalogue)
        offered.append(
            Alternative(
                rank=len(offered) + 1,
                price_difference=round(other.total_price - plan.total_price, 2),
                differs=differences(server_set(servers), server_set(alt.servers)),
                proven_next=alt.proven,
                plan=other,
            )
        )
    return _noted_short(plan.model_copy(update={"alternatives": offered}), len(found), timed_out, settings)


def _noted_short(plan: Plan, found: int, timed_out: bool, settings: SolveSettings) -> Plan:
    """The plan, with a note when the time ran out before the search found as many as asked (fewer
    than asked for want of plans needs no note: there is nothing to skip)."""
    if timed_out and found < settings.alternatives:
        what = "the alternatives" if not found else f"alternatives {found + 1} to {settings.alternatives}"
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


@dataclass(frozen=True)
class _Window:
    """The time the what-if has: how long the solve took so far, when the whole solve must end, and
    the budget that records the share it was allowed (None: only the end is known)."""

    elapsed: float
    ends: float
    budget: _Budget | None = None


def _explain_optimum(
    data: ProblemData, plan: Plan, settings: SolveSettings, proven: bool, window: _Window
) -> Plan:
    """Attach the binding rules and, when asked and the optimum is proven, what relaxations save and
    whether the plan's own CPU offload is worth its hours, within `_what_if_seconds`; when that is
    under `WHAT_IF_MIN_S` the re-solves are skipped with a note."""
    saved: list[Finding] = []
    weighed: list[Finding] = []
    binding = binding_rules(data, plan)
    if settings.what_if and proven:
        # one re-solve more where the plan chose CPU offload: the bid without it prices what it saves
        offloaded = bool(offloaded_runs(data.workload, plan))
        count = len(relaxations(data)) + offloaded
        seconds = _what_if_seconds(data, settings, window, count)
        if count and seconds < WHAT_IF_MIN_S:
            plan = with_note(plan, skipped("the what-if savings", settings.time_limit))
        elif count:  # no alternatives: a re-solve needs only its price
            quick = replace(settings, time_limit=seconds / count, what_if=False, verify=False, alternatives=0)
            until = time.perf_counter() + seconds
            if offloaded:  # its one re-solve first: the deadline's bisection takes what is left last
                weighed = offload_disproportion(
                    data.workload, plan, lambda w: solve(w, data.catalogue, quick)
                )
            saved, plan = _savings(data, plan, settings, quick, until)
    energy = data.workload.energy
    notes = [
        *plan.notes,
        *disproportions(plan),
        *weighed,
        *rent_disproportion(plan, energy.years, energy.utilisation),
    ]
    return plan.model_copy(update={"binding": binding, "savings": saved, "notes": notes})


def _what_if_seconds(data: ProblemData, settings: SolveSettings, window: _Window, count: int) -> float:
    """The time `count` what-if re-solves share: `WHAT_IF_SHARE` of the time the solve itself took,
    at least `WHAT_IF_EACH_S` each (`WHAT_IF_MIN_S` each for a queue: a queue re-solve in an eighth
    of a second found nothing) and `WHAT_IF_MIN_S` in all, at most a quarter of the limit, and never
    more than the limit leaves once the verifier's share (`SEARCH_SHARE`) is kept."""
    reserve = (1 - SEARCH_SHARE) * settings.time_limit
    left = window.ends - reserve - time.perf_counter()
    each = WHAT_IF_MIN_S if data.workload.queue is not None else WHAT_IF_EACH_S
    floor = max(WHAT_IF_MIN_S, each * count)
    seconds = min(settings.time_limit / 4, max(floor, WHAT_IF_SHARE * window.elapsed), left)
    if window.budget is not None and count:
        # the rule's cap, not the wall-clock share: --deterministic plans stay byte-identical
        window.budget.allow("what-if re-solves", settings.time_limit / 4 if seconds >= WHAT_IF_MIN_S else 0.0)
    return seconds


def _savings(
    data: ProblemData, plan: Plan, settings: SolveSettings, quick: SolveSettings, until: float
) -> tuple[list[Finding], Plan]:
    """The what-if savings found until `until`, and the plan with a note naming the relaxations the
    budget did not reach (never left out in silence)."""
    tried: set[tuple[str, str]] = set()
    resolve = _resolver(data, quick)

    def counted(relaxation: Relaxation) -> Result:
        tried.add((str(relaxation.id), relaxation.words))
        return resolve(relaxation)

    saved = savings(data, plan, counted, until)
    left = [r.words for r in relaxations(data) if (str(r.id), r.words) not in tried]
    if left:
        what = f"the what-if re-solves of {', '.join(left)}"
        on = "on the plan and the re-solves before them"
        plan = with_note(plan, skipped(what, settings.time_limit, on))
    return saved, plan


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
