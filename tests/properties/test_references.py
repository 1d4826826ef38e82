"""The reference solvers checked on their own, on cases whose answer is worked out by hand.

A brute force that is wrong in the solver's direction would hide a solver bug; these cases pin it
(and the bounds) to figures derived from the catalogue, independently of CP-SAT.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given

from ftopt.model.workload import Workload
from tests.bruteforce import (
    Instance,
    _gpus_place,
    brute_force,
    cents,
    first_fit_decreasing,
    instance,
    lower_bound_cents,
    set_partitions,
)
from tests.properties.support import exercised, reached
from tests.strategies import CATALOGUE, tiny_workload_dicts, to_workload


def problem(text: str) -> Instance:
    return instance(Workload.model_validate(yaml.safe_load(text)), CATALOGUE)


def cheapest_build_cents(data: Instance, chassis: str, gpu: str) -> int:
    builds = [f for f in data.builds if f.chassis.id == chassis and f.gpu.id == gpu]
    return min(cents(f.price) for f in builds)


@pytest.mark.parametrize(("items", "bell"), [(1, 1), (2, 2), (3, 5), (4, 15), (5, 52)])
def test_set_partitions_are_counted_by_bell_numbers(items: int, bell: int) -> None:
    partitions = list(set_partitions(list(range(items)), items))
    assert len(partitions) == bell
    assert len({tuple(tuple(b) for b in p) for p in partitions}) == bell


def test_set_partitions_respect_the_block_limit() -> None:
    assert all(len(p) <= 2 for p in set_partitions([0, 1, 2, 3], 2))
    assert len(list(set_partitions([0, 1, 2, 3], 2))) == 1 + 7  # S(4,1) + S(4,2)


def test_gpu_blocks_respect_nvlink_domains() -> None:
    # Two 4-way bridges: two 4-GPU sharded copies fit, a 4-GPU copy and two 2-GPU ones fit.
    assert _gpus_place(8, 4, ((4, 4), (4, 4)))
    assert _gpus_place(8, 4, ((4, 4), (2, 2), (2, 2)))
    # 8 GPUs sharded over two 4-way domains take whole domains.
    assert _gpus_place(8, 4, ((8, 4),))
    assert not _gpus_place(8, 4, ((8, 4), (1, 0)))
    assert not _gpus_place(4, 2, ((2, 2), (2, 2), (1, 0)))


def test_three_single_gpu_copies_on_two_card_servers() -> None:
    # The case of tests/solver/test_rules.py: ⌈3 / 2⌉ = 2 two-card servers.
    data = problem("""
site: {feed: 400v-3p-16a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-2]}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 3}]
""")
    server = cheapest_build_cents(data, "gpu-server-2", "rtx-pro-6000-se")
    assert brute_force(data).cents == 2 * server
    assert first_fit_decreasing(data) == 2 * server
    assert lower_bound_cents(data) == 3 * server // 2


def test_max_servers_makes_the_brute_force_infeasible() -> None:
    text = """
hardware: {{gpus: [rtx-pro-6000-se], chassis: [gpu-server-4]}}
site: {{feed: 400v-3p-16a, inlet_c: 25, max_servers: {limit}}}
runs:
  - {{name: lora, model: llama-3.3-70b, method: lora, seq_len: 2048, concurrent: 2}}
  - {{name: q, model: llama-3.1-8b, method: qlora}}
"""
    # each 70B LoRA copy takes four cards with its measured memory margin (issue 28)
    three = problem(text.format(limit=3))
    server = cheapest_build_cents(three, "gpu-server-4", "rtx-pro-6000-se")
    assert brute_force(three).cents == 3 * server
    assert brute_force(problem(text.format(limit=2))).cents is None
    assert first_fit_decreasing(problem(text.format(limit=2))) is None


def test_offload_needs_a_ram_upgrade() -> None:
    # 458.7 GB offloaded + 64 GB reserve > the 384 GB a two-card RTX server has for 2 × 192 GB.
    data = problem("""
site: {feed: 400v-3p-16a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-2]}
runs: [{name: o, model: qwen3-32b, method: full, offload: cpu, gpus: 1, seq_len: 2048}]
""")
    base = cheapest_build_cents(data, "gpu-server-2", "rtx-pro-6000-se")
    best = brute_force(data).cents
    assert best is not None and best > base
    build = next(f for f in data.builds if f.chassis.id == "gpu-server-2")
    ram = min(t.price for t in build.ram_upgrades if t.gb >= 458.67 + 64)
    assert best == cents(build.fixed_price) + cents(ram) + cents(build.disk.price)


@exercised(minimum=15)
@given(tiny_workload_dicts())
def test_bounds_enclose_the_brute_force(data: dict[str, Any]) -> None:
    problem_data = instance(to_workload(data), CATALOGUE)
    best = brute_force(problem_data).cents
    low, greedy = lower_bound_cents(problem_data), first_fit_decreasing(problem_data)
    if best is None:
        assert greedy is None
        return
    assert low is not None and low <= best
    reached()
    if greedy is not None:
        assert best <= greedy
