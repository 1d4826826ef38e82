"""Tiny problems for testing one solver module alone, as the CP-SAT primer advises: a handful of
runs on one allowed card, so each constraint family's effect can be counted by hand.

`optimum` solves a bare model for one expression; tests add only the family under test (and the
variables), so what they count is what that family alone permits.
"""

from __future__ import annotations

import functools

from ortools.sat.python import cp_model

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData, build_problem
from tests.solver.conftest import workload_from

#: Two 8B QLoRA runs on RTX PRO 6000 cards: one card per copy and two cards per copy.
SMALL = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs:
  - {name: one, model: llama-3.1-8b, method: qlora, gpus: 1, concurrent: 3}
  - {name: two, model: llama-3.1-8b, method: qlora, gpus: 2, concurrent: 2}
"""

#: Offloaded single-card full fine-tunes: copies whose host RAM one server must hold (heavy).
HEAVY = """
site: {feed: 400v-3p-16a, inlet_c: 25}
runs: [{name: offload-32b, model: qwen3-32b, method: full, offload: cpu, gpus: 1, seq_len: 2048,
        concurrent: 2}]
"""

#: A 70B full fine-tune keeping 40 checkpoints (heavy: its server's data drives are bought for it)
#: beside 70B LoRA runs keeping checkpoints of their own (light, but each needs NVMe): the cheapest
#: plan that budgets nothing for the light copies on the heavy server is not buildable as counted.
SHARING = """
site: {feed: 400v-3p-32a, inlet_c: 25}
runs:
  - {name: full70, model: llama-3.3-70b, method: full, seq_len: 4096, micro_batch: 2, keep_checkpoints: 40}
  - {name: lora-a, model: llama-3.3-70b, method: lora, seq_len: 2048, micro_batch: 2, keep_checkpoints: 20}
  - {name: lora-b, model: llama-3.3-70b, method: lora, lora_rank: 32, keep_checkpoints: 10, concurrent: 2}
  - {name: lora-c, model: llama-3.3-70b, method: lora, lora_rank: 32, keep_checkpoints: 40}
"""

#: A 405B full fine-tune over several HGX servers: multi-node options and a fabric.
MULTINODE = """
site: {feed: 400v-3p-32a}
runs: [{name: l405-full, model: llama-3.1-405b, method: full, seq_len: 4096}]
"""


@functools.cache
def catalogue() -> Catalogue:
    return load_catalogue()


@functools.cache
def problem(text: str, max_servers: int | None = None) -> ProblemData:
    """The problem data of one of the workloads above (optionally with a server limit)."""
    workload = workload_from(text)
    if max_servers is not None:
        site = workload.site.model_copy(update={"max_servers": max_servers})
        workload = workload.model_copy(update={"site": site})
    return build_problem(workload, catalogue())


def optimum(model: cp_model.CpModel, expression: cp_model.LinearExprT, maximize: bool = True) -> int | None:
    """The best value of `expression` the model allows; None when it allows nothing."""
    if maximize:
        model.maximize(expression)
    else:
        model.minimize(expression)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 20
    assert not model.validate(), model.validate()
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return None
    assert status == cp_model.OPTIMAL, solver.status_name(status)
    return round(solver.objective_value)


def copies_placed(servers: list[ServerLayout]) -> dict[int, int]:
    """Copies per run over concrete servers (a multi-node copy counted once, on its first node)."""
    counted: dict[int, int] = {}
    groups: set[int] = set()
    for server in servers:
        if server.group is not None:
            if server.group in groups:
                continue
            groups.add(server.group)
        for mode, _ in server.copies:
            counted[mode.run] = counted.get(mode.run, 0) + 1
    return counted


def no_gpu_shared(servers: list[ServerLayout]) -> bool:
    """Whether every server's copies take disjoint GPUs within its cards (on sliced cards, disjoint
    instances: a layout's indices are the build's slots)."""
    for server in servers:
        taken = [g for _, gpus in server.copies for g in gpus]
        if len(taken) != len(set(taken)) or any(not 0 <= g < server.build.slots for g in taken):
            return False
    return True
