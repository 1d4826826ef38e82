"""A queue plan's next cheapest bids whose servers differ: no-good cuts on the queue model's counts.

Why cuts on groups, not builds: a buyer tells servers apart by chassis, card and card count; two
builds of the same server (another power cap or feed) are the same purchase. So each plan found cuts
its count of servers per (chassis, card, count) out of the queue model (`ftopt.solver.cpsat.queue`),
and the next solve must differ in at least one of them, as `ftopt.solver.search.alternatives` does
for the peak model's counts.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.model.plan import Plan
from ftopt.model.settings import SolveSettings
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.families import admits
from ftopt.solver.cpsat.queue import QueueModel, build_queue_model
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.decode.queue import read_solution, realise
from ftopt.solver.problem.queue import QueueProblem, ScheduledOption
from ftopt.solver.search.run import make_solver, proven_cents

#: Cut-and-re-solve rounds per alternative asked for (a round whose plan breaks a site rule or
#: repeats an offered server set is cut and tried again).
ROUNDS_PER_ALTERNATIVE = 3

Group = tuple[str, str, int]  # chassis, card, cards per server
Laid = list[tuple[ServerLayout, list[ScheduledOption]]]
#: Builds a queue plan from servers with their jobs (`ftopt.solver.search.queue`'s `_plan_of`).
PlanOf = Callable[[Laid], Plan]


@dataclass(frozen=True)
class QueueFound:
    """One queue plan of the sequence, unfinished, with the search's bound (currency) and whether
    the search proved it the next cheapest."""

    plan: Plan
    bound: float
    proven: bool


def server_groups(plan: Plan) -> Counter[Group]:
    """The plan's servers as a buyer tells them apart: chassis, card and card count."""
    return Counter((s.chassis, s.gpu, s.gpu_count) for s in plan.servers)


def _groups(laid: Laid) -> Counter[Group]:
    """Laid-out servers as a buyer tells them apart (as `server_groups` counts a plan's)."""
    return Counter(
        (layout.build.chassis.id, layout.build.gpu.id, layout.build.gpu_count) for layout, _ in laid
    )


def _cut(qp: QueueProblem, built: QueueModel, groups: Counter[Group]) -> None:
    """Forbid this count of servers in every group at once: some group's count must differ."""
    model = built.model
    sums: dict[Group, list[cp_model.IntVar]] = {}
    for f, var in built.servers.items():
        b = qp.data.builds[f]
        sums.setdefault((b.chassis.id, b.gpu.id, b.gpu_count), []).append(var)
    differs = []
    for group, variables in sums.items():
        value = groups.get(group, 0)
        above = model.new_bool_var("")
        model.add(sum(variables) >= value + 1).only_enforce_if(above)
        differs.append(above)
        if value > 0:
            below = model.new_bool_var("")
            model.add(sum(variables) <= value - 1).only_enforce_if(below)
            differs.append(below)
    model.add_bool_or(differs)


@dataclass(frozen=True)
class QueueAsk:
    """The queue problem, its workload and settings, and how to build a plan from laid-out servers."""

    qp: QueueProblem
    workload: Workload
    settings: SolveSettings


def next_cheapest_queue(
    ask: QueueAsk, first: Plan, n: int, seconds: float, plan_of: PlanOf
) -> tuple[list[QueueFound], bool]:
    """Up to `n` queue plans after `first`, cheapest first, each with a server set no earlier plan
    has, and whether the time ran out before `n` were found."""
    deadline = time.perf_counter() + seconds
    built = build_queue_model(ask.qp)
    offered = [server_groups(first)]
    _cut(ask.qp, built, offered[0])
    found: list[QueueFound] = []
    for _ in range((n + 1) * ROUNDS_PER_ALTERNATIVE):
        left = deadline - time.perf_counter()
        if len(found) == n or left <= 0:
            return found, left <= 0 and len(found) < n
        solver = make_solver(ask.settings, left)
        status = solver.solve(built.model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return found, status == cp_model.UNKNOWN
        counts, jobs = read_solution(ask.qp, built, solver)
        laid = realise(ask.qp.data, counts, jobs)
        groups = _groups(laid)
        _cut(ask.qp, built, groups)
        # a server added for fragmentation may break a site rule: cut, and look further
        if groups in offered or not admits(ask.qp.data, [layout.build for layout, _ in laid]):
            continue
        plan = plan_of(laid)
        offered.append(groups)
        bound = proven_cents(solver.best_objective_bound) / 100
        found.append(QueueFound(plan, bound, status == cp_model.OPTIMAL))
    return sorted(found, key=lambda f: f.plan.total_price), False
