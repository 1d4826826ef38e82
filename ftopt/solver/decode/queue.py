"""From the queue model's solution to servers with GPU indices, and the schedule the plan shows.

`realise` deals each build's jobs, in start order, to aligned blocks of free cards (a card is free
once its last job's reserved minutes are over). It prefers blocks beside cards already busy, so that
whole larger blocks stay free for wider jobs; when no aligned block is free (the cumulative model
cannot see fragmentation over time) it opens one more server of the build, and the plan's price
then exceeds the model's bound by that server.

`attach_schedule` adds each job's hours (at its run's deadline confidence) to a plan built from
these servers (or from the peak plan's: every job at its release on its own GPUs, the greedy
schedule), numbering jobs as the plan numbers its copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ftopt.model.plan import Node, Plan, RunSummary, ScheduledJob
from ftopt.model.workload import Run, Workload
from ftopt.solver.cpsat.queue import QueueModel
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.queue import MINUTES_PER_HOUR, QueueProblem, ScheduledOption


@dataclass
class _Server:
    """One server being filled over time: when each card is next free, and the jobs it holds."""

    free_at: list[int]
    jobs: list[tuple[ScheduledOption, list[int]]] = field(default_factory=list)

    def busy(self, at: int, cards: range) -> int:
        return sum(1 for i in cards if self.free_at[i] > at)


def _block_score(server: _Server, start: int, gpus: int, at: int) -> tuple[int, int] | None:
    """None when the block is not free at `at`; else (busy cards in its enclosing blocks, busy cards
    in the server): higher packs tighter."""
    if server.busy(at, range(start, start + gpus)):
        return None
    size, enclosing = len(server.free_at), 0
    width = gpus * 2
    while width <= size:
        base = start - start % width
        enclosing += server.busy(at, range(base, base + width))
        width *= 2
    return enclosing, server.busy(at, range(size))


def _deal(servers: list[_Server], job: ScheduledOption) -> bool:
    """Put the job on the free aligned block that packs tightest; False when none is free."""
    g, at = job.option.gpus, job.start
    best: tuple[tuple[int, int, int, int], _Server, int] | None = None
    for n, server in enumerate(servers):
        for start in range(0, len(server.free_at) - g + 1, g):
            score = _block_score(server, start, g, at)
            if score is not None and (best is None or (*score, -n, -start) > best[0]):
                best = ((*score, -n, -start), server, start)
    if best is None:
        return False
    _, server, start = best
    cards = list(range(start, start + g))
    for i in cards:
        server.free_at[i] = at + job.option.minutes
    server.jobs.append((job, cards))
    return True


def realise(
    data: ProblemData, counts: dict[int, int], jobs: list[ScheduledOption]
) -> list[tuple[ServerLayout, list[ScheduledOption]]]:
    """Servers per build with each job on aligned GPUs; more servers than `counts` only where needed.

    Returns each non-empty server's layout (its copies in job order) with the jobs in the same order."""
    laid: list[tuple[ServerLayout, list[ScheduledOption]]] = []
    for f in sorted({j.option.build for j in jobs} | set(counts)):
        build = data.builds[f]
        servers = [_Server([0] * build.gpu_count) for _ in range(counts.get(f, 0))]
        for job in sorted(
            (j for j in jobs if j.option.build == f), key=lambda j: (j.start, -j.option.gpus, j.run, j.job)
        ):
            if not _deal(servers, job):
                servers.append(_Server([0] * build.gpu_count))
                _deal(servers, job)
        laid += lay_out(data, f, [server.jobs for server in servers])
    return laid


def lay_out(
    data: ProblemData, build: int, servers: list[list[tuple[ScheduledOption, list[int]]]]
) -> list[tuple[ServerLayout, list[ScheduledOption]]]:
    """Each non-empty server of the build as a layout (its copies in job order) with its jobs."""
    laid = []
    b = data.builds[build]
    for jobs in servers:
        if jobs:
            layout = ServerLayout(b, b.ram, b.disk)
            layout.copies = [(data.modes[j.option.mode], cards) for j, cards in jobs]
            laid.append((layout, [j for j, _ in jobs]))
    return laid


