"""A queue plan in hand before the search: jobs back to back on the fewest servers of one build.

Why: the queue model can take its whole time limit to find a plan as good as the peak bid's on a
few hundred jobs. This is what a planner would do by hand: pick one build, and with n servers of it
put each job (earliest deadline first) on the aligned block of cards that lets it finish first, in
whichever of its options finishes first; raise n until every job ends inside its window. The
cheapest build's answer is the hint CP-SAT starts from and a plan of its own. The list scheduling
starts whichever job can start first, so jobs released later fill the gaps, not the end.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from ftopt.solver.cpsat.families import admits
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.queue import JobOption, QueueProblem, ScheduledOption, server_cost_cents

#: Servers `repair_fleet` may add to the relaxation's fleet before it gives up.
REPAIR_ROUNDS = 4


@dataclass(frozen=True)
class GreedyPlan:
    """Servers per build with every job's option, start minute, server number (within its build's
    servers) and first card."""

    fleet: dict[int, int]  # build → servers
    jobs: list[tuple[ScheduledOption, int, int]]  # (job, server index, first card)

    def cost_cents(self, qp: QueueProblem) -> int:
        """What the servers add to the objective."""
        return fleet_cost(qp, self.fleet)


def fleet_cost(qp: QueueProblem, fleet: dict[int, int]) -> int:
    """Cents the servers of a fleet add to the objective."""
    return sum(n * server_cost_cents(qp.data, f) for f, n in fleet.items())


class _Cards:
    """When each aligned block of each server is next free, per block size, kept as flat lists so that
    the earliest block is one `min` over them."""

    def __init__(self, servers: int, size: int, widths: set[int]) -> None:
        self.size = size
        self.free = [[0] * size for _ in range(servers)]
        self.blocks = {g: [0] * (servers * (size // g)) for g in widths}

    def earliest(self, gpus: int, early: int) -> tuple[int, int, int]:
        """(start, server, first card) of the block that lets a job start first at or after `early`;
        among blocks free by then, the one freed last (the tightest fit)."""
        blocks = self.blocks[gpus]
        ready = [(free, i) for i, free in enumerate(blocks) if free <= early]
        free, index = max(ready) if ready else min((free, i) for i, free in enumerate(blocks))
        per = self.size // gpus
        return max(early, free), index // per, (index % per) * gpus

    def take(self, server: int, first: int, gpus: int, until: int) -> None:
        """Hold cards first… of the server until `until`, and refresh that server's blocks."""
        cards = self.free[server]
        for i in range(first, first + gpus):
            cards[i] = until
        for g, blocks in self.blocks.items():
            per = self.size // g
            for k in range(per):
                blocks[server * per + k] = max(cards[k * g : (k + 1) * g])


_Choice = tuple[
    tuple[int, int, int], int, JobOption, int, int
]  # (start, late, end), run, option, server, card


def _next_job(
    qp: QueueProblem, left: list[int], options: list[list[JobOption]], cards: dict[int, _Cards]
) -> _Choice | None:
    """Of the runs with jobs left, the job that can start first (the earlier deadline, then the
    earlier end, on ties), in its option and block; None when no job is left."""
    best: _Choice | None = None
    for run in (r for r, count in enumerate(left) if count):
        early, late = qp.windows[run]
        for option in options[run]:
            start, n, first = cards[option.build].earliest(option.gpus, early)
            key = (start, late, start + option.minutes)
            if best is None or key < best[0]:
                best = (key, run, option, n, first)
    return best


def _fleet_cards(qp: QueueProblem, fleet: dict[int, int]) -> dict[int, _Cards]:
    """Per build of the fleet, its servers' cards, with blocks of every width its options use."""
    widths: dict[int, set[int]] = {f: set() for f in fleet}
    for option in (o for opts in qp.options for o in opts if o.build in fleet):
        widths[option.build].add(option.gpus)
    return {f: _Cards(n, qp.data.builds[f].gpu_count, widths[f]) for f, n in fleet.items()}


