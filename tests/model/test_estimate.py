"""`ftopt.estimate`: the records a user reads before solving, one per run × card × GPU count."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.estimate import EstimateOption, estimate, server_shapes
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def _workload(run: dict[str, object], **extra: object) -> Workload:
    return Workload.model_validate({"runs": [run], **extra})


def test_one_record_per_run_with_typed_options(catalogue: Catalogue) -> None:
    workload = _workload(
        {
            "name": "a",
            "model": "llama-3.1-8b",
            "method": "lora",
            "gpus": 2,
            "dataset_tokens": 10**8,
            "epochs": 1,
        },
        hardware={"gpus": ["h200-nvl"]},
    )
    (run,) = estimate(workload, catalogue)
    assert run.profile.run.name == "a" and run.params > run.trainable_params > 0
    assert {(o.sizing.gpu, o.sizing.gpus, o.sizing.strategy.value) for o in run.options} == {
        ("h200-nvl", 2, "ddp"),
        ("h200-nvl", 2, "fsdp"),
    }
    for option in run.options:
        assert isinstance(option, EstimateOption) and option.servers == 1 and option.node_gpus == 2
        assert option.speed is not None and option.tokens_per_s == option.speed.tokens_per_s
        assert option.step_seconds == option.speed.step_seconds
        assert option.hours == pytest.approx(10**8 / option.speed.tokens_per_s / 3600)
        assert option.bound_step_seconds == option.sizing.step_seconds


def test_a_model_no_server_holds_gets_multi_server_options(catalogue: Catalogue) -> None:
    workload = load_workload(ROOT / "examples/405b-full.yaml", catalogue)
    (run,) = estimate(workload, catalogue)
    fitting = [o for o in run.options if o.sizing.fits]
    assert fitting and all(o.servers >= 2 for o in fitting)
    for option in fitting:
        assert option.sizing.gpus == option.servers * option.node_gpus
        assert option.sizing.gpu in {"b200-sxm", "b300-sxm", "h200-sxm"}
        assert option.speed is not None and option.speed.tokens_per_s > 0


def test_a_fixed_single_server_count_gets_no_multi_server_option(catalogue: Catalogue) -> None:
    workload = _workload({"name": "a", "model": "llama-3.1-8b", "method": "lora", "gpus": 8})
    (run,) = estimate(workload, catalogue)
    assert run.options and all(o.servers == 1 and o.sizing.gpus == 8 for o in run.options)


def test_cpu_offload_gets_no_multi_server_option(catalogue: Catalogue) -> None:
    workload = _workload({"name": "a", "model": "llama-3.1-405b", "method": "full", "offload": "cpu"})
    (run,) = estimate(workload, catalogue)
    assert all(o.servers == 1 for o in run.options)


def test_server_shapes_are_the_chassis_that_carry_a_nic(catalogue: Catalogue) -> None:
    assert server_shapes(catalogue, catalogue.gpu("b200-sxm")) == [(8, 8, catalogue.nic("cx7-400g-osfp"))]
    assert server_shapes(catalogue, catalogue.gpu("rtx-pro-6000-se")) == []


def test_states_only_counts_states_alone(catalogue: Catalogue) -> None:
    workload = _workload({"name": "a", "model": "llama-3.1-8b", "method": "lora", "gpus": 1})
    (run,) = estimate(workload, catalogue, states_only=True)
    assert all(o.sizing.activations_gb == 0 and o.sizing.overhead_gb == 0 for o in run.options)
