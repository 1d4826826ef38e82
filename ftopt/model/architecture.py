"""Model architectures and their exact parameter counts.

Why exact counts: published sizing figures (docs/reference-figures.md) are products of parameter
counts and bytes per parameter, and QLoRA needs the split between linear layers (stored in NF4)
and the rest (kept in BF16), so a single "70B" figure is not enough. The counts follow the
Hugging Face modelling code: no biases in the decoder, a gated (SwiGLU) MLP, grouped-query
attention, RMSNorm weights, and the additions of hybrid models (Gated DeltaNet layers, a vision
tower, multi-token-prediction layers).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

# Upper bounds far beyond any model, so that a typo cannot make sizing loop for hours or overflow.
MAX_LAYERS = 10_000
MAX_WIDTH = 1_000_000
MAX_HEADS = 100_000
MAX_VOCAB = 100_000_000
MAX_EXPERTS = 100_000


class LinearAttention(BaseModel):
    """Gated DeltaNet layers of a hybrid model; every `full_attention_every`-th layer keeps attention."""

    model_config = _FROZEN
    full_attention_every: int = Field(gt=0, le=1000, description="one layer in this many uses full attention")
    key_heads: int = Field(gt=0, le=MAX_HEADS, description="linear-attention key heads")
    value_heads: int = Field(gt=0, le=MAX_HEADS, description="linear-attention value heads")
    key_head_dim: int = Field(gt=0, le=MAX_WIDTH, description="width of one key head")
    value_head_dim: int = Field(gt=0, le=MAX_WIDTH, description="width of one value head")
    conv_kernel: int = Field(default=4, gt=0, le=1000, description="depthwise convolution kernel length")


class VisionTower(BaseModel):
    """A ViT encoder in front of the language model (vision-language models)."""

    model_config = _FROZEN
    layers: int = Field(gt=0, le=MAX_LAYERS, description="transformer blocks")
    hidden: int = Field(gt=0, le=MAX_WIDTH, description="block width")
    intermediate: int = Field(gt=0, le=MAX_WIDTH, description="MLP width")
    patch: int = Field(gt=0, le=10_000, description="patch edge in pixels")
    spatial_merge: int = Field(default=1, gt=0, le=100, description="patches merged per side into one token")
    temporal_patch: int = Field(default=1, gt=0, le=100, description="frames per patch (video)")
    position_embeddings: int = Field(default=0, ge=0, le=MAX_VOCAB, description="learned position embeddings")


class Architecture(BaseModel):
    """What the parameter count and the activation memory of a decoder-only model depend on."""

    model_config = _FROZEN
    layers: int = Field(gt=0, le=MAX_LAYERS, description="decoder layers")
    hidden: int = Field(gt=0, le=MAX_WIDTH, description="model width h")
    intermediate: int = Field(gt=0, le=MAX_WIDTH, description="MLP width I (per expert for MoE)")
    heads: int = Field(gt=0, le=MAX_HEADS, description="attention heads a")
    kv_heads: int = Field(gt=0, le=MAX_HEADS, description="key/value heads (GQA)")
    head_dim: int = Field(gt=0, le=MAX_WIDTH, description="width of one attention head")
    vocab: int = Field(gt=0, le=MAX_VOCAB, description="vocabulary size V")
    tied_embeddings: bool = Field(description="output head shares the input embedding")
    qk_norm: bool = Field(default=False, description="RMSNorm on query and key heads (Qwen3)")
    attention_output_gate: bool = Field(
        default=False, description="query projection doubled for an output gate (Qwen3.5 family)"
    )
    experts: int = Field(default=1, gt=0, le=MAX_EXPERTS, description="MLP experts per layer (1 = dense)")
    experts_per_token: int = Field(default=1, gt=0, le=MAX_EXPERTS, description="experts active per token")
    linear_attention: LinearAttention | None = Field(default=None, description="hybrid layers")
    vision: VisionTower | None = Field(default=None, description="vision encoder, if any")
    mtp_layers: int = Field(
        default=0, ge=0, le=MAX_LAYERS, description="multi-token-prediction decoder layers"
    )
    extra_params: int = Field(
        default=0,
        ge=0,
        le=10**15,
        description="parameters the published checkpoint holds beyond the counted parts (cited)",
    )

    @model_validator(mode="after")
    def _experts_consistent(self) -> Architecture:
        if self.experts_per_token > self.experts:
            raise ValueError("experts_per_token must not exceed experts")
        return self


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts split the way the memory rules need them."""

    total: int
    linear: int  # decoder linear layers: what QLoRA stores in NF4
    embeddings: int  # input embedding plus an untied output head
    vision: int  # the whole vision tower, kept in BF16 under QLoRA
    other: int  # norms, convolutions, routers, extra: kept in BF16
    active: int  # parameters a token passes through (MoE: only its experts)
    lora_per_rank: int  # adapter weights per unit of LoRA rank on all linear layers
    largest_layer: int  # biggest single tensor group gathered at once under FSDP
    adapted_outputs: int = 0  # output features of every adapted linear layer (DoRA's magnitudes)
    long_sides: int = 0  # Σ max(d_in, d_out) over the adapted linear layers (GaLore moments per rank)

    def lora_params(self, rank: int) -> int:
        """Adapter weights of a rank-`rank` LoRA on every linear layer: r·(d_in + d_out) each."""
        return self.lora_per_rank * rank


