"""Rules on a queue bid's schedule: one entry per job, on the job's own GPUs, inside its window, as
long as the speed model says.

In queue mode (`queue: {horizon_hours}` in the workload) each assignment is one job, numbered per run
from 1 as its `copy`, and `schedule` says when it trains. The entry must name the same server and
GPUs as its assignment; it starts no earlier than the run's `release_hours`, ends by its
`deadline_hours` (counted from the start of the horizon) and by the horizon, and lasts its hours at
its run's deadline confidence: what the speed model gives for the placement
(`timing.assignment_speed`, the verifier's own arithmetic) with failures on its servers' drives, ×
its stack's spread factor (`spread.confident_hours`; the bare hours in plans without spread figures),
so that a schedule on bare hours, which a P90 deadline does not hold, is caught. That no
GPU holds two jobs at once is the gpu-shared rule (placement.py), which compares these hours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ftopt.model.plan import Assignment, Plan, ScheduledJob
from ftopt.model.speed import hours_to_train
from ftopt.model.workload import Run
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.spread import confident_hours
from ftopt.verify.timing import RELATIVE, assignment_speed
from ftopt.verify.violation import Violation, close, num

#: Schedule hours are reported to 1e-6 h; a window is met within this much.
HOURS_EPS = 1e-5


def _subject(job: ScheduledJob) -> str:
    return f"run {job.run} job {job.job}"


def check_schedule_entries(ctx: Context) -> Iterator[Violation]:
    """A queue bid has a schedule with one entry per job, on its assignment's server and GPUs, and the
    workload's horizon; a bid for all copies at once has neither."""
    plan, queue = ctx.plan, ctx.workload.queue
    if queue is None:
        if plan.schedule or plan.horizon_hours is not None:
            yield Violation("schedule", "plan", "a schedule", "the workload is not in queue mode")
        return
    if plan.horizon_hours is None or not close(plan.horizon_hours, queue.horizon_hours, HOURS_EPS):
        yield Violation(
            "schedule",
            "plan",
            f"horizon {plan.horizon_hours} h",
            f"the workload's {num(queue.horizon_hours)} h",
        )
    yield from _job_entry_faults(plan)
    placed = {(a.run, a.copy_) for a in plan.assignments}
    for job in plan.schedule:
        if (job.run, job.job) not in placed:
            yield Violation("schedule", _subject(job), "scheduled", "no assignment has that run and copy")


def _job_entry_faults(plan: Plan) -> Iterator[Violation]:
    """Every assignment has exactly one schedule entry, on the assignment's own servers and GPUs."""
    entries = Counter((job.run, job.job) for job in plan.schedule)
    by_key = {(job.run, job.job): job for job in plan.schedule}
    for a in plan.assignments:
        times = entries[a.run, a.copy_]
        job = by_key.get((a.run, a.copy_))
        if times != 1 or job is None:
            yield Violation("schedule", copy_subject(a), f"{times} schedule entries", "exactly one")
        elif not _same_placement(job, a):
            yield Violation(
                "schedule",
                _subject(job),
                f"on server {job.server} GPUs {job.gpus}",
                f"its assignment trains on server {a.server} GPUs {a.gpus}",
            )


def _same_placement(job: ScheduledJob, a: Assignment) -> bool:
    """The entry names the assignment's server and GPUs, node by node for a multi-node copy (an
    entry without nodes stands for its one server)."""
    nodes = [(n.server, sorted(n.gpus)) for n in job.nodes] or [(job.server, sorted(job.gpus))]
    return (job.server, sorted(job.gpus)) == (a.server, sorted(a.gpus)) and nodes == [
        (n.server, sorted(n.gpus)) for n in a.nodes
    ]


def check_windows(ctx: Context) -> Iterator[Violation]:
    """Each job starts at or after its run's release, and ends by its deadline and by the horizon."""
    queue = ctx.workload.queue
    if queue is None:
        return
    for job in ctx.plan.schedule:
        run = ctx.runs.get(job.run)
        if run is None:
            continue  # the unknown-run rule reports it
        release = run.release_hours or 0.0
        if job.start_hours < release - HOURS_EPS:
            yield Violation(
                "window",
                _subject(job),
                f"starts at {num(job.start_hours)} h",
                f"released at {num(release)} h",
            )
        end, what = queue.horizon_hours, "the horizon ends"
        if run.deadline_hours is not None and run.deadline_hours < end:
            end, what = run.deadline_hours, "its deadline is"
        if job.end_hours > end + HOURS_EPS:
            yield Violation(
                "window", _subject(job), f"ends at {num(job.end_hours)} h", f"{what} {num(end)} h"
            )
        if job.end_hours < job.start_hours:
            yield Violation(
                "window",
                _subject(job),
                f"ends at {num(job.end_hours)} h",
                f"after its start {num(job.start_hours)} h",
            )


def check_durations(ctx: Context) -> Iterator[Violation]:
    """Each job lasts the hours the speed model gives its run's train_tokens on its placement, with
    failures, at its run's deadline confidence."""
    if ctx.workload.queue is None:
        return
    assignments = {(a.run, a.copy_): a for a in ctx.plan.assignments}
    for job in ctx.plan.schedule:
        a, run = assignments.get((job.run, job.job)), ctx.runs.get(job.run)
        if a is None or run is None or run.train_tokens is None:
            continue
        speed = assignment_speed(ctx, a)
        if speed is None:
            continue
        hours = _held(ctx, a, run, hours_to_train(run.train_tokens, speed))
        took = job.end_hours - job.start_hours
        if not close(took, hours, max(RELATIVE * hours, HOURS_EPS)):
            yield Violation(
                "duration", _subject(job), f"{num(took)} h scheduled", f"{num(hours)} h{_at(ctx, run)}"
            )


def _held(ctx: Context, a: Assignment, run: Run, hours: float) -> float:
    """The job's hours as its schedule holds them: at its run's deadline confidence with failures
    (its bare hours in plans without spread figures, whose jobs are scheduled on those)."""
    if ctx.catalogue.spread is None:
        return hours
    return confident_hours(ctx, a, run, hours, ctx.confidence(run))


def _at(ctx: Context, run: Run) -> str:
    """What the expected duration is: 'at P90 with failures', or the speed model's bare hours."""
    confidence = ctx.confidence(run)
    if ctx.catalogue.spread is None or confidence is None:
        return " (the speed model's)"
    return f" at P{round(confidence * 100)} with failures"
