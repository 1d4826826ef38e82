"""Model-state bytes per parameter, on a hand-made parameter split.

The split: 1,000 parameters, 800 in decoder linear layers, 100 embeddings, 50 vision, 50 other;
rank-1 LoRA has 10 adapter weights, so rank 4 has 40.
"""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture, ParamCounts
from ftopt.model.memory import (
    NF4_BYTES_PER_PARAM,
    checkpoint_bytes,
    dequant_buffer_bytes,
    frozen_base_bytes,
    largest_linear_params,
    model_states,
    nvme_bytes,
    states_per_gpu,
    trainable_params,
)
from ftopt.model.methods import TrainingMethod
from ftopt.model.workload import Offload, Optimizer, Strategy

FULL, LORA, QLORA, DORA = (load_catalogue().methods.method(m) for m in ("full", "lora", "qlora", "dora"))
A32, A8 = Optimizer.ADAMW_32BIT, Optimizer.ADAMW_8BIT
NONE, CPU = Offload.NONE, Offload.CPU


@pytest.fixture
def counts() -> ParamCounts:
    return ParamCounts(
        total=1000,
        linear=800,
        embeddings=100,
        vision=50,
        other=50,
        active=1000,
        lora_per_rank=10,
        largest_layer=100,
    )


def test_full_adam_32bit_is_16_bytes(counts: ParamCounts) -> None:
    # 2 weights + 2 grads + 12 FP32 master and moments = 16 · 1,000
    s = model_states(counts, FULL, A32, NONE, lora_rank=4)
    assert s.gpu_bytes == 16_000
    assert s.host_bytes == 0
    assert s.trainable == 1000


def test_full_adam_8bit_is_10_bytes(counts: ParamCounts) -> None:
    # 2 + 2 + 4 master + 2 moments = 10 · 1,000
    assert model_states(counts, FULL, A8, NONE, lora_rank=4).gpu_bytes == 10_000


def test_fp32_grad_buffer_counts_18(counts: ParamCounts) -> None:
    # Hugging Face's count: 16 + 2 = 18 · 1,000
    s = model_states(counts, FULL, A32, NONE, lora_rank=4, fp32_grad_buffer=True)
    assert s.gpu_bytes == 18_000


def test_offload_keeps_2_on_gpu_and_14_on_host(counts: ParamCounts) -> None:
    # ZeRO-Offload: BF16 weights 2 · 1,000 on the GPUs, 14 · 1,000 in host RAM
    s = model_states(counts, FULL, A32, CPU, lora_rank=4)
    assert s.gpu_bytes == 2000
    assert s.host_bytes == 14_000


def test_lora_bf16_base_plus_16_per_adapter_weight(counts: ParamCounts) -> None:
    # base 2 · 1,000 = 2,000; adapter rank 4 = 40 weights · 16 = 640 → 2,640
    s = model_states(counts, LORA, A32, NONE, lora_rank=4)
    assert s.trainable == 40
    assert s.gpu_bytes == 2640
    assert s.host_bytes == 0


def test_lora_8bit_adapter_is_10_bytes(counts: ParamCounts) -> None:
    # 2,000 + 40 · 10 = 2,400
    assert model_states(counts, LORA, A8, NONE, lora_rank=4).gpu_bytes == 2400


def test_nf4_constant_is_about_0516() -> None:
    # 4 bits = 0.5 B plus 0.127 bits of double-quantised constants = 0.015875 B
    assert abs(NF4_BYTES_PER_PARAM - 0.515875) < 1e-12
    assert round(NF4_BYTES_PER_PARAM, 3) == 0.516


def test_qlora_nf4_linear_and_bf16_rest(counts: ParamCounts) -> None:
    # linear 800 · 0.515875 = 412.7; embeddings + vision + other 200 · 2 = 400; adapter 40 · 16 = 640
    # → 1,452.7
    assert frozen_base_bytes(counts, QLORA) == pytest.approx(812.7)
    s = model_states(counts, QLORA, A32, NONE, lora_rank=4)
    assert s.gpu_bytes == pytest.approx(1452.7)


def test_lora_base_is_bf16(counts: ParamCounts) -> None:
    assert frozen_base_bytes(counts, LORA) == 2000


def test_trainable_params(counts: ParamCounts) -> None:
    assert trainable_params(counts, FULL, 4) == 1000
    assert trainable_params(counts, LORA, 4) == 40
    assert trainable_params(counts, QLORA, 8) == 80


