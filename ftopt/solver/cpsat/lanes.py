"""Queue mode's lane model: one build's share of the jobs on a fixed number of its servers, each card
a lane that holds one job at a time.

Why a model of its own: the queue model (`ftopt.solver.cpsat.queue`) keeps one cumulative per build,
which makes it a relaxation fit for bounds but slow to find schedules near full servers. Once the
counts relaxation has chosen the servers and how many jobs of each run each build trains, what is
left is a feasibility question per build, and CP-SAT answers it far faster with one no-overlap per
card (disjunctive reasoning) than with the cumulative: on a 60-run, 200-job queue whose H200 server
is 90 % busy over the horizon, the cumulative with the fleet fixed found no schedule in 120 s, the
lanes one in 1.4 s for that server's share of the relaxation's split (`benchmarks/scale-results.md`,
run 7). A job of g cards takes an aligned block of g lanes on one server, as
`ftopt.solver.decode.queue.realise` deals them, so a solution is a layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.solver.problem.queue import JobOption, QueueProblem, ScheduledOption

#: One way to place a job: its option, server (within the build's) and first card, and whether chosen.
Place = tuple[JobOption, int, int, cp_model.IntVar]


@dataclass
class LaneModel:
    """The model, and per job its run, start and places."""

    model: cp_model.CpModel
    jobs: list[tuple[int, cp_model.IntVar, list[Place]]]


def build_lane_model(qp: QueueProblem, build: int, servers: int, share: list[int]) -> LaneModel:
    """`share[run]` jobs of each run on `servers` servers of `build`: each job one start in its run's
    window and one place (option, server, aligned block) ending by its deadline; each card a
    no-overlap of the intervals placed on it."""
    model = cp_model.CpModel()
    size = qp.data.builds[build].gpu_count
    lanes: dict[tuple[int, int], list[cp_model.IntervalVar]] = {}
    jobs = []
    for run, count in enumerate(share):
        options = _options_on(qp, run, build)
        for _ in range(count):
            start, places = _add_job(model, qp.windows[run], options, (servers, size), lanes)
            jobs.append((run, start, places))
    for intervals in lanes.values():
        model.add_no_overlap(intervals)
    return LaneModel(model, jobs)


def _add_job(
    model: cp_model.CpModel,
    window: tuple[int, int],
    options: list[JobOption],
    shape: tuple[int, int],
    lanes: dict[tuple[int, int], list[cp_model.IntervalVar]],
) -> tuple[cp_model.IntVar, list[Place]]:
    """One job: a start in its window and exactly one place, whose interval joins each of its lanes."""
    (early, late), (servers, size) = window, shape
    start = model.new_int_var(early, late, "start")
    places: list[Place] = []
    for option in options:
        for server in range(servers):
            for first in range(0, size - option.gpus + 1, option.gpus):
                chosen = model.new_bool_var("chosen")
                model.add(start + option.minutes <= late).only_enforce_if(chosen)
                interval = model.new_optional_fixed_size_interval_var(start, option.minutes, chosen, "job")
                for card in range(first, first + option.gpus):
                    lanes.setdefault((server, card), []).append(interval)
                places.append((option, server, first, chosen))
    model.add_exactly_one(chosen for *_, chosen in places)
    return start, places


def place_count(qp: QueueProblem, build: int, servers: int, share: list[int]) -> int:
    """How many places (literals, each with an optional interval) `build_lane_model` would make: a
    size check before building it."""
    size = qp.data.builds[build].gpu_count
    return sum(
        count * servers * (size // o.gpus)
        for run, count in enumerate(share)
        for o in _options_on(qp, run, build)
    )


def _options_on(qp: QueueProblem, run: int, build: int) -> list[JobOption]:
    return [o for o in qp.options[run] if o.build == build]


def read_lanes(built: LaneModel, solver: cp_model.CpSolver) -> list[tuple[ScheduledOption, int, int]]:
    """Every job as (job, server, first card), numbered per run in the order the model lists them."""
    numbered: dict[int, int] = {}
    placed = []
    for run, start, places in built.jobs:
        option, server, first, _ = next(p for p in places if solver.boolean_value(p[3]))
        numbered[run] = numbered.get(run, 0) + 1
        placed.append((ScheduledOption(run, numbered[run], option, solver.value(start)), server, first))
    return placed
