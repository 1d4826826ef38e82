"""The price–makespan frontier: the cheapest plan for every time to train the catalogue can reach.

Why by tightening deadlines: the count model minimises one figure, and the makespan is a max over
copies, so each point is one ordinary solve with a deadline on every run that trains tokens. The first
solve has the workload's own deadlines; each next one sets every run's deadline just below the last
point's makespan (× (1 − 1e-6)), so the slowest copy must get faster, until no plan exists or enough
points are found. Each point is the proven optimum (its status says so) for its deadline, so
the prices rise as the makespans fall. A solve that leaves the price unchanged but finishes sooner
dominates the point before it, which is dropped: the frontier keeps only points nothing beats on both.

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
from ftopt.model.result import Result
from ftopt.model.settings import SolveSettings
from ftopt.model.spread import DEFAULT_CONFIDENCE, confidence_words
from ftopt.model.workload import Workload
from ftopt.solver.solve import solve

#: Each step's deadline is this share below the last makespan (and at least a micro-hour below it).
TIGHTEN = 1e-6
#: A frontier solve is not started with less of the budget left than this, seconds.
MIN_SOLVE_S = 0.5


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


def _point(result: Result, objective: str, seconds: float) -> FrontierPoint | None:
    plan = result.plan
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
    )


def frontier(
    workload: Workload,
    catalogue: Catalogue,
    settings: SolveSettings | None = None,
    points: int = 10,
    budget_s: float | None = None,
    on_point: Callable[[FrontierPoint], None] | None = None,
) -> Frontier:
    """Up to `points` Pareto points of price (or TCO) against makespan, by tightening deadlines.

    `budget_s` bounds the whole search (the HTML quote's three bids use it): each solve has
    `settings.time_limit` or what is left of the budget, whichever is less, and none starts with
    under `MIN_SOLVE_S` left. At most 4 × `points` + 4 solves are made, as equal-price steps are
    dropped.
    """
    settings = replace(settings or SolveSettings(), what_if=False)
    started = time.perf_counter()
    out = Frontier(
        objective=workload.objective,
        queue=workload.queue is not None,
        confidence=workload.deadline_confidence,
    )
    found: list[FrontierPoint] = []
    current = workload
    while True:
        limit = settings.time_limit
        if budget_s is not None:
            limit = min(limit, budget_s - (time.perf_counter() - started))
        if limit < MIN_SOLVE_S:
            out.stopped = "budget"
            break
        if out.solves >= 4 * points + 4:
            out.stopped = "points"
            break
        began = time.perf_counter()
        result = solve(current, catalogue, replace(settings, time_limit=limit))
        out.solves += 1
        point = _point(result, workload.objective, time.perf_counter() - began)
        if point is None:
            out.stopped = {
                Status.INFEASIBLE: "infeasible",
                Status.NO_PLAN_IN_TIME: "no-plan-in-time",
            }.get(result.status, "no-makespan")
            out.reason = "; ".join(r.text for r in result.reasons)
            break
        found.append(point)
        if on_point is not None:
            on_point(point)
        if len(pareto(found)) >= points:
            out.stopped = "points"
            break
        m = point.makespan_hours
        current = with_deadline(workload, min(m * (1 - TIGHTEN), m - TIGHTEN))
    out.points = pareto(found)[:points]
    out.seconds = time.perf_counter() - started
    return out
