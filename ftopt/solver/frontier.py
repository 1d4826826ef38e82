"""The price–makespan frontier: the cheapest plan for every time to train the catalogue can reach.

Why by tightening deadlines: the count model minimises one figure, and the makespan is a max over
copies, so each point is one ordinary solve with a deadline on every run that trains tokens. The first
solve has the workload's own deadlines (or is the plan the caller already solved for them: the
quote's own plan, so its cheapest bid is never dearer than the plan it sits beside); each next one
sets every run's deadline just below the last point's makespan (× (1 − 1e-6)), so the slowest copy
must get faster, until no plan exists, enough points are found or the budget is spent. A point is
the proven optimum for its deadline only when its status is optimal at gap 0 (`FrontierPoint.proven`);
otherwise it is the best plan found in its share of the budget, with its gap. A solve that leaves the
price unchanged but finishes sooner dominates the point before it, which is dropped: the frontier
keeps only points nothing beats on both.

Why one budget for the whole frontier: `--time-limit` bounds the command, not each solve (a limit
per point let `frontier --time-limit 60` run 622 s). Each solve gets what is left divided by the
points still wanted, so a point that proves early leaves its time to the next ones
(`Frontier.sharing` says so in words, and each point records its share).

With `objective: tco` the figure minimised and plotted is the TCO (purchase + energy over the years).

In queue mode the time axis is the last job's end: deadlines count from the start of the horizon, so
the same tightening asks every job to end sooner, down to what the releases and speeds allow. At once,
the time axis is drawn at the workload's deadline confidence: each copy's P90 (or P50) hours, the
figure the tightened deadlines hold it to (ftopt.model.spread).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.settings import SolveSettings
from ftopt.model.spread import DEFAULT_CONFIDENCE, confidence_words
from ftopt.model.workload import Workload
from ftopt.solver.solve import solve

#: Each step's deadline is this share below the last makespan (and at least a micro-hour below it).
TIGHTEN = 1e-6
#: A frontier solve is not started with less of the budget left than this, seconds.
MIN_SOLVE_S = 0.5
#: How the frontier shares its budget, in the words its JSON and its pages state.
SHARING = "one budget for the whole frontier: each solve gets what is left divided by the points still wanted"


@dataclass(frozen=True)
class FrontierPoint:
    """One plan on the frontier: its makespan, price, TCO, proof status and servers.

    `makespan_hours` is the plan's `confident_finish_hours`: the longest copy's hours at its run's
    deadline confidence (P50 or P90) when runs train at once, the last job's end in a queue (the plan's
    own `makespan_hours` there is the longest job's hours).
    """

    makespan_hours: float
    total_price: float
    tco: float | None
    status: Status
    gap: float | None
    plan: Plan
    seconds: float
    objective: str = "price"
    budget_s: float = 0.0  # the share of the frontier's budget this point's solve was allowed
    reused: bool = False  # the caller's plan (or an earlier point's), not a solve of its own

    @property
    def proven(self) -> bool:
        """Whether this point is proven the cheapest for its deadline: optimal, at gap 0."""
        return self.status == Status.OPTIMAL and not self.gap

    @property
    def value(self) -> float:
        """The figure the frontier trades against time: the price, or the TCO with `objective: tco`."""
        return self.tco if self.objective == "tco" and self.tco is not None else self.total_price

    @property
    def server_count(self) -> int:
        """Servers in the plan."""
        return len(self.plan.servers)

    def servers(self) -> list[str]:
        """The plan's servers grouped: `2 × 8 × h200-nvl, 2 × 4-way NVLink (gpu-server-8)`."""
        groups: dict[str, int] = {}
        for s in self.plan.servers:
            bridge = f", {s.bridge_count} × {s.bridge}" if s.bridge else ""
            key = f"{s.gpu_count} × {s.gpu}{bridge} ({s.chassis})"
            groups[key] = groups.get(key, 0) + 1
        return [f"{n} × [{key}]" for key, n in groups.items()]