def schedule_on(qp: QueueProblem, fleet: dict[int, int]) -> GreedyPlan | None:
    """Every job on the fleet's servers, or None when some job misses its window.

    List scheduling: of the runs with jobs left, the next job is the one that can start first (the
    earlier deadline on ties), in its option and block that start first (then end first)."""
    used = {f: n for f, n in fleet.items() if n > 0}
    cards = _fleet_cards(qp, used)
    options = [[o for o in opts if o.build in cards] for opts in qp.options]
    left = list(qp.jobs)
    placed = []
    for _ in range(sum(qp.jobs)):
        best = _next_job(qp, left, options, cards)
        if best is None or best[0][2] > best[0][1]:  # no job left to place, or it ends past its window
            return None
        (start, _, end), run, option, n, first = best
        cards[option.build].take(n, first, option.gpus, end)
        left[run] -= 1
        placed.append((ScheduledOption(run, qp.jobs[run] - left[run], option, start), n, first))
    return GreedyPlan(used, placed)


#: Schedules one build's share of the jobs (jobs per (run, build)) on that many of its servers.
ShareScheduler = Callable[[QueueProblem, int, int, dict[tuple[int, int], int]], GreedyPlan | None]


def schedule_split(
    qp: QueueProblem,
    fleet: dict[int, int],
    split: dict[tuple[int, int], int],
    schedule_share: ShareScheduler | None = None,
) -> GreedyPlan | None:
    """Each build's share of the jobs (the relaxation's `split`: jobs per (run, build)) scheduled on
    that build's servers alone (by list scheduling, `share_on`, unless `schedule_share` is given), or
    None when some build's share misses a window.

    Why: on a fleet of several builds, `schedule_on` starts each job wherever it starts first, so a
    slow card takes jobs a fast one would have packed tighter; the relaxation has already chosen how
    many jobs each build trains under the area and lane cuts, and within one build list scheduling
    packs whole jobs well."""
    placed: list[tuple[ScheduledOption, int, int]] = []
    for f, n in fleet.items():
        share = (schedule_share or share_on)(qp, f, n, split)
        if share is None:
            return None
        placed += share.jobs
    renumbered = _renumbered(placed)
    if Counter(job.run for job, _, _ in renumbered) != _job_counts(qp):
        return None  # the split does not cover every job (a relaxation not solved to the end)
    return GreedyPlan({f: n for f, n in fleet.items() if n > 0}, renumbered)


def share_on(qp: QueueProblem, f: int, servers: int, split: dict[tuple[int, int], int]) -> GreedyPlan | None:
    """Build f's share of the jobs list-scheduled on its `servers` alone."""
    jobs = share_of(qp, f, split)
    options = [[o for o in opts if o.build == f] for opts in qp.options]
    return schedule_on(replace(qp, jobs=jobs, options=options), {f: servers})


def share_of(qp: QueueProblem, f: int, split: dict[tuple[int, int], int]) -> list[int]:
    """Jobs of each run that the split gives build f."""
    return [split.get((run, f), 0) for run in range(len(qp.jobs))]


def _job_counts(qp: QueueProblem) -> Counter[int]:
    return Counter({run: count for run, count in enumerate(qp.jobs) if count})


def _renumbered(placed: list[tuple[ScheduledOption, int, int]]) -> list[tuple[ScheduledOption, int, int]]:
    """Jobs of a run numbered 1… over the builds, in start order."""
    numbered: Counter[int] = Counter()
    renumbered = []
    for job, n, first in sorted(placed, key=lambda p: (p[0].run, p[0].start)):
        numbered[job.run] += 1
        renumbered.append((replace(job, job=numbered[job.run]), n, first))
    return renumbered


