"""Activation memory (Korthikanti et al., generalised to gated MLPs), logits and overhead on the toy model.

Toy: 2 layers, h = 8, I = 16, a = 2 heads of 4 (q = 8), 1 KV head (k = 4), V = 10; s = 4 tokens,
b = 3 sequences → s·b = 12. Per layer and token 8h + 4q + 4k + 8I = 64 + 32 + 16 + 128 = 240 bytes;
the backward working set 4I + 2h = 80 bytes per token; layer input 2h = 16 bytes per token.
"""

from __future__ import annotations

import pytest

from ftopt.model.activations import (
    SELECTIVE_LAYER,
    SELECTIVE_MATMULS,
    MicroBatch,
    activation_bytes,
    backward_working_bytes,
    layer_activation_bytes,
    layer_bytes_per_token,
    logits_bytes,
    matmul_outputs_bytes_per_token,
    overhead_bytes,
    resident_activation_bytes,
    working_activation_bytes,
)
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Recompute

S, B = 4, 3


def test_layer_without_flash_attention(toy_arch: Architecture) -> None:
    # 240 · 12 = 2,880, plus Korthikanti's score term 5·a·s²·b = 5·2·16·3 = 480 → 3,360
    assert layer_activation_bytes(toy_arch, S, B, flash_attention=False) == 3360


def test_flash_attention_drops_the_score_term(toy_arch: Architecture) -> None:
    assert layer_activation_bytes(toy_arch, S, B, flash_attention=True) == 2880


def test_backward_working_set(toy_arch: Architecture) -> None:
    # (4·16 + 2·8) · 12 = 960
    assert backward_working_bytes(toy_arch, S, B) == 960


def test_no_recompute_stores_every_layer(toy_arch: Architecture) -> None:
    # 2 layers · 3,360 + 960 = 7,680; with FlashAttention 2 · 2,880 + 960 = 6,720
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.NONE, flash_attention=False)) == 7680
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.NONE, flash_attention=True)) == 6720


def test_full_recompute_keeps_layer_inputs_and_one_layer(toy_arch: Architecture) -> None:
    # 2·s·b·h per layer · L = 2·96·2 = 384, plus one layer rebuilt (3,360) and its gradients (960)
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.FULL, flash_attention=False)) == 4704
    # with FlashAttention: 384 + 2,880 + 960 = 4,224
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.FULL, flash_attention=True)) == 4224


def test_selective_recompute_has_no_score_term(toy_arch: Architecture) -> None:
    # selective recomputation rebuilds the attention scores: 2 · 2,880 + 960 = 6,720 either way
    for flash in (False, True):
        selective = MicroBatch(toy_arch, S, B, Recompute.SELECTIVE, flash_attention=flash)
        assert activation_bytes(selective) == 6720


def test_full_recompute_saves_memory_on_a_deep_model(toy_arch: Architecture) -> None:
    # 32 layers: NONE 32 · 2,880 + 960 = 93,120; FULL 32 · 192 + 2,880 + 960 = 9,984
    deep = toy_arch.model_copy(update={"layers": 32})
    none = activation_bytes(MicroBatch(deep, S, B, Recompute.NONE, flash_attention=True))
    full = activation_bytes(MicroBatch(deep, S, B, Recompute.FULL, flash_attention=True))
    assert none == 93_120
    assert full == 9984


def test_gated_mlp_layers_store_more_than_korthikantis_34(catalogue: Catalogue) -> None:
    # Llama 3.1 8B: h = 4096, q = 4096, k = 1024, I = 14,336 = 3.5h → 8h + 4h + 1h + 28h = 41h
    arch = catalogue.model("llama-3.1-8b").architecture
    assert layer_bytes_per_token(arch) == 41 * arch.hidden
    # an MoE layer counts the MLP width of the experts a token visits
    moe = arch.model_copy(update={"experts": 8, "experts_per_token": 2})
    assert layer_bytes_per_token(moe) == 41 * arch.hidden + 8 * arch.intermediate


def test_score_term_grows_with_the_square_of_sequence(toy_arch: Architecture) -> None:
    # score term 5·a·s²·b: s = 4 → 480, s = 8 → 1,920 (four times); the 34·sbh term doubles
    short = layer_activation_bytes(toy_arch, 4, B, False) - layer_activation_bytes(toy_arch, 4, B, True)
    long = layer_activation_bytes(toy_arch, 8, B, False) - layer_activation_bytes(toy_arch, 8, B, True)
    assert (short, long) == (480, 1920)


def test_logits_are_fp32_sbv(toy_arch: Architecture) -> None:
    # s·b·V·4 = 4·3·10·4 = 480
    assert logits_bytes(toy_arch, S, B) == 480


def test_overhead(toy_arch: Architecture) -> None:
    # 1 GB context + 5 % of (1,000 + 2,000) + 7 gathered = 1e9 + 150 + 7
    assert overhead_bytes(1000, 2000, 1.0, 0.05, 7) == pytest.approx(1e9 + 157)
    assert overhead_bytes(0, 0, 0.0, 0.05, 0) == 0


def test_torchtitans_op_policy_keeps_the_input_attention_and_every_other_matrix_product(
    toy_arch: Architecture,
) -> None:
    # per token: input 2h 16 + Q 2q 16 + V 2k 8 + attention output 2·8 16 + gate 2I 32 + down 2h 16 = 104
    assert matmul_outputs_bytes_per_token(toy_arch) == 104
    # both layers keep it for s·b = 12 tokens: 2 · 104 · 12 = 2,496
    op_level = MicroBatch(toy_arch, S, B, Recompute.SELECTIVE, True, SELECTIVE_MATMULS)
    assert resident_activation_bytes(op_level) == 2496
    # the layer at work rebuilds the rest of itself (2,880 - 1,248 = 1,632) beside its gradients (960)
    assert working_activation_bytes(op_level) == 2592
    total = activation_bytes(op_level)
    assert total == 5088
    # between full recomputation (4,224) and Megatron's selective, which keeps the whole layer (6,720)
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.FULL, True, SELECTIVE_MATMULS)) == 4224
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.SELECTIVE, True, SELECTIVE_LAYER)) == 6720
    # the op policy changes selective recomputation only
    assert activation_bytes(MicroBatch(toy_arch, S, B, Recompute.NONE, True, SELECTIVE_MATMULS)) == 6720
