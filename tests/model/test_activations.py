"""Activation memory (Korthikanti et al.), logits and overhead on the toy model.

Toy: 2 layers, h = 8, a = 2 heads, V = 10; s = 4 tokens, b = 3 sequences → s·b·h = 96.
"""

from __future__ import annotations

import pytest

from ftopt.model.activations import (
    activation_bytes,
    layer_activation_bytes,
    logits_bytes,
    overhead_bytes,
)
from ftopt.model.architecture import Architecture
from ftopt.model.workload import Recompute

S, B = 4, 3


def test_layer_without_flash_attention(toy_arch: Architecture) -> None:
    # s·b·h·(34 + 5·a·s/h) = 96 · (34 + 5·2·4/8) = 96 · 39 = 3,744
    # = 34·96 (3,264) + 5·a·s²·b (5·2·16·3 = 480)
    assert layer_activation_bytes(toy_arch, S, B, flash_attention=False) == 3744


def test_flash_attention_drops_the_score_term(toy_arch: Architecture) -> None:
    # 34·s·b·h = 3,264
    assert layer_activation_bytes(toy_arch, S, B, flash_attention=True) == 3264


def test_no_recompute_stores_every_layer(toy_arch: Architecture) -> None:
    # 2 layers · 3,744 = 7,488; with FlashAttention 2 · 3,264 = 6,528
    assert activation_bytes(toy_arch, S, B, Recompute.NONE, flash_attention=False) == 7488
    assert activation_bytes(toy_arch, S, B, Recompute.NONE, flash_attention=True) == 6528


def test_full_recompute_keeps_layer_inputs_and_one_layer(toy_arch: Architecture) -> None:
    # 2·s·b·h per layer · L = 2·96·2 = 384, plus one layer rebuilt: 3,744 → 4,128
    assert activation_bytes(toy_arch, S, B, Recompute.FULL, flash_attention=False) == 4128
    # with FlashAttention: 384 + 3,264 = 3,648
    assert activation_bytes(toy_arch, S, B, Recompute.FULL, flash_attention=True) == 3648


def test_selective_recompute_has_no_score_term(toy_arch: Architecture) -> None:
    # selective recomputation rebuilds the attention scores: 34·s·b·h·L = 6,528 either way
    for flash in (False, True):
        assert activation_bytes(toy_arch, S, B, Recompute.SELECTIVE, flash_attention=flash) == 6528


def test_full_recompute_saves_memory_on_a_deep_model(toy_arch: Architecture) -> None:
    # 32 layers: NONE 32 · 3,264 = 104,448; FULL 32 · 192 + 3,264 = 9,408
    deep = toy_arch.model_copy(update={"layers": 32})
    none = activation_bytes(deep, S, B, Recompute.NONE, flash_attention=True)
    full = activation_bytes(deep, S, B, Recompute.FULL, flash_attention=True)
    assert none == 104_448
    assert full == 9408


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