def _fewest_servers(qp: QueueProblem, build: int) -> GreedyPlan | None:
    """The fewest servers of the build that hold every job in its window: from the GPU-minutes the
    jobs need at least, doubling until the greedy fits, then bisecting."""
    least = _least_servers(qp, build)
    if least is None:
        return None
    size, low = qp.data.builds[build].gpu_count, least
    most = max(low, math.ceil(sum(qp.jobs) * max(o.gpus for opts in qp.options for o in opts) / size))
    high, best = low, schedule_on(qp, {build: low})
    while best is None and high < most:  # gallop up from the area bound, then bisect down
        low, high = high + 1, min(most, high * 2)
        best = schedule_on(qp, {build: high})
    if best is None:
        return None
    while low < high:
        middle = (low + high) // 2
        plan = schedule_on(qp, {build: middle})
        if plan is None:
            low = middle + 1
        else:
            best, high = plan, middle
    return best


def _least_servers(qp: QueueProblem, build: int) -> int | None:
    """Servers of the build the jobs' GPU-minutes need at least; None when some run cannot use it."""
    if any(all(o.build != build for o in options) for options in qp.options):
        return None
    size = qp.data.builds[build].gpu_count
    area = sum(
        qp.jobs[run] * min(o.gpus * o.minutes for o in options if o.build == build)
        for run, options in enumerate(qp.options)
    )
    span = max(w[1] for w in qp.windows) - min(w[0] for w in qp.windows)
    return max(1, math.ceil(area / (size * max(1, span))))


def greedy_queue(qp: QueueProblem) -> GreedyPlan | None:
    """The cheapest one-build greedy plan over the builds every run can use; None when none can.

    Builds are tried cheapest lower bound first, and no further once that bound reaches the best plan."""
    floors = [(n * server_cost_cents(qp.data, f), f) for f in qp.builds if (n := _least_servers(qp, f))]
    best: GreedyPlan | None = None
    for floor, f in sorted(floors):
        if best is not None and floor >= best.cost_cents(qp):
            break
        plan = _fewest_servers(qp, f)
        if plan is None or not admits(qp.data, fleet_builds(qp, plan.fleet)):
            continue
        if best is None or plan.cost_cents(qp) < best.cost_cents(qp):
            best = plan
    return best


def fleet_builds(qp: QueueProblem, fleet: dict[int, int]) -> list[Build]:
    """One build per server of the fleet, for the constraint families' check of a plan in hand."""
    return [qp.data.builds[f] for f, n in sorted(fleet.items()) for _ in range(n)]


def greedy_servers(plan: GreedyPlan) -> dict[int, list[list[tuple[ScheduledOption, list[int]]]]]:
    """The greedy plan's jobs per build and server with their cards, for `decode.queue.lay_out`."""
    servers: dict[int, list[list[tuple[ScheduledOption, list[int]]]]] = {
        f: [[] for _ in range(n)] for f, n in plan.fleet.items()
    }
    for job, n, first in plan.jobs:
        servers[job.option.build][n].append((job, list(range(first, first + job.option.gpus))))
    return servers


def repair_fleet(qp: QueueProblem, fleet: dict[int, int], rounds: int = REPAIR_ROUNDS) -> GreedyPlan | None:
    """A plan on `fleet` (the counts-only relaxation's servers), or on the cheapest fleet one server
    larger, and so on for `rounds` servers: the relaxation sees GPU-minutes, not how jobs pack."""
    current = dict(fleet)
    for _ in range(rounds + 1):
        plan = schedule_on(qp, current)
        if plan is not None:
            return plan
        grown = [{**current, f: current.get(f, 0) + 1} for f in qp.builds]
        grown = [g for g in grown if admits(qp.data, fleet_builds(qp, g))]
        if not grown:
            return None
        tried = sorted((fleet_cost(qp, g), i, g) for i, g in enumerate(grown))
        for _, _, g in tried:  # cheapest first: the first that holds every job is the answer
            plan = schedule_on(qp, g)
            if plan is not None:
                return plan
        current = tried[0][2]
    return None
