"""Parameter counts of architectures, worked by hand on toy models (see conftest.toy_arch)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.model.architecture import (
    Architecture,
    LinearAttention,
    VisionTower,
    count_params,
    image_tokens,
    vision_block_params,
)
from ftopt.model.hardware import Catalogue


def test_toy_total_and_split(toy_arch: Architecture) -> None:
    # linear 2·(192 + 384) = 1,152; embeddings 2·80 = 160; other 2·16 + 8 = 40; total 1,352
    c = count_params(toy_arch)
    assert c.linear == 1152
    assert c.embeddings == 160
    assert c.vision == 0
    assert c.other == 40
    assert c.total == 1352
    assert c.total == c.linear + c.embeddings + c.vision + c.other
    assert c.active == c.total  # dense: every token passes every weight
    assert c.largest_layer == 80  # one vocab × hidden matrix, 10·8


def test_tied_embeddings_count_the_matrix_once(toy_arch: Architecture) -> None:
    # tied: 80 instead of 160, total 1,352 − 80 = 1,272
    c = count_params(toy_arch.model_copy(update={"tied_embeddings": True}))
    assert c.embeddings == 80
    assert c.total == 1272


def test_lora_is_rank_times_din_plus_dout(toy_arch: Architecture) -> None:
    # per layer r·(d_in + d_out): q 8+8, k 8+4, v 8+4, o 8+8, gate 8+16, up 8+16, down 16+8
    #   = 16 + 12 + 12 + 16 + 24 + 24 + 24 = 128; two layers 256 per unit of rank
    c = count_params(toy_arch)
    assert c.lora_per_rank == 256
    assert c.lora_params(1) == 256
    assert c.lora_params(4) == 1024
    assert c.lora_params(16) == 16 * 256


def test_long_sides_sum_the_longer_side_of_each_linear_layer(toy_arch: Architecture) -> None:
    # per layer max(d_in, d_out): q 8, k 8, v 8, o 8, gate 16, up 16, down 16 = 80; two layers 160
    # (a GaLore moment keeps r rows of the longer side; its projector r of the shorter: 256 − 160)
    assert count_params(toy_arch).long_sides == 160


def test_qk_norm_adds_two_head_dims_per_layer(toy_arch: Architecture) -> None:
    # q_norm and k_norm of head_dim 4 each: +8 per layer, +16 in all, all in "other"
    base = count_params(toy_arch)
    c = count_params(toy_arch.model_copy(update={"qk_norm": True}))
    assert c.total - base.total == 16
    assert c.other - base.other == 16
    assert c.linear == base.linear


def test_attention_output_gate_doubles_q_proj(toy_arch: Architecture) -> None:
    # q 8→16 instead of 8→8: +64 weights per layer (+128) and +8 LoRA per rank per layer (+16)
    base = count_params(toy_arch)
    c = count_params(toy_arch.model_copy(update={"attention_output_gate": True}))
    assert c.linear - base.linear == 128
    assert c.lora_per_rank - base.lora_per_rank == 16


def test_moe_counts_all_experts_but_activates_only_top_k(toy_arch: Architecture) -> None:
    # 4 experts, 2 per token. Per layer: attention 192 + 4·384 MLP = 1,728 linear; other 16 norms
    # + router 8·4 = 48. Two layers: linear 3,456, other 96 + 8 = 104; embeddings 160.
    # total 3,720; inactive per token: 2 layers · 384 · (4 − 2) = 1,536; active 2,184
    moe = toy_arch.model_copy(update={"experts": 4, "experts_per_token": 2})
    c = count_params(moe)
    assert c.linear == 3456
    assert c.other == 104
    assert c.total == 3720
    assert c.active == 2184


def test_linear_attention_layers(toy_arch: Architecture) -> None:
    # full_attention_every 2: layer 0 Gated DeltaNet, layer 1 full attention.
    # DeltaNet with key 1×2 (key_dim 2), value 2×2 (value_dim 4), conv kernel 4:
    #   in_proj_qkv 8→(2·2+4)=8: 64; in_proj_z 8→4: 32; out_proj 4→8: 32  → 128 linear
    #   b/a projections 2·8·2 = 32; conv (2·2+4)·4 = 32; A_log + dt_bias 2·2 = 4; norm 2 → 70 other
    # Layer 0: linear 128 + 384 = 512, other 16 + 70 = 86. Layer 1: linear 576, other 16.
    # total: linear 1,088, other 86 + 16 + 8 = 110, embeddings 160 → 1,358
    la = LinearAttention(full_attention_every=2, key_heads=1, value_heads=2, key_head_dim=2, value_head_dim=2)
    c = count_params(toy_arch.model_copy(update={"linear_attention": la}))
    assert c.linear == 1088
    assert c.other == 110
    assert c.total == 1358
    # LoRA: DeltaNet (8+8) + (8+4) + (4+8) = 40, MLP 72 → 112; full layer 128 → 240 per rank
    assert c.lora_per_rank == 240


def test_mtp_layer_adds_a_decoder_layer_and_a_fuse(toy_arch: Architecture) -> None:
    # one MTP layer: decoder layer 576 linear + fuse 16→8 = 128 → +704 linear;
    # its norms 16 + pre-fuse norms and a final norm 3·8 = 24 → +40 other
    base = count_params(toy_arch)
    c = count_params(toy_arch.model_copy(update={"mtp_layers": 1}))
    assert c.linear - base.linear == 704
    assert c.other - base.other == 40


def test_extra_params_are_counted_in_total_as_bf16_rest(toy_arch: Architecture) -> None:
    base = count_params(toy_arch)
    c = count_params(toy_arch.model_copy(update={"extra_params": 1000}))
    assert c.total == base.total + 1000
    assert c.other == base.other + 1000
    assert c.linear == base.linear


def test_vision_block_by_hand() -> None:
    # width 4, MLP 8, with biases: fused qkv 4·12 + 12 = 60, proj 16 + 4 = 20 → 80;
    # fc1 4·8 + 8 = 40, fc2 8·4 + 4 = 36 → 76; two LayerNorms 2·(4 + 4) = 16.  Total 172.
    vision = VisionTower(layers=3, hidden=4, intermediate=8, patch=2)
    assert vision_block_params(vision) == 172


def test_vision_tower_is_its_own_share(toy_arch: Architecture) -> None:
    # the tower's blocks alone are 3 · 172 = 516, so the tower holds at least that,
    # and it moves from nothing into `vision`, not into the NF4 `linear` share
    vision = VisionTower(layers=3, hidden=4, intermediate=8, patch=2)
    base = count_params(toy_arch)
    c = count_params(toy_arch.model_copy(update={"vision": vision}))
    assert c.vision >= 3 * 172
    assert c.linear == base.linear
    assert c.total == base.total + c.vision


@pytest.mark.parametrize(
    ("width", "height", "patch", "merge", "tokens"),
    [
        (64, 32, 16, 1, 8),  # 4 × 2 patches
        (64, 32, 16, 2, 2),  # 8 patches, 2 × 2 merged → 2
        (1024, 1024, 16, 2, 1024),  # 64 × 64 = 4,096 patches / 4
    ],
)
def test_image_tokens(width: int, height: int, patch: int, merge: int, tokens: int) -> None:
    assert image_tokens(width, height, patch, merge) == tokens


def test_experts_per_token_cannot_exceed_experts(toy_arch: Architecture) -> None:
    fields = toy_arch.model_dump()
    with pytest.raises(ValidationError, match="experts_per_token"):
        Architecture(**{**fields, "experts": 2, "experts_per_token": 3})


def test_misspelt_field_is_rejected(toy_arch: Architecture) -> None:
    fields = toy_arch.model_dump()
    with pytest.raises(ValidationError):
        Architecture(**{**fields, "hiden": 8})


def test_mixtral_active_parameters(catalogue: Catalogue) -> None:
    # 32 layers · 3·4096·14336 per expert · (8 − 2) idle experts = 33,822,867,456 inactive
    # 46,702,792,704 − 33,822,867,456 = 12,879,925,248 active
    c = catalogue.model("mixtral-8x7b").params
    assert c.total == 46_702_792_704
    assert c.active == 12_879_925_248
    assert c.total - c.active == 32 * 3 * 4096 * 14336 * 6


def test_llama_70b_exact_count(catalogue: Catalogue) -> None:
    # reference row 1 (docs/reference-figures.md) rounds this to 70.55 B; the catalogue cites
    # the exact count: 70,553,706,496
    assert catalogue.model("llama-3.3-70b").params.total == 70_553_706_496
