"""A method added as the docs say (docs/contributing/add-a-method.md): full fine-tuning with 8-bit
AdamW moments is one entry of methods.yaml (and the stacks that run it), no code. These tests show
that every rule reads it from the entry: its memory terms, its choices, its speed, its label."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.errors import InputError
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import FULL_ADAM_8BIT, FULL_ADAM_32BIT, model_states
from ftopt.model.sizing import CopySetup, optimizer_offload_choices, profile_run, size_run
from ftopt.model.speed import SpeedContext, estimate_speed, planning_host
from ftopt.model.summary import summarize
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy
from ftopt.reading.workload_file import load_workload_text
from ftopt.solver.solve import SolveSettings, solve


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def _copy(catalogue: Catalogue, method: str) -> tuple[float, float, float]:
    """(GB of model states, GB per GPU, compute seconds) of one Llama 3.1 8B copy on one H200 NVL,
    trained with the optimiser `auto` chooses for `method`."""
    run = Run(name="r", model="llama-3.1-8b", method=method, optimizer="auto", micro_batch=1)
    profile = profile_run(run, catalogue)
    ((optimizer, offload),) = optimizer_offload_choices(profile)[:1]
    gpu = catalogue.gpu("h200-nvl")
    sizing = size_run(CopySetup(profile, gpu, 1, Strategy.SINGLE, optimizer, offload, SizingOptions()))
    assert profile.stack is not None and catalogue.speed is not None
    host = planning_host(catalogue, 1, catalogue.speed)
    speed = estimate_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host))
    states = model_states(profile.counts, profile.method, optimizer, offload, run.lora_rank).gpu_bytes
    return states / 1e9, sizing.total_gb, speed.compute_seconds


def test_the_entry_declares_what_the_rules_read(catalogue: Catalogue) -> None:
    method = catalogue.methods.method("full-8bit")
    assert method.full and method.base == "bf16" and method.calibration == "full"
    assert method.offers.auto_optimizers == (Optimizer.ADAMW_8BIT,)
    assert not method.offers.allows(Optimizer.ADAMW_32BIT) and not method.offers.cpu_offload
    assert any("arxiv.org/abs/2110.02861" in s for s in method.sources)


def test_its_states_are_ten_bytes_a_parameter_and_its_speed_is_full_fine_tunings(
    catalogue: Catalogue,
) -> None:
    """8-bit moments: 2 + 2 + 4 + 2 bytes a parameter against full fine-tuning's 2 + 2 + 12, at the
    full fine-tune's MFU (it borrows full's calibration points)."""
    params = catalogue.model("llama-3.1-8b").params.total
    eight_states, eight_gb, eight_s = _copy(catalogue, "full-8bit")
    assert eight_states == pytest.approx(params * FULL_ADAM_8BIT / 1e9)
    run = Run(name="r", model="llama-3.1-8b", method="full", optimizer="adamw-32bit")
    full = profile_run(run, catalogue)
    full_states = model_states(full.counts, full.method, Optimizer.ADAMW_32BIT, Offload.NONE, 16).gpu_bytes
    assert full_states / 1e9 == pytest.approx(params * FULL_ADAM_32BIT / 1e9)
    _, full_gb, full_s = _copy(catalogue, "full")  # auto for full: 32-bit moments first
    assert eight_gb < full_gb - 0.9 * params * (FULL_ADAM_32BIT - FULL_ADAM_8BIT) / 1e9
    assert eight_s == pytest.approx(full_s, rel=0.02)


def _workload(run: str) -> str:
    return (
        "runs:\n  - name: r\n    model: llama-3.1-8b\n    method: full-8bit\n"
        f"{run}    train_tokens: 10000000\n"
        "site:\n  feed: 230v-32a\n  inlet_c: 25\nhardware:\n  gpus: [h200-nvl]\n"
    )


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ("    optimizer: adamw-32bit\n", "runs[0].optimizer", "optimizer for method full-8bit 'adamw-32bit'"),
        ("    offload: cpu\n", "runs[0].offload", "cpu applies to methods full, not full-8bit"),
    ],
)
def test_what_its_entry_does_not_offer_is_an_input_error(
    catalogue: Catalogue, extra: str, field: str, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        load_workload_text(_workload(extra), "w.yaml", catalogue)
    assert caught.value.field == field and words in caught.value.expected
    assert caught.value.line == 5


def test_a_bid_with_it_is_verified_and_quoted_by_its_label(catalogue: Catalogue) -> None:
    workload = load_workload_text(_workload(""), "w.yaml", catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    assert plan.runs[0].method == "full-8bit"
    assert summarize(plan, workload, catalogue).runs[0].method == "full 8-bit Adam"
    assert {a.optimizer for a in plan.assignments} == {Optimizer.ADAMW_8BIT}