@dataclass(frozen=True)
class _Linear:
    d_in: int
    d_out: int

    @property
    def params(self) -> int:
        return self.d_in * self.d_out

    @property
    def lora_per_rank(self) -> int:
        return self.d_in + self.d_out

    @property
    def long_side(self) -> int:
        return max(self.d_in, self.d_out)


def _full_attention_linears(arch: Architecture) -> list[_Linear]:
    q_out = arch.heads * arch.head_dim * (2 if arch.attention_output_gate else 1)
    kv_out = arch.kv_heads * arch.head_dim
    return [
        _Linear(arch.hidden, q_out),
        _Linear(arch.hidden, kv_out),
        _Linear(arch.hidden, kv_out),
        _Linear(arch.heads * arch.head_dim, arch.hidden),
    ]


def _linear_attention_linears(arch: Architecture, la: LinearAttention) -> list[_Linear]:
    key_dim = la.key_heads * la.key_head_dim
    value_dim = la.value_heads * la.value_head_dim
    return [
        _Linear(arch.hidden, 2 * key_dim + value_dim),  # in_proj_qkv
        _Linear(arch.hidden, value_dim),  # in_proj_z (output gate)
        _Linear(value_dim, arch.hidden),  # out_proj
    ]


def _linear_attention_small(arch: Architecture, la: LinearAttention) -> int:
    """The non-matrix parts of a Gated DeltaNet layer: b/a projections, conv, A_log, dt_bias, norm."""
    key_dim = la.key_heads * la.key_head_dim
    value_dim = la.value_heads * la.value_head_dim
    ba = 2 * arch.hidden * la.value_heads
    conv = (2 * key_dim + value_dim) * la.conv_kernel
    return ba + conv + 2 * la.value_heads + la.value_head_dim


def _expert_mlp(arch: Architecture) -> list[_Linear]:
    """One expert's gated MLP (the whole MLP of a dense model): gate, up, down."""
    return [
        _Linear(arch.hidden, arch.intermediate),
        _Linear(arch.hidden, arch.intermediate),
        _Linear(arch.intermediate, arch.hidden),
    ]


def full_attention_layers(arch: Architecture) -> int:
    """Decoder layers with softmax attention: all, or one in `full_attention_every` for hybrids."""
    la = arch.linear_attention
    return arch.layers if la is None else arch.layers // la.full_attention_every


@dataclass(frozen=True)
class _LayerCounts:
    linear: int  # linear-layer weights
    lora_per_rank: int  # Σ (d_in + d_out) over those linear layers
    other: int  # norms, router, DeltaNet extras
    outputs: int = 0  # Σ d_out over those linear layers
    long_sides: int = 0  # Σ max(d_in, d_out) over those linear layers


def _decoder_layer(arch: Architecture, full_attention: bool) -> _LayerCounts:
    """Counts of one decoder layer; experts multiply the MLP arithmetically, not by listing it."""
    other = 2 * arch.hidden  # input and post-attention RMSNorm
    if arch.experts > 1:
        other += arch.hidden * arch.experts  # router
    attention, attention_other = _attention_block(arch, full_attention)
    mlp = _expert_mlp(arch)
    return _LayerCounts(
        linear=sum(lin.params for lin in attention) + arch.experts * sum(lin.params for lin in mlp),
        lora_per_rank=sum(lin.lora_per_rank for lin in attention)
        + arch.experts * sum(lin.lora_per_rank for lin in mlp),
        other=other + attention_other,
        outputs=sum(lin.d_out for lin in attention) + arch.experts * sum(lin.d_out for lin in mlp),
        long_sides=sum(lin.long_side for lin in attention) + arch.experts * sum(lin.long_side for lin in mlp),
    )


