"""The problem data the model is built from: what the solver is offered before it searches."""

from __future__ import annotations

from ftopt.solver.problem.data import build_problem
from tests.solver.conftest import workload_from

OFFLOAD_RUN = """
site: {feed: 400v-3p-16a, inlet_c: 25}
runs: [{name: offload-32b, model: qwen3-32b, method: full, offload: cpu, gpus: 1, seq_len: 2048,
        concurrent: %d}]
"""


def heavy_per_config(copies: int, catalogue) -> set[int]:
    data = build_problem(workload_from(OFFLOAD_RUN % copies), catalogue)
    assert data.heavy_classes, "the offloaded run must make heavy copies"
    return {sum(count for _, count in config.heavy) for config in [*data.configs, *data.safe_configs]}


def test_configurations_hold_no_more_heavy_copies_than_the_bid_has(catalogue):
    # A server could hold several offloaded copies side by side, but a bid with one copy can only
    # ever buy configurations holding one: the others are not offered to the solver.
    assert heavy_per_config(1, catalogue) == {1}
    assert max(heavy_per_config(3, catalogue)) > 1