def plan_order(
    laid: list[tuple[ServerLayout, list[ScheduledOption]]],
) -> list[tuple[ServerLayout, list[ScheduledOption]]]:
    """The servers in the order `build_plan` numbers them (its sort is stable, so it keeps this one)."""
    return sorted(laid, key=lambda pair: pair[0].order())


def starts_by_copy(
    plan: Plan, ordered: list[tuple[ServerLayout, list[ScheduledOption]]]
) -> dict[tuple[str, int], float]:
    """Each assignment's start hour, walking the plan's copies in the order it placed them.

    Raises `AssertionError` when the plan's assignments do not follow the servers' copies (a change
    in `build_plan`'s numbering would otherwise give jobs wrong hours; the verifier would also fail)."""
    starts = [j.start for _, jobs in ordered for j in jobs]
    assert len(starts) == len(plan.assignments)
    found: dict[tuple[str, int], float] = {}
    index = 0
    for number, (layout, _) in enumerate(ordered, start=1):
        for _mode, cards in layout.copies:
            a = plan.assignments[index]
            # A MIG copy's cards are its slice slots; the plan names the physical GPU that holds them.
            same = a.server == f"s{number}" and (a.mig is not None or a.gpus == cards)
            assert same, "plan copies out of the servers' order"
            found[a.run, a.copy_] = starts[index] / MINUTES_PER_HOUR
            index += 1
    return found


def attach_schedule(plan: Plan, workload: Workload, starts: dict[tuple[str, int], float]) -> Plan:
    """The plan with a schedule (each job from its start for its hours at its run's deadline
    confidence: with failures, P90 by default), the horizon, its makespan the last job's end, and
    run summaries in queue terms."""
    queue = workload.queue
    assert queue is not None
    confidence = {r.name: r.deadline_confidence for r in workload.runs}
    schedule = []
    for a in plan.assignments:
        start = starts[a.run, a.copy_]
        hours = a.hours_at(confidence[a.run]) or 0.0
        schedule.append(
            ScheduledJob(
                run=a.run,
                job=a.copy_,
                server=a.server,
                gpus=a.gpus,
                start_hours=round(start, 6),
                end_hours=round(start + hours, 6),
                nodes=[Node(server=n.server, gpus=n.gpus) for n in a.nodes] if a.multinode else [],
            )
        )
    schedule.sort(key=lambda j: (j.start_hours, j.run, j.job))
    ends = [j.end_hours for j in schedule]
    runs = {r.name: r for r in workload.runs}  # by name, once: linear in runs
    return plan.model_copy(
        update={
            "horizon_hours": queue.horizon_hours,
            "schedule": schedule,
            # a queue trains until its last job ends, not for its longest job's hours
            "makespan_hours": max(ends) if ends and plan.makespan_hours is not None else None,
            "runs": [_summary(s, runs[s.name]) for s in plan.runs],
        }
    )


def _summary(summary: RunSummary, run: Run) -> RunSummary:
    """The run's summary in queue terms: one copy at a time, its jobs, its window."""
    return summary.model_copy(
        update={
            "concurrent": 1,
            "jobs": run.job_count,
            "release_hours": run.release_hours,
            "deadline_hours": run.deadline_hours,
        }
    )


def read_solution(
    qp: QueueProblem, built: QueueModel, solver: cp_model.CpSolver
) -> tuple[dict[int, int], list[ScheduledOption]]:
    """Servers per build and every job's option and start from a solution."""
    counts = {f: solver.value(v) for f, v in built.servers.items()}
    jobs = []
    for run, options in enumerate(qp.options):
        for job, presences in enumerate(built.chosen[run]):
            k = next(k for k, p in enumerate(presences) if solver.boolean_value(p))
            jobs.append(ScheduledOption(run, job + 1, options[k], solver.value(built.starts[run][job])))
    return counts, jobs