def _attention_block(arch: Architecture, full_attention: bool) -> tuple[list[_Linear], int]:
    """A layer's attention: its linear layers and its small parameters (QK norms of full attention,
    a linear-attention layer's convolutions and gates), for hybrids that mix the two kinds."""
    if full_attention:
        return _full_attention_linears(arch), 2 * arch.head_dim if arch.qk_norm else 0
    assert arch.linear_attention is not None
    return _linear_attention_linears(arch, arch.linear_attention), _linear_attention_small(
        arch, arch.linear_attention
    )


def vision_block_params(vision: VisionTower) -> int:
    """One ViT block with biases: fused QKV, projection, two-layer MLP and two LayerNorms."""
    h, i = vision.hidden, vision.intermediate
    attention = (h * 3 * h + 3 * h) + (h * h + h)
    mlp = (h * i + i) + (i * h + h)
    return attention + mlp + 4 * h


def vision_params(vision: VisionTower, text_hidden: int) -> int:
    """The whole tower: patch embedding, position embeddings, blocks and the patch merger."""
    h = vision.hidden
    patch_embed = 3 * vision.temporal_patch * vision.patch**2 * h + h
    merged = h * vision.spatial_merge**2
    merger = 2 * merged + (merged * merged + merged) + (merged * text_hidden + text_hidden)
    blocks = vision.layers * vision_block_params(vision)
    return patch_embed + vision.position_embeddings * h + blocks + merger


def _mtp_params(arch: Architecture) -> tuple[int, int]:
    """Multi-token-prediction layers: linears and other parameters (a full decoder layer each plus a fuse)."""
    layer = _decoder_layer(arch, full_attention=True)
    fuse = _Linear(2 * arch.hidden, arch.hidden).params
    per_layer_linear = layer.linear + fuse
    per_layer_other = layer.other + 3 * arch.hidden  # two pre-fuse norms and a final norm
    return arch.mtp_layers * per_layer_linear, arch.mtp_layers * per_layer_other


def count_params(arch: Architecture) -> ParamCounts:
    """Exact parameter counts of `arch`, split for the memory rules."""
    full = full_attention_layers(arch)
    kinds = [(full, _decoder_layer(arch, True))]
    if arch.layers > full:
        kinds.append((arch.layers - full, _decoder_layer(arch, False)))
    linear = _over_layers(kinds, "linear")
    lora = _over_layers(kinds, "lora_per_rank")
    other = _over_layers(kinds, "other") + arch.hidden  # and the final norm
    mtp_linear, mtp_other = _mtp_params(arch)
    embedding = arch.vocab * arch.hidden
    embeddings = embedding * (1 if arch.tied_embeddings else 2)
    vision = vision_params(arch.vision, arch.hidden) if arch.vision else 0
    other += mtp_other + arch.extra_params
    linear += mtp_linear
    total = linear + embeddings + vision + other
    inactive = 0
    if arch.experts > 1:
        per_expert = sum(lin.params for lin in _expert_mlp(arch))
        inactive = arch.layers * per_expert * (arch.experts - arch.experts_per_token)
    return ParamCounts(
        total=total,
        linear=linear,
        embeddings=embeddings,
        vision=vision,
        other=other,
        active=total - inactive,
        lora_per_rank=lora,
        largest_layer=embedding,
        adapted_outputs=_over_layers(kinds, "outputs"),
        long_sides=_over_layers(kinds, "long_sides"),
    )


def _over_layers(kinds: list[tuple[int, _LayerCounts]], count: str) -> int:
    """One count of a decoder layer summed over the layers of each kind (full and linear attention)."""
    return sum(n * int(getattr(k, count)) for n, k in kinds)


def image_tokens(width_px: int, height_px: int, patch: int, spatial_merge: int) -> int:
    """Tokens one image adds to a sequence: patches per side, merged `spatial_merge` × `spatial_merge`."""
    patches = (width_px // patch) * (height_px // patch)
    return patches // (spatial_merge * spatial_merge)