@dataclass
class Frontier:
    """The points, fastest first, why the search stopped, and what it cost."""

    objective: str
    points: list[FrontierPoint] = field(default_factory=list)
    stopped: str = ""  # infeasible | points | no-plan-in-time | no-makespan | budget
    solves: int = 0
    seconds: float = 0.0
    reason: str = ""  # the last solve's reason for stopping, in words
    queue: bool = False  # a queue bid: the time axis is the last job's end, not the longest copy's hours
    confidence: float = DEFAULT_CONFIDENCE  # the deadline confidence the time axis is drawn at
    budget_s: float = 0.0  # the whole frontier's time limit, seconds
    sharing: str = SHARING  # how the budget was shared across the points, in words

    def proof_of(self, points: list[FrontierPoint]) -> str:
        """Whether these points (the quote's three bids) are each proven, in words (`proof_words`)."""
        return proof_words(points)

    @property
    def proven_points(self) -> int:
        """Points proven the cheapest for their deadline (optimal at gap 0)."""
        return sum(1 for p in self.points if p.proven)

    @property
    def hours_label(self) -> str:
        """What the time axis measures, in a table header's words."""
        return "last job's end h" if self.queue else f"makespan h ({confidence_words(self.confidence)})"

    def cheapest(self) -> FrontierPoint:
        """The cheapest point (the slowest)."""
        return min(self.points, key=lambda p: (p.value, p.makespan_hours))

    def fastest(self) -> FrontierPoint:
        """The fastest point (the dearest)."""
        return min(self.points, key=lambda p: (p.makespan_hours, p.value))

    def knee(self) -> FrontierPoint:
        """The point farthest from the line joining the extremes, both axes scaled to their range."""
        a, b = self.fastest(), self.cheapest()
        span_t = (b.makespan_hours - a.makespan_hours) or 1.0
        span_v = (a.value - b.value) or 1.0

        def distance(p: FrontierPoint) -> float:
            x = (p.makespan_hours - a.makespan_hours) / span_t
            y = (p.value - b.value) / span_v
            # the line from (0, 1) to (1, 0): x + y = 1; below it is the knee side
            return (1 - x - y) / 2**0.5

        return max(self.points, key=lambda p: (distance(p), -p.makespan_hours))


def proof_words(points: list[FrontierPoint]) -> str:
    """Whether `points` are each proven the cheapest for its deadline, in the words a quote prints:
    "proven" only for points at gap 0, the others as the best found with their largest gap."""
    proven = [p for p in points if p.proven]
    if len(proven) == len(points):
        return "each the proven cheapest for its deadline"
    gaps = [p.gap for p in points if not p.proven and p.gap is not None]
    within = f", within {max(gaps):.1%} of the lower bound" if gaps else ", without a lower bound"
    if not proven:
        return f"each the best found for its deadline in the time limit{within}"
    return (
        f"{len(proven)} of {len(points)} proven the cheapest for their deadline, the others the best "
        f"found in the time limit{within}"
    )


def has_train_tokens(workload: Workload) -> bool:
    """Whether any run gives train_tokens (without them no makespan exists)."""
    return any(run.train_tokens is not None for run in workload.runs)


def with_deadline(workload: Workload, hours: float) -> Workload:
    """The workload with every run that trains tokens due within `hours` (or its own, earlier, deadline)."""
    runs = tuple(
        run.model_copy(update={"deadline_hours": min(hours, run.deadline_hours or hours)})
        if run.train_tokens is not None
        else run
        for run in workload.runs
    )
    return workload.model_copy(update={"runs": runs})


def pareto(points: list[FrontierPoint]) -> list[FrontierPoint]:
    """Points no other point beats on both makespan and value, fastest first."""
    kept = [
        p
        for p in points
        if not any(
            q is not p
            and q.makespan_hours <= p.makespan_hours
            and q.value <= p.value
            and (q.makespan_hours < p.makespan_hours or q.value < p.value)
            for q in points
        )
    ]
    return sorted(kept, key=lambda p: (p.makespan_hours, p.value))


def _point(plan: Plan | None, objective: str, seconds: float, budget_s: float) -> FrontierPoint | None:
    hours = None if plan is None else plan.confident_finish_hours
    if plan is None or hours is None:
        return None
    return FrontierPoint(
        makespan_hours=hours,
        total_price=plan.total_price,
        tco=plan.tco.total if plan.tco else None,
        status=plan.status,
        gap=plan.gap,
        plan=plan,
        seconds=seconds,
        objective=objective,
        budget_s=budget_s,
    )


def _cheapest_known(
    point: FrontierPoint, known: list[FrontierPoint], deadline: float | None
) -> FrontierPoint:
    """The solve's point, or a plan already in hand that meets its deadline for less (a solve that
    stopped at its share of the budget may return a dearer plan than one known to hold)."""
    holds = [k for k in known if deadline is None or k.makespan_hours <= deadline + 1e-9]
    better = min(holds, key=lambda k: k.value, default=None)
    if better is None or better.value >= point.value:
        return point
    return replace(better, seconds=point.seconds, budget_s=point.budget_s, reused=True)


