"""Queue mode's problem data: each run's jobs, its window in minutes, and the options a job may take.

An option is a light (mode, build) pair of the peak bid's `ProblemData` (copies whose host RAM and
NVMe fit their GPUs' share of the build's base RAM and disk, so that any set of them running
together fits the server), with the minutes a job reserves: its hours at its run's deadline
confidence (P90 by default: the speed model's hours on its slowest aligned block of that build, with
failures at the slowest data drives the build may carry, × its stack's spread factor), rounded up,
so that the hours the plan states for its actual GPUs and drives never exceed it. Of a
run's options on one build, one needing no fewer GPUs and no fewer minutes than another is dropped.
Runs with heavy or multi-node options keep only their light ones here, and the model's bound is then
no proof (`QueueProblem.complete`).

`peak_workload` is the same bid with every job running at once, each within its window's length at
its deadline confidence (the hours the queue schedules it on).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ftopt.model.speed import hours_to_train
from ftopt.model.workload import Run, Workload
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import build_write_gbps, held_hours, placed_speed

MINUTES_PER_HOUR = 60
#: The plan states P50/P90 hours from its failure overhead rounded to 1e-6 and rounds them to 1e-6 h:
#: a job reserves this share more, so that its stated hours never run past its reserved minutes.
STATED_ROUNDING = 2e-6


@dataclass(frozen=True)
class JobOption:
    """One way to train a job of a run: a mode on a build, its GPUs and its reserved minutes."""

    mode: int  # index into data.modes
    build: int  # index into data.builds
    gpus: int
    minutes: int


@dataclass
class QueueProblem:
    """The runs' options and windows, in minutes from the start of the horizon."""

    data: ProblemData
    jobs: list[int]  # jobs per run
    windows: list[tuple[int, int]]  # per run: earliest start, latest end
    options: list[list[JobOption]]  # per run, Pareto-pruned on (GPUs, minutes) per build
    complete: bool  # no run has a heavy or multi-node option left out: the model's bound is a proof

    @property
    def builds(self) -> list[int]:
        """Builds some option uses, in index order."""
        return sorted({o.build for opts in self.options for o in opts})


def slowest_hours(data: ProblemData, mode: int, build: int) -> float | None:
    """Hours a job of the mode needs on the slowest aligned block of the build (None without speed data)."""
    m, b = data.modes[mode], data.builds[build]
    tokens = data.profiles[m.run].run.train_tokens
    if tokens is None:
        return None
    hours = []
    for start in range(0, b.gpu_count - m.gpus + 1, m.gpus):
        speed = placed_speed(data.profiles[m.run], data.catalogue, m, b, start)
        if speed is None:
            return None
        hours.append(hours_to_train(tokens, speed))
    return max(hours) if hours else None


def scheduled_hours(data: ProblemData, mode: int, build: int) -> float | None:
    """Hours a job of the mode is scheduled for on the build: its slowest block's hours with failures
    (checkpoints at the build's slowest data drives) at its run's deadline confidence; None without
    speed data."""
    hours = slowest_hours(data, mode, build)
    if hours is None:
        return None
    m = data.modes[mode]
    return held_hours(
        data.profiles[m.run], m.sizing, data.catalogue, hours, build_write_gbps(data.builds[build])
    )


def window_hours(workload: Workload, run: Run) -> tuple[float, float]:
    """The hours a queue bid's run may train in: from its release to its deadline or the horizon."""
    queue = workload.queue
    assert queue is not None
    return run.release_hours or 0.0, min(run.deadline_hours or math.inf, queue.horizon_hours)


def _window(workload: Workload, run: int) -> tuple[int, int]:
    release, end = window_hours(workload, workload.runs[run])
    return math.ceil(release * MINUTES_PER_HOUR), math.floor(end * MINUTES_PER_HOUR + 1e-9)


def _pareto(options: list[JobOption]) -> list[JobOption]:
    """Per build, drop an option another needs no more GPUs and no more minutes than."""
    kept: list[JobOption] = []
    for option in sorted(options, key=lambda o: (o.build, o.gpus, o.minutes, o.mode)):
        if not any(k.build == option.build and k.minutes <= option.minutes for k in kept):
            kept.append(option)
    return kept


def queue_problem(data: ProblemData, workload: Workload) -> QueueProblem:
    """Each run's light options on whole cards that fit its window, with their reserved minutes (the
    peak bid's data offers sliced builds too, `slicing_allowed`, which the queue model cannot hold)."""
    runs = range(len(workload.runs))
    windows = [_window(workload, r) for r in runs]
    found: list[list[JobOption]] = [[] for _ in runs]
    for mode, build in data.pool:
        if data.builds[build].mig is not None:
            continue  # whole cards only: the interval model holds one job per card (the peak bid may slice)
        run = data.modes[mode].run
        hours = scheduled_hours(data, mode, build)
        if hours is None:
            continue
        minutes = max(1, math.ceil(hours * (1 + STATED_ROUNDING) * MINUTES_PER_HOUR))
        if minutes <= windows[run][1] - windows[run][0]:
            found[run].append(JobOption(mode, build, data.modes[mode].gpus, minutes))
    complete = not data.heavy_classes and not data.multinode
    return QueueProblem(
        data, [r.job_count for r in workload.runs], windows, [_pareto(o) for o in found], complete
    )


def server_cost_cents(data: ProblemData, build: int) -> int:
    """What one server of the build adds to the objective (its energy too under `objective: tco`)."""
    b = data.builds[build]
    return round((b.price + b.energy_cost) * 100)


@dataclass(frozen=True)
class ScheduledOption:
    """One job as the model placed it: its run, number, option and start minute."""

    run: int
    job: int
    option: JobOption
    start: int


def peak_workload(workload: Workload) -> Workload:
    """Every job of every run as a concurrent copy that must finish within its window's length at its
    deadline confidence, as the queue schedules it."""
    runs = []
    for run in workload.runs:
        release, end = window_hours(workload, run)
        runs.append(
            Run.model_validate(
                {
                    **run.model_dump(exclude={"jobs", "release_hours", "deadline_hours", "concurrent"}),
                    "concurrent": run.job_count,
                    "deadline_hours": end - release,
                }
            )
        )
    return workload.model_copy(update={"queue": None, "runs": tuple(runs)})
