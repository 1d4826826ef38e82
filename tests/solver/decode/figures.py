"""A small plan whose copies have hours (so failures, spread and energy have figures to state)."""

from __future__ import annotations

import functools

from ftopt.model.plan import Plan, Status
from ftopt.solver.decode.plan_builder import build_plan
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.search.greedy import greedy_plan
from tests.solver.tiny import problem

#: SMALL's two 8B QLoRA runs with tokens to train: every copy has hours.
TIMED = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs:
  - {name: one, model: llama-3.1-8b, method: qlora, gpus: 1, concurrent: 3, train_tokens: 100000000}
  - {name: two, model: llama-3.1-8b, method: qlora, gpus: 2, concurrent: 2, train_tokens: 200000000}
"""


@functools.cache
def timed_plan() -> tuple[ProblemData, Plan]:
    """TIMED's problem and the greedy's plan for it, built."""
    data = problem(TIMED)
    servers = greedy_plan(data)
    assert servers is not None
    return data, build_plan(data, servers, Status.FEASIBLE, 0.0, 1.0, "timed")
