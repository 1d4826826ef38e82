"""Sizing one run on one card: the rules of memory.py, activations.py and traffic.py put together,
and the choices `all_sizings` enumerates."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import ValidationError

from ftopt.catalogue import load_catalogue
from ftopt.model.activations import MicroBatch, activation_bytes, logits_bytes
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.sizing import (
    LEGACY_LOGIT_BYTES,
    CopySetup,
    RunProfile,
    Sizing,
    all_sizings,
    offload_choices,
    optimizer_choices,
    profile_run,
    size_run,
)
from ftopt.model.workload import (
    DEFAULT_STACK,
    InlineModel,
    Offload,
    Optimizer,
    Recompute,
    Run,
    SizingOptions,
    Strategy,
)

FULL, LORA, QLORA = "full", "lora", "qlora"
A32, A8 = Optimizer.ADAMW_32BIT, Optimizer.ADAMW_8BIT
NONE, CPU = Offload.NONE, Offload.CPU
SINGLE, DDP, FSDP = Strategy.SINGLE, Strategy.DDP, Strategy.FSDP
TOY_TOTAL = 1352  # conftest.toy_arch, counted by hand there


def toy_profile(arch: Architecture, **run_fields) -> RunProfile:
    fields = {"name": "toy", "method": FULL, **run_fields}
    run = Run(model=InlineModel(name="toy", architecture=arch), **fields)
    catalogue = load_catalogue()
    return RunProfile(
        run,
        "toy",
        arch,
        method=catalogue.methods.method(run.method),
        algorithm=catalogue.methods.algorithm(run.algorithm),
        rollout=catalogue.rollout,
    )


def make_sizing(states: float, activations: float, overhead: float, card: float) -> Sizing:
    return Sizing(
        run="r",
        gpu="g",
        gpus=1,
        strategy=SINGLE,
        optimizer=A32,
        offload=NONE,
        states_gb=states,
        activations_gb=activations,
        overhead_gb=overhead,
        card_gb=card,
        host_ram_gb=0,
        checkpoint_gb=0,
        nvme_gb=0,
        traffic_gb_per_step=0,
        link=None,
        compute_seconds=2.0,
        transfer_seconds=3.0,
    )


# --- fits and free memory ---------------------------------------------------------------------


def test_total_fits_and_free() -> None:
    # 60 + 20 + 10 = 90 of 96: fits with 6 free
    s = make_sizing(60, 20, 10, 96)
    assert s.total_gb == 90
    assert s.fits
    assert s.free_gb == 6


def test_exactly_full_card_fits_and_over_does_not() -> None:
    assert make_sizing(96, 0, 0, 96).fits
    over = make_sizing(90, 5, 2, 96)
    assert not over.fits
    assert over.free_gb == pytest.approx(-1)


def test_step_time_is_the_longer_of_compute_and_transfer() -> None:
    assert make_sizing(1, 0, 0, 96).step_seconds == 3.0


def test_full_8b_does_not_fit_a_96gb_card(catalogue: Catalogue) -> None:
    # 16 · 8.03 B = 128.5 GB > 96 GB: free is negative by about 32.5
    run = Run(name="r", model="llama-3.1-8b", method=FULL, optimizer=A32, gpus=1)
    s = size_run(
        CopySetup(
            profile_run(run, catalogue),
            catalogue.gpu("rtx-pro-6000-se"),
            1,
            SINGLE,
            A32,
            NONE,
            SizingOptions(states_only=True),
        ),
    )
    assert not s.fits
    assert s.free_gb == pytest.approx(96 - 128.484179968)


# --- states_only and the extra terms ------------------------------------------------------------


def test_states_only_zeroes_activations_and_overhead(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    p = toy_profile(toy_arch, optimizer=A32)
    s = size_run(CopySetup(p, pcie_gpu, 1, SINGLE, A32, NONE, SizingOptions(states_only=True)))
    assert s.activations_gb == 0
    assert s.overhead_gb == 0
    assert s.states_gb == pytest.approx(16 * TOY_TOTAL / 1e9)
    assert s.total_gb == s.states_gb


def test_real_plan_counts_activations_logits_and_overhead(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    # defaults: gradient checkpointing → full recompute, FlashAttention, 1 GB context, 5 % reserve
    p = toy_profile(toy_arch, optimizer=A32, seq_len=4, micro_batch=3)
    s = size_run(CopySetup(p, pcie_gpu, 1, SINGLE, A32, NONE, SizingOptions()))
    act = activation_bytes(MicroBatch(toy_arch, 4, 3, Recompute.FULL, True))
    act += logits_bytes(toy_arch, 4, 3, 12)
    assert act == 4224 + 1440  # test_activations: FULL with FlashAttention, plus s·b·V·12 (hf-fsdp)
    assert s.activations_gb == pytest.approx(act / 1e9)
    states = 16 * TOY_TOTAL
    assert s.overhead_gb == pytest.approx((1e9 + 0.05 * (states + act)) / 1e9)
    assert s.total_gb > s.states_gb


def test_peak_allocated_counts_the_larger_of_logits_and_working_layer(
    toy_arch: Architecture, pcie_gpu: Gpu
) -> None:
    # layer inputs 384 stay; the working layer (2,880 + 960 = 3,840) and the logits (1,200) do not
    # coexist in allocated memory: 384 + 3,840 = 4,224
    p = toy_profile(toy_arch, optimizer=A32, seq_len=4, micro_batch=3)
    options = SizingOptions(cuda_context_gb=0, allocator_reserve=0)
    s = size_run(CopySetup(p, pcie_gpu, 1, SINGLE, A32, NONE, options), peak_allocated=True)
    assert s.activations_gb == pytest.approx(4224 / 1e9)


def test_fsdp_overhead_holds_two_gathered_layers(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    # no context, no reserve: FSDP keeps 2 · largest layer (10 · 8 = 80) · 2 bytes = 320; DDP none
    p = toy_profile(toy_arch, optimizer=A32)
    options = SizingOptions(cuda_context_gb=0, allocator_reserve=0)
    fsdp = size_run(CopySetup(p, pcie_gpu, 2, FSDP, A32, NONE, options))
    ddp = size_run(CopySetup(p, pcie_gpu, 2, DDP, A32, NONE, options))
    assert fsdp.overhead_gb == pytest.approx(320 / 1e9)
    assert ddp.overhead_gb == 0


# --- division, host RAM, disk, traffic -----------------------------------------------------------


def test_ddp_replicates_fsdp_divides(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    p = toy_profile(toy_arch, optimizer=A32)
    only = SizingOptions(states_only=True)
    ddp = size_run(CopySetup(p, pcie_gpu, 4, DDP, A32, NONE, only))
    fsdp = size_run(CopySetup(p, pcie_gpu, 4, FSDP, A32, NONE, only))
    assert ddp.states_gb == pytest.approx(16 * TOY_TOTAL / 1e9)
    assert fsdp.states_gb == pytest.approx(16 * TOY_TOTAL / 4 / 1e9)
    assert ddp.sharded is False
    assert fsdp.sharded is True


@pytest.mark.parametrize("gpus", [2, 8])
def test_offload_host_ram_is_one_copy(toy_arch: Architecture, pcie_gpu: Gpu, gpus: int) -> None:
    # 14 · 1,352 in host RAM whatever the GPU count; 2 · 1,352 / N on each card
    p = toy_profile(toy_arch, optimizer=A32, offload="cpu")
    s = size_run(CopySetup(p, pcie_gpu, gpus, FSDP, A32, CPU, SizingOptions(states_only=True)))
    assert s.host_ram_gb == pytest.approx(14 * TOY_TOTAL / 1e9)
    assert s.states_gb == pytest.approx(2 * TOY_TOTAL / gpus / 1e9)


def test_checkpoint_and_nvme(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    # checkpoint 14 · 1,352 = 18,928; keep 3: 3 · 18,928 + 2 · 1,352 = 59,488
    p = toy_profile(toy_arch, optimizer=A32, keep_checkpoints=3)
    s = size_run(CopySetup(p, pcie_gpu, 1, SINGLE, A32, NONE, SizingOptions(states_only=True)))
    assert s.checkpoint_gb == pytest.approx(18_928 / 1e9)
    assert s.nvme_gb == pytest.approx(59_488 / 1e9)


def test_fsdp_full_traffic_and_link(toy_arch: Architecture, bridged_gpu: Gpu) -> None:
    # W = 2 · 1,352 = 2,704; 3 · 2,704 · 3/4 = 6,084 bytes over 900/2 GB/s NVLink
    p = toy_profile(toy_arch, optimizer=A32)
    s = size_run(CopySetup(p, bridged_gpu, 4, FSDP, A32, NONE, SizingOptions(states_only=True)))
    assert s.traffic_gb_per_step == pytest.approx(6084 / 1e9)
    assert s.link == "nvlink"
    assert s.transfer_seconds == pytest.approx(6084 / 450e9)


def test_ddp_lora_traffic_is_adapter_gradients(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    # rank 4: 4 · 256 = 1,024 adapter weights; 2Ψ = 2 · 1,024 · 2 = 4,096 bytes
    p = toy_profile(toy_arch, method=LORA, optimizer=A32, lora_rank=4)
    s = size_run(CopySetup(p, pcie_gpu, 2, DDP, A32, NONE, SizingOptions(states_only=True)))
    assert s.traffic_gb_per_step == pytest.approx(4096 / 1e9)
    assert s.link == "pcie"


def test_single_gpu_has_no_link_and_no_transfer(toy_arch: Architecture, bridged_gpu: Gpu) -> None:
    p = toy_profile(toy_arch, optimizer=A32)
    s = size_run(CopySetup(p, bridged_gpu, 1, SINGLE, A32, NONE, SizingOptions(states_only=True)))
    assert s.link is None
    assert s.traffic_gb_per_step == 0
    assert s.transfer_seconds == 0


# --- compute time --------------------------------------------------------------------------------


def test_gradient_checkpointing_adds_a_forward(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    # full fine-tuning: 6·P·tokens without, 8·P·tokens with full recomputation
    # 6 · 1,352 · 4,096 at 100 TFLOPS and MFU 0.4
    options = SizingOptions(states_only=True)
    plain = toy_profile(toy_arch, optimizer=A32, gradient_checkpointing=False)
    ckpt = toy_profile(toy_arch, optimizer=A32, gradient_checkpointing=True)
    assert plain.run.recompute == Recompute.SELECTIVE
    assert ckpt.run.recompute == Recompute.FULL
    s_plain = size_run(CopySetup(plain, pcie_gpu, 1, SINGLE, A32, NONE, options))
    s_ckpt = size_run(CopySetup(ckpt, pcie_gpu, 1, SINGLE, A32, NONE, options))
    assert s_plain.compute_seconds == pytest.approx(6 * TOY_TOTAL * 4096 / (100e12 * 0.4))
    assert s_ckpt.compute_seconds == pytest.approx(s_plain.compute_seconds * 8 / 6)


def test_moe_step_time_uses_active_parameters(catalogue: Catalogue) -> None:
    # Mixtral: 6 · 12,879,925,248 active · 4,096 tokens, not the 46.7 B total
    run = Run(name="m", model="mixtral-8x7b", method=FULL, gradient_checkpointing=False)
    gpu = catalogue.gpu("h200-nvl")
    options = SizingOptions(states_only=True, mfu=1.0)
    s = size_run(CopySetup(profile_run(run, catalogue), gpu, 8, FSDP, A32, NONE, options))
    expected = 6 * 12_879_925_248 * 4096 / (gpu.bf16_dense_tflops * 1e12)
    assert s.compute_seconds == pytest.approx(expected)
    # memory still holds every expert: 16 · 46,702,792,704 / 8
    assert s.states_gb == pytest.approx(16 * 46_702_792_704 / 8 / 1e9)


# --- enumeration and choices ----------------------------------------------------------------------


def test_all_sizings_counts_and_strategies(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    p = toy_profile(toy_arch, method=LORA, optimizer=A32)
    got = [(s.gpus, s.strategy) for s in all_sizings(p, pcie_gpu, SizingOptions())]
    assert got == [
        (1, SINGLE),
        (2, DDP),
        (2, FSDP),
        (4, DDP),
        (4, FSDP),
        (8, DDP),
        (8, FSDP),
    ]


def test_all_sizings_fixed_gpu_count(toy_arch: Architecture, pcie_gpu: Gpu) -> None:
    p = toy_profile(toy_arch, method=LORA, optimizer=A32, gpus=4)
    got = [(s.gpus, s.strategy) for s in all_sizings(p, pcie_gpu, SizingOptions())]
    assert got == [(4, DDP), (4, FSDP)]


def test_auto_full_tries_both_optimisers_and_offload_never_cpu_with_8bit(
    toy_arch: Architecture, pcie_gpu: Gpu
) -> None:
    p = toy_profile(toy_arch, optimizer="auto", offload="auto", gpus=2)
    assert set(optimizer_choices(p.run, p.method)) == {A32, A8}
    assert set(offload_choices(p.run, p.method)) == {NONE, CPU}
    combos = {(s.strategy, s.optimizer, s.offload) for s in all_sizings(p, pcie_gpu, SizingOptions())}
    expected = {(st, A32, NONE) for st in (DDP, FSDP)}
    expected |= {(st, A32, CPU) for st in (DDP, FSDP)}
    expected |= {(st, A8, NONE) for st in (DDP, FSDP)}
    assert combos == expected


@pytest.mark.parametrize("method", [LORA, QLORA])
def test_auto_adapter_keeps_32bit_and_no_offload(toy_arch: Architecture, pcie_gpu: Gpu, method: str) -> None:
    p = toy_profile(toy_arch, method=method, optimizer="auto", offload="auto", gpus=1)
    assert optimizer_choices(p.run, p.method) == (A32,)
    assert offload_choices(p.run, p.method) == (NONE,)
    sizings = all_sizings(p, pcie_gpu, SizingOptions())
    assert [(s.optimizer, s.offload) for s in sizings] == [(A32, NONE)]


def test_explicit_choices_are_kept(toy_arch: Architecture) -> None:
    p = toy_profile(toy_arch, optimizer="adamw-8bit", offload="none")
    assert optimizer_choices(p.run, p.method) == (A8,)
    assert offload_choices(p.run, p.method) == (NONE,)


# --- validation of the run -------------------------------------------------------------------------


def test_offload_cpu_with_8bit_adam_is_rejected() -> None:
    with pytest.raises(ValidationError, match="32-bit"):
        Run(name="r", model="llama-3.1-8b", method="full", optimizer="adamw-8bit", offload="cpu")


@pytest.mark.parametrize("gpus", [0, 3, 12, 128])
def test_gpu_count_must_be_a_server_or_multi_node_count(gpus: int) -> None:
    with pytest.raises(ValidationError):
        Run(name="r", model="llama-3.1-8b", method="full", gpus=gpus)


def test_offload_cpu_with_full_is_accepted() -> None:
    run = Run(name="r", model="llama-3.1-8b", method="full", offload="cpu")
    assert run.offload == CPU


# --- the planning memory margin (issue 19) ---------------------------------------------------------


def test_the_margin_raises_memory_before_the_fit_test() -> None:
    # 90 GB on a 96 GB card: fits bare (6 free) but not with a 10 % margin (99 GB), whose headroom
    # is then negative; free memory stays what the card has left of the bare total.
    s = replace(make_sizing(60, 20, 10, 96), memory_margin=0.1)
    assert s.planned_gb == pytest.approx(99)
    assert not s.fits
    assert s.headroom_gb == pytest.approx(-3)
    assert s.free_gb == 6
    assert replace(s, memory_margin=0.05).fits


def test_the_stack_margin_comes_from_the_catalogue_and_the_workload_overrides_it(
    catalogue: Catalogue,
) -> None:
    run = Run(name="q", model="llama-3.1-8b", method=QLORA, stack="hf-fsdp")
    profile = profile_run(run, catalogue)
    assert catalogue.margins is not None
    assert profile.memory_margin == catalogue.margins.of("hf-fsdp", "qlora") > 0
    gpu = catalogue.gpu("h200-nvl")
    by_stack = size_run(CopySetup(profile, gpu, 1, SINGLE, A32, NONE, SizingOptions()))
    assert by_stack.memory_margin == profile.memory_margin
    overridden = size_run(CopySetup(profile, gpu, 1, SINGLE, A32, NONE, SizingOptions(memory_margin=0.3)))
    assert overridden.memory_margin == 0.3
    assert overridden.total_gb == by_stack.total_gb
    assert overridden.headroom_gb == pytest.approx(gpu.memory_gb - by_stack.total_gb * 1.3)


def test_a_margin_beyond_one_is_refused() -> None:
    with pytest.raises(ValidationError):
        SizingOptions(memory_margin=1.5)


def test_the_stackless_logit_bytes_are_the_default_stacks(catalogue: Catalogue) -> None:
    """A run without a stack counts its loss's logits as the default stack does (sizing.py says so);
    this binds the constant to stacks.yaml, where the figure and its source live."""
    assert catalogue.stack(DEFAULT_STACK).loss.logit_bytes == LEGACY_LOGIT_BYTES


@pytest.mark.parametrize("method", [QLORA, LORA])
def test_the_qlora_fp32_upcast_widens_activations_and_the_non_quantised_weights(
    toy_arch: Architecture, pcie_gpu: Gpu, catalogue: Catalogue, method: str
) -> None:
    """PEFT's prepare_model_for_kbit_training (Stack.qlora_fp32_upcast): the 200 non-linear weights
    (embeddings 80, head 80, norms 40) take 4 B instead of 2 (400 B more) and the activations are
    FP32: with full recomputation and FlashAttention 2 · 4,224 beside the same 12 B logits (1,440).
    LoRA on a BF16 base is untouched."""
    options = SizingOptions(cuda_context_gb=0, allocator_reserve=0)
    hf = catalogue.stack("hf-fsdp")
    assert hf.qlora_fp32_upcast  # plans count the cast since 2026-12-05 (stacks.yaml, changes.yaml)
    plain = replace(
        toy_profile(toy_arch, method=method, seq_len=4, micro_batch=3),
        stack=hf.model_copy(update={"qlora_fp32_upcast": False}),
    )
    upcast = replace(plain, stack=hf)
    before = size_run(CopySetup(plain, pcie_gpu, 1, SINGLE, A32, NONE, options))
    after = size_run(CopySetup(upcast, pcie_gpu, 1, SINGLE, A32, NONE, options))
    assert before.activations_gb == pytest.approx((4224 + 1440) / 1e9)
    if method == LORA:
        assert after == before
        return
    assert after.activations_gb == pytest.approx((2 * 4224 + 1440) / 1e9)
    assert (after.states_gb - before.states_gb) * 1e9 == pytest.approx(400)


def test_selective_recomputation_follows_the_stacks_policy(
    toy_arch: Architecture, pcie_gpu: Gpu, catalogue: Catalogue
) -> None:
    """`gradient_checkpointing: selective` keeps the whole layer but its scores on a stack whose
    selective_keeps is `layer` (6,720 B, test_activations) and torchtitan's op-level policy's share on
    one whose is `matmuls` (5,088 B), beside the same logits (12 B · 12 · 10 = 1,440)."""
    options = SizingOptions(cuda_context_gb=0, allocator_reserve=0)
    profile = toy_profile(toy_arch, seq_len=4, micro_batch=3, gradient_checkpointing="selective")
    layer = replace(profile, stack=catalogue.stack("hf-fsdp"))
    assert layer.stack is not None and layer.stack.selective_keeps == "layer"
    matmuls = replace(layer, stack=layer.stack.model_copy(update={"selective_keeps": "matmuls"}))
    kept = {
        name: size_run(CopySetup(p, pcie_gpu, 1, SINGLE, A32, NONE, options)).activations_gb * 1e9
        for name, p in (("layer", layer), ("matmuls", matmuls))
    }
    assert kept == pytest.approx({"layer": 6720 + 1440, "matmuls": 5088 + 1440})
