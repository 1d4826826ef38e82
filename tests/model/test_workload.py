"""The workload file's model: runs inherit the workload's stack, and bad values are refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.model.workload import DEFAULT_STACK, GPU_COUNTS, MULTI_NODE_COUNTS, Workload

BASE = {"site": {"feed": "230v-16a"}, "runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora"}]}


def test_runs_inherit_the_workloads_stack() -> None:
    assert Workload.model_validate(BASE).runs[0].stack == DEFAULT_STACK
    named = {**BASE, "stack": "torchtune"}
    assert Workload.model_validate(named).runs[0].stack == "torchtune"


@pytest.mark.parametrize(
    "run",
    [
        {"name": "a", "model": "llama-3.1-8b", "method": "lora", "gpus": 3},
        {"name": "a", "model": "llama-3.1-8b", "method": "lora", "concurrent": 0},
        {"name": "a", "model": "llama-3.1-8b", "method": ""},
    ],
    ids=["gpu-count", "concurrent", "method"],
)
def test_bad_run_values_are_refused(run: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Workload.model_validate({**BASE, "runs": [run]})


def test_gpu_counts_are_the_single_server_and_multi_node_powers_of_two() -> None:
    assert GPU_COUNTS == (1, 2, 4, 8)
    assert MULTI_NODE_COUNTS == (16, 32, 64)
    for count in (*GPU_COUNTS, *MULTI_NODE_COUNTS):
        run = {"name": "a", "model": "llama-3.1-8b", "method": "lora", "gpus": count}
        assert Workload.model_validate({**BASE, "runs": [run]}).runs[0].gpus == count


def test_a_site_names_its_coolant_and_a_rack_its_liquid_capacity() -> None:
    rack = {"name": "r1", "units": 42, "feeds": ["400v-3p-32a"], "liquid_kw": 80}
    site = {"coolant_c": 32, "inlet_c": 25, "racks": [rack, {**rack, "name": "r2", "liquid_kw": None}]}
    parsed = Workload.model_validate({**BASE, "site": site}).site
    assert parsed.coolant_c == 32.0
    assert parsed.racks is not None and [r.liquid_kw for r in parsed.racks] == [80.0, None]
    assert Workload.model_validate(BASE).site.coolant_c is None
    with pytest.raises(ValidationError):
        Workload.model_validate({**BASE, "site": {**site, "coolant_c": 90}})


def test_runs_inherit_the_workloads_deadline_confidence_unless_they_set_their_own() -> None:
    base = {"name": "a", "model": "llama-3.1-8b", "method": "lora"}
    plain = Workload.model_validate({"runs": [base]})
    assert plain.deadline_confidence == 0.9 and plain.runs[0].deadline_confidence == 0.9
    mixed = Workload.model_validate(
        {"deadline_confidence": 0.5, "runs": [base, {**base, "name": "b", "deadline_confidence": 0.9}]}
    )
    assert [r.deadline_confidence for r in mixed.runs] == [0.5, 0.9]


@pytest.mark.parametrize("value", [0.8, "high", True, 90])
def test_a_deadline_confidence_other_than_p50_or_p90_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"expected 0\.5 or 0\.9"):
        Workload.model_validate(
            {"deadline_confidence": value, "runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora"}]}
        )
