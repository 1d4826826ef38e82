"""The optimiser family alone: runs fixed at 32-bit Adam are offered 8-bit, by id."""

from __future__ import annotations

from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import optimiser
from tests.solver.tiny import problem

FIXED = """
site: {feed: 400v-3p-32a, inlet_c: 25}
runs:
  - {name: fixed, model: llama-3.1-8b, method: full, optimizer: adamw-32bit}
  - {name: free, model: llama-3.1-8b, method: lora}
"""


def test_only_the_fixed_run_is_eased_to_auto() -> None:
    data = problem(FIXED)
    [eased] = optimiser.relax(data)
    assert eased.id == RelaxationId.OPTIMISER and eased.words == "8-bit Adam for fixed"
    assert [r.optimizer for r in eased.workload.runs] == ["auto", data.workload.runs[1].optimizer]
    assert optimiser.relax(problem(FIXED.replace(", optimizer: adamw-32bit", ""))) == []
