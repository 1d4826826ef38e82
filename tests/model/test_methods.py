"""The method registry: every method and algorithm declared once, read by sizing, speed and choices;
DoRA added through it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from ftopt.catalogue import load_catalogue
from ftopt.catalogue.overlay import apply_catalogue_dir
from ftopt.model.architecture import Architecture, count_params
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import ADAPTER_ADAM_32BIT, BF16, dequant_buffer_bytes, model_states
from ftopt.model.methods import MethodRegistry, Phase
from ftopt.model.roles import Role
from ftopt.model.sizing import CopySetup, optimizer_choices, profile_run, size_run
from ftopt.model.speed import SpeedContext, estimate_speed, planning_host
from ftopt.model.workload import Algorithm, Offload, Optimizer, Run, SizingOptions, Strategy

A32, NONE = Optimizer.ADAMW_32BIT, Offload.NONE


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def test_every_method_and_algorithm_has_one_entry(catalogue: Catalogue) -> None:
    registry = catalogue.methods
    assert len(registry.ids) == len(set(registry.ids)) and {"full", "lora", "qlora"} <= set(registry.ids)
    assert {a.id for a in registry.algorithms} == set(Algorithm)
    assert all(m.label and m.sources for m in registry.methods)


def test_a_registry_missing_a_calibrated_method_is_refused(catalogue: Catalogue) -> None:
    """full, lora and qlora carry the calibration points (stack MFU, margins) others read."""
    data = catalogue.methods.model_dump()
    data["methods"] = [m for m in data["methods"] if m["id"] != "qlora"]
    with pytest.raises(ValidationError, match="missing \\['qlora'\\]"):
        MethodRegistry.model_validate(data)


def test_a_method_without_calibration_points_must_borrow_some(catalogue: Catalogue) -> None:
    data = catalogue.methods.model_dump()
    data["methods"] = [*data["methods"], {**data["methods"][0], "id": "apollo", "calibrated_as": None}]
    with pytest.raises(ValidationError, match="apollo: has no calibration points"):
        MethodRegistry.model_validate(data)


def test_calibrated_as_must_name_a_calibrated_method(catalogue: Catalogue) -> None:
    data = catalogue.methods.model_dump()
    for m in data["methods"]:
        if m["id"] == "lora":
            m["calibrated_as"] = "full"
    with pytest.raises(ValidationError, match="calibrated_as"):
        MethodRegistry.model_validate(data)


def test_roles_and_phases_of_the_algorithms(catalogue: Catalogue) -> None:
    algorithm = catalogue.methods.algorithm
    assert algorithm(Algorithm.SFT).roles == (Role.POLICY,)
    assert Role.CRITIC in algorithm(Algorithm.PPO).roles
    assert Role.CRITIC not in algorithm(Algorithm.GRPO).roles
    assert [a.id for a in catalogue.methods.algorithms if a.generates] == [Algorithm.GRPO, Algorithm.PPO]
    assert algorithm(Algorithm.DPO).sequences_per_sample == 2
    assert Phase.GENERATION not in algorithm(Algorithm.DPO).phases


def test_dora_trains_the_lora_adapter_and_one_magnitude_per_output_feature(
    catalogue: Catalogue, toy_arch: Architecture
) -> None:
    # toy_arch per layer: outputs q 8 + k 4 + v 4 + o 8 + gate 16 + up 16 + down 8 = 64; two layers.
    counts = count_params(toy_arch)
    assert counts.adapted_outputs == 128
    dora, lora = catalogue.methods.method("dora"), catalogue.methods.method("lora")
    assert dora.trainable(counts, 4) == lora.trainable(counts, 4) + 128 == 4 * 256 + 128
    extra = (
        model_states(counts, dora, A32, NONE, 4).gpu_bytes
        - model_states(counts, lora, A32, NONE, 4).gpu_bytes
    )
    assert extra == 128 * ADAPTER_ADAM_32BIT
    # W + BA of the widest layer (an MLP projection, 8 × 16) in BF16 while it works; LoRA has none.
    assert dequant_buffer_bytes(toy_arch, dora) == 8 * 16 * BF16
    assert dequant_buffer_bytes(toy_arch, lora) == 0


def test_llama_8b_dora_adds_its_published_magnitude_count(catalogue: Catalogue) -> None:
    # Llama 3.1 8B: per layer q 4096 + k 1024 + v 1024 + o 4096 + gate 14336 + up 14336 + down 4096
    # = 43,008 output features, 32 layers.
    counts = catalogue.model("llama-3.1-8b").params
    assert counts.adapted_outputs == 32 * 43_008


def _speed(catalogue: Catalogue, method: str) -> tuple[float, float]:
    """(compute seconds, GB per GPU) of one Llama 3.1 8B copy on one H200 NVL."""
    run = Run(name="r", model="llama-3.1-8b", method=method, micro_batch=1, gradient_checkpointing=True)
    profile = profile_run(run, catalogue)
    gpu = catalogue.gpu("h200-nvl")
    sizing = size_run(CopySetup(profile, gpu, 1, Strategy.SINGLE, A32, NONE, SizingOptions()))
    assert profile.stack is not None and catalogue.speed is not None
    host = planning_host(catalogue, 1, catalogue.speed)
    speed = estimate_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host))
    return speed.compute_seconds, sizing.total_gb


def test_dora_takes_its_measured_step_time_over_lora_at_loras_mfu(catalogue: Catalogue) -> None:
    dora_s, dora_gb = _speed(catalogue, "dora")
    lora_s, lora_gb = _speed(catalogue, "lora")
    assert dora_s == pytest.approx(1.7 * lora_s)
    assert dora_gb > lora_gb


def test_a_vendor_directory_replaces_a_method_entry(catalogue: Catalogue, tmp_path: Path) -> None:
    data = catalogue.methods.model_dump(mode="json")
    for m in data["methods"]:
        if m["id"] == "dora":
            m["step_time_factor"] = 1.2
    (tmp_path / "methods.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    vendor = apply_catalogue_dir(catalogue, tmp_path)
    assert vendor.methods.method("dora").step_time_factor == 1.2
    assert _speed(vendor, "dora")[0] == pytest.approx(1.2 * _speed(catalogue, "lora")[0])


def test_auto_optimizers_come_from_the_method(catalogue: Catalogue) -> None:
    run = Run(name="r", model="llama-3.1-8b", method="full", optimizer="auto")
    profile = profile_run(run, catalogue)
    eight_bit_only = profile.method.model_copy(
        update={
            "offers": profile.method.offers.model_copy(update={"auto_optimizers": (Optimizer.ADAMW_8BIT,)})
        }
    )
    assert optimizer_choices(run, profile.method) == (A32, Optimizer.ADAMW_8BIT)
    assert optimizer_choices(run, replace(profile, method=eight_bit_only).method) == (Optimizer.ADAMW_8BIT,)