@pytest.mark.parametrize("gpus", [2, 4, 8])
def test_fsdp_divides_ddp_replicates(counts: ParamCounts, gpus: int) -> None:
    # 16,000 bytes: FSDP gives 16,000 / N per card; DDP and a single card keep all of it
    s = model_states(counts, FULL, A32, NONE, lora_rank=4)
    assert states_per_gpu(s, Strategy.FSDP, gpus) == 16_000 / gpus
    assert states_per_gpu(s, Strategy.DDP, gpus) == 16_000
    assert states_per_gpu(s, Strategy.SINGLE, 1) == 16_000


def test_checkpoint_full_is_14_bytes(counts: ParamCounts) -> None:
    # FP32 master + moments 12 + BF16 weights 2 = 14 · 1,000
    assert checkpoint_bytes(counts, FULL, A32, lora_rank=4) == 14_000


def test_checkpoint_full_8bit_is_8_bytes(counts: ParamCounts) -> None:
    # FP32 master 4 + 8-bit moments 2 + BF16 weights 2 = 8 · 1,000
    assert checkpoint_bytes(counts, FULL, A8, lora_rank=4) == 8000


def test_checkpoint_adapter_is_16_bytes(counts: ParamCounts) -> None:
    # the adapter only: 40 weights · 16; the frozen base is not saved
    assert checkpoint_bytes(counts, LORA, A32, lora_rank=4) == 640
    assert checkpoint_bytes(counts, QLORA, A32, lora_rank=4) == 640
    assert checkpoint_bytes(counts, LORA, A8, lora_rank=4) == 400


@pytest.mark.parametrize(("keep", "expected"), [(0, 2000), (1, 16_000), (3, 44_000)])
def test_nvme_keeps_checkpoints_plus_bf16_base(counts: ParamCounts, keep: int, expected: int) -> None:
    # keep · 14,000 + 2 · 1,000
    assert nvme_bytes(14_000, keep, counts) == expected


# --- QLoRA's dequantisation buffer (issue 19) -------------------------------------------------------


def test_qlora_dequantises_the_widest_linear_layer_to_bf16(toy_arch: Architecture) -> None:
    # toy_arch: hidden 8, MLP 16, 2 heads of 4: the widest linear is an MLP projection, 8 × 16 = 128
    # weights, 256 bytes in BF16 while it is dequantised.
    assert largest_linear_params(toy_arch) == 128
    assert dequant_buffer_bytes(toy_arch, QLORA) == 256


@pytest.mark.parametrize("method", [FULL, LORA])
def test_no_dequantisation_buffer_without_nf4(toy_arch: Architecture, method: TrainingMethod) -> None:
    assert dequant_buffer_bytes(toy_arch, method) == 0


def test_the_query_projection_counts_when_it_is_the_widest() -> None:
    wide_query = Architecture(
        layers=1, hidden=8, intermediate=4, heads=4, kv_heads=1, head_dim=4, vocab=10, tied_embeddings=False
    )
    assert largest_linear_params(wide_query) == 8 * 16


#: A registry entry with projected optimiser states (the field GaLore's entry sets).
PROJECTED = FULL.model_copy(update={"id": "projected", "projected_states": True})


def test_projected_states_follow_galores_mr_plus_2nr_per_layer() -> None:
    """One 64 × 256 linear layer and 100 other parameters at rank 8: the moments are 8 × 256 each
    (the longer side), the projector 8 × 64 (the shorter side) in BF16, the rest two full moments."""
    counts = ParamCounts(
        total=64 * 256 + 100,
        linear=64 * 256,
        embeddings=100,
        vision=0,
        other=0,
        active=64 * 256 + 100,
        lora_per_rank=64 + 256,
        largest_layer=100,
        long_sides=256,
    )
    weights_grads_master = (2 + 2 + 4) * counts.total
    moments_32 = 2 * 4 * (100 + 8 * 256)
    projector = 2 * 8 * 64
    states = model_states(counts, PROJECTED, A32, NONE, lora_rank=8)
    assert states.gpu_bytes == weights_grads_master + moments_32 + projector
    assert states.trainable == counts.total  # every weight still trains
    pure_8bit = model_states(counts, PROJECTED, A8, NONE, lora_rank=8, master_weights="bf16")
    assert pure_8bit.gpu_bytes == (2 + 2) * counts.total + 2 * 1 * (100 + 8 * 256) + projector
    # the same copy with full moments: far more, which is the point of the projection
    assert model_states(counts, FULL, A32, NONE, lora_rank=8).gpu_bytes > states.gpu_bytes + 100_000
    assert checkpoint_bytes(counts, PROJECTED, A32, 8) == (2 + 4) * counts.total + moments_32 + projector
