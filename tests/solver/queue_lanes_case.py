"""A queue share that list scheduling cannot fit but one server can hold: the lane model's test case.

One server's worth of long jobs free from minute 0 and as many urgent ones released at minute 10
that must end by minute 40. Starting whatever can start first puts every long job on the cards at
0 and leaves the urgent jobs no room; the urgent jobs first (10-40), then the long ones (40-90), fit.
"""

from __future__ import annotations

from dataclasses import replace

from ftopt.model.hardware import Catalogue
from ftopt.solver.problem.data import build_problem
from ftopt.solver.problem.queue import JobOption, QueueProblem, peak_workload, queue_problem
from tests.solver.conftest import workload_from

BID = """
queue: {horizon_hours: 720}
runs:
  - {name: long, model: llama-3.1-8b, method: lora, jobs: 2, train_tokens: 100000000}
  - {name: urgent, model: llama-3.1-8b, method: lora, jobs: 2, train_tokens: 100000000}
site: {feed: 230v-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
"""

LONG, URGENT = 50, 30  # minutes


def case(catalogue: Catalogue, long_ends: int = 100) -> tuple[QueueProblem, int]:
    """The problem on one build (one card per job) with a job per card in each run, and that build."""
    workload = workload_from(BID)
    qp = queue_problem(build_problem(peak_workload(workload), catalogue), workload)
    first = next(o for o in qp.options[0] if o.gpus == 1)
    build = first.build
    cards = qp.data.builds[build].gpu_count
    options = [[JobOption(first.mode, build, 1, LONG)], [JobOption(first.mode, build, 1, URGENT)]]
    return replace(qp, jobs=[cards, cards], windows=[(0, long_ends), (10, 40)], options=options), build


def narrowest(catalogue: Catalogue) -> tuple[QueueProblem, int]:
    """The case's problem and, of the builds its options use, the one with the fewest cards: the
    shares a property test draws must be able to crowd it."""
    workload = workload_from(BID)
    full = queue_problem(build_problem(peak_workload(workload), catalogue), workload)
    build = min(full.builds, key=lambda f: full.data.builds[f].gpu_count)
    return full, build