@dataclass
class _Walk:
    """The frontier's search state: the workload, the settings, the budget and the points so far."""

    workload: Workload
    catalogue: Catalogue
    settings: SolveSettings
    points: int
    started: float
    budget_s: float
    found: list[FrontierPoint] = field(default_factory=list)
    overrun: float = 0.0  # the most a solve has taken beyond its share (building, decoding, verifying)

    def left(self) -> float:
        """What is left of the budget once the next solve's expected overrun is kept back."""
        return self.budget_s - (time.perf_counter() - self.started) - self.overrun

    def share(self) -> float:
        """This solve's share: what is left of the budget over the points still wanted (at most the
        whole of what is left). A solve of a big bid takes seconds beyond its limit to build its
        problem and verify its plan (2.5 s for a 0.5 s share on 778 GPUs): the largest overrun seen
        is kept back, so the frontier ends within its budget, not one overrun per point past it."""
        left = self.left()
        wanted = max(1, self.points - len(pareto(self.found)))
        return min(left, max(left / wanted, MIN_SOLVE_S))

    def spent(self, share: float, seconds: float) -> None:
        """Record what a solve given `share` took."""
        self.overrun = max(self.overrun, seconds - share)


def frontier(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings | None = None,
    points: int = 10,
    budget_s: float | None = None,
    on_point: Callable[[FrontierPoint], None] | None = None,
    first: Plan | None = None,
) -> Frontier:
    """Up to `points` Pareto points of price (or TCO) against makespan, by tightening deadlines.

    `budget_s` (by default `settings.time_limit`) bounds the whole search: each solve gets what is
    left divided by the points still wanted (less the largest overrun a solve has shown), and none
    starts with under `MIN_SOLVE_S` left. `first`
    is a plan already solved for the workload's own deadlines (the quote's plan): it is the first
    point, not solved again. At most 4 × `points` + 4 solves are made, as equal-price steps are
    dropped.
    """
    settings = replace(settings or SolveSettings(), what_if=False)
    budget = settings.time_limit if budget_s is None else budget_s
    walk = _Walk(workload, catalogue, settings, points, time.perf_counter(), budget)
    out = Frontier(
        objective=workload.objective,
        queue=workload.queue is not None,
        confidence=workload.deadline_confidence,
        budget_s=budget,
    )
    deadline: float | None = None
    seed = _point(first, workload.objective, 0.0, 0.0)
    pending = [] if seed is None else [replace(seed, reused=True)]
    while True:
        point = pending.pop() if pending else _next_point(walk, out, deadline)
        if point is None:
            break
        walk.found.append(point)
        if on_point is not None:
            on_point(point)
        if len(pareto(walk.found)) >= points:
            out.stopped = "points"
            break
        m = point.makespan_hours
        deadline = min(m * (1 - TIGHTEN), m - TIGHTEN)
    out.points = pareto(walk.found)[:points]
    out.seconds = time.perf_counter() - walk.started
    return out


def _next_point(walk: _Walk, out: Frontier, deadline: float | None) -> FrontierPoint | None:
    """The next point, or None with why the frontier stops: the budget is spent, too many solves,
    or the solve found no plan with hours."""
    if walk.left() < MIN_SOLVE_S:
        out.stopped = "budget"
        return None
    if out.solves >= 4 * walk.points + 4:
        out.stopped = "points"
        return None
    return _solve_point(walk, out, deadline)


def _solve_point(walk: _Walk, out: Frontier, deadline: float | None) -> FrontierPoint | None:
    """One solve at `deadline` (None: the workload's own) in its share of the budget; None, with
    why the frontier stops, when it has no plan with hours."""
    share = walk.share()
    current = walk.workload if deadline is None else with_deadline(walk.workload, deadline)
    began = time.perf_counter()
    result = solve(current, walk.catalogue, replace(walk.settings, time_limit=share))
    out.solves += 1
    seconds = time.perf_counter() - began
    walk.spent(share, seconds)
    point = _point(result.plan, walk.workload.objective, seconds, share)
    if point is None:
        out.stopped = {
            Status.INFEASIBLE: "infeasible",
            Status.NO_PLAN_IN_TIME: "no-plan-in-time",
        }.get(result.status, "no-makespan")
        out.reason = "; ".join(r.text for r in result.reasons)
        return None
    return _cheapest_known(point, walk.found, deadline)
