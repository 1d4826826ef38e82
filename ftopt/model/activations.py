"""Activation memory per GPU, after Korthikanti et al., "Reducing Activation Recomputation in Large
Transformer Models" (MLSys 2023, section 4), generalised to today's decoder layers, plus the loss
logits and the fixed overheads.

Korthikanti et al. count, per layer and token, every tensor the backward pass needs, at 2 bytes per
BF16 element: for a GPT layer (MLP width 4h, GeLU, dropout) that is 34·h bytes plus 5·a·s bytes of
attention scores. The same count for a Llama-style layer (RMSNorm, grouped-query attention, a gated
SwiGLU MLP of width I, no dropout) gives, per token, with q = heads·head_dim and k = kv_heads·head_dim:

- two norms keep their inputs: 2·2h;
- attention: the Q/K/V projections' input 2h, Q, K and V as the attention kernel keeps them
  2·(q + 2k), and the output projection's input 2q (FlashAttention never stores the s×s scores);
- the gated MLP: the gate/up projections' input 2h, and four tensors of width I: the gate output
  (SiLU's input), SiLU's output and the up output (the product's inputs), and their product (the
  down projection's input): 8·I;
- no dropout masks (modern LLMs train without dropout).

Total 8h + 4q + 4k + 8I bytes per token. For a GPT layer (q = k = h, a GeLU MLP of width 4h keeping
two tensors, 16h) the same count gives 32h: Korthikanti's 34h less his two dropout masks. Llama 2
7B: 37.5h; Llama 3.1 8B: 41h. MoE layers count the I of the experts a token visits; hybrid
(linear-attention) layers are costed as attention layers of the same width, an upper-side
approximation, documented rather than hidden.

Recomputation: none keeps every layer; full recomputation keeps each layer's 2·s·b·h input and
rebuilds one layer at a time. Selective recomputation means what the stack makes of it
(`Stack.selective_keeps`): `layer` (Megatron's, and FlashAttention's own) keeps every tensor but
the attention scores; `matmuls` is torchtitan's op-level policy (`selective_ac_option = "op"`), which
saves the outputs of the attention kernel and of every other matrix product of a layer (counting
from the first: Q, V, the gate projection and the down projection of a Llama layer) besides the
layer's input, and recomputes the rest one layer at a time in the backward pass:
2h + 2q + 2k + 2q + 2I + 2h = 4h + 4q + 2k + 2I bytes per token (Llama 3.1 8B: 15.5h against the
41h of no recomputation). At the backward pass of one layer the gradients of the MLP's two
product inputs (2·2I per token) and of the layer's output (2h) exist beside its stored activations:
the backward working set, counted once. The loss's logits (s·b·V entries at the stack's bytes per
entry) are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.architecture import Architecture
from ftopt.model.workload import Recompute

FP32 = 4
BF16 = 2
#: What selective recomputation keeps (Stack.selective_keeps): the whole layer but its attention
#: scores, or the layer input with the outputs of attention and of every other matrix product.
SELECTIVE_LAYER = "layer"
SELECTIVE_MATMULS = "matmuls"


def layer_bytes_per_token(arch: Architecture) -> float:
    """Stored activations of one layer per token, without the attention scores (see the module doc)."""
    h = arch.hidden
    q = arch.heads * arch.head_dim * (2 if arch.attention_output_gate else 1)
    k = arch.kv_heads * arch.head_dim
    inter = arch.intermediate * arch.experts_per_token
    norms = 2 * BF16 * h
    attention = BF16 * (h + q + 2 * k + q)
    mlp = BF16 * (h + 4 * inter)
    return norms + attention + mlp


def matmul_outputs_bytes_per_token(arch: Architecture) -> float:
    """What torchtitan's op-level selective checkpointing keeps of one layer per token.

    torchtitan's policy (torchtitan/parallelisms/parallelize_llama.py, `_apply_ac_to_transformer_block`:
    "Saves output of all compute ops, except every second mm") counts the matrix products of each
    layer afresh and saves the 1st, 3rd, 5th and 7th (Q, V, the MLP's gate and down projections of a
    Llama layer) and the attention kernel's output; the checkpoint also keeps the layer's input. In
    BF16: 2h (input) + 2q (Q) + 2k (V) + 2·heads·head_dim (attention output) + 2I (gate) + 2h (down).
    """
    h = arch.hidden
    q = arch.heads * arch.head_dim * (2 if arch.attention_output_gate else 1)
    attention_out = arch.heads * arch.head_dim
    k = arch.kv_heads * arch.head_dim
    inter = arch.intermediate * arch.experts_per_token
    return BF16 * (h + q + k + attention_out + inter + h)


def layer_activation_bytes(arch: Architecture, seq: int, batch: int, flash_attention: bool) -> float:
    """One layer's stored activations without recomputation: s·b·(8h + 4q + 4k + 8I) + 5·a·s²·b.

    Without FlashAttention the scores are stored: Korthikanti's 5·a·s²·b (softmax output and dropout);
    eager attention without dropout keeps an FP32 softmax and its BF16 copy, 6·a·s²·b, about the same.
    """
    scores = 0.0 if flash_attention else 5 * arch.heads * seq * seq * batch
    return layer_bytes_per_token(arch) * seq * batch + scores


def backward_working_bytes(arch: Architecture, seq: int, batch: int) -> float:
    """Gradients alive at one layer's backward beside its activations: 2·2I (MLP) + 2h (output) per token."""
    inter = arch.intermediate * arch.experts_per_token
    return (2 * BF16 * inter + BF16 * arch.hidden) * seq * batch


def layer_input_bytes(arch: Architecture, seq: int, batch: int) -> float:
    """All layers' 2·s·b·h inputs: what full recomputation keeps (and offloaded checkpointing moves)."""
    return arch.layers * BF16 * seq * batch * arch.hidden


def keeps_matmuls(recompute: Recompute, selective: str) -> bool:
    """Whether the recomputation is torchtitan's op-level selective policy."""
    return recompute == Recompute.SELECTIVE and selective == SELECTIVE_MATMULS


@dataclass(frozen=True)
class MicroBatch:
    """One micro-batch as the activation rules see it: the model, `batch` sequences of `seq` tokens,
    the recomputation, whether attention is FlashAttention's, and what selective recomputation keeps
    (`Stack.selective_keeps`). The six travel together through every rule of this module."""

    arch: Architecture
    seq: int
    batch: int
    recompute: Recompute
    flash_attention: bool
    selective: str = SELECTIVE_LAYER


def resident_activation_bytes(mb: MicroBatch) -> float:
    """What stays stored through the whole backward pass: the layer inputs, what the op-level policy
    saves, or every layer's activations."""
    arch, seq, batch, recompute = mb.arch, mb.seq, mb.batch, mb.recompute
    if recompute == Recompute.FULL:
        return layer_input_bytes(arch, seq, batch)
    if keeps_matmuls(recompute, mb.selective):
        return arch.layers * matmul_outputs_bytes_per_token(arch) * seq * batch
    flash = mb.flash_attention or recompute == Recompute.SELECTIVE
    return arch.layers * layer_activation_bytes(arch, seq, batch, flash)


def working_activation_bytes(mb: MicroBatch) -> float:
    """The one layer at work in the backward pass: rebuilt under full recomputation (under the
    op-level policy, the part it did not save), plus its gradients."""
    arch, seq, batch = mb.arch, mb.seq, mb.batch
    rebuilt = 0.0
    if mb.recompute == Recompute.FULL:
        rebuilt = layer_activation_bytes(arch, seq, batch, mb.flash_attention)
    elif keeps_matmuls(mb.recompute, mb.selective):
        layer = layer_activation_bytes(arch, seq, batch, mb.flash_attention)
        rebuilt = layer - matmul_outputs_bytes_per_token(arch) * seq * batch
    return rebuilt + backward_working_bytes(arch, seq, batch)


def activation_bytes(mb: MicroBatch) -> float:
    """All layers' activations on one GPU for one micro-batch, with one layer's backward working set."""
    return resident_activation_bytes(mb) + working_activation_bytes(mb)


def logits_bytes(arch: Architecture, seq: int, batch: int, bytes_per_entry: float = FP32) -> float:
    """The loss logits: s·b·V entries at the stack's peak bytes per entry."""
    return seq * batch * arch.vocab * bytes_per_entry


def offloadable_activation_bytes(arch: Architecture, seq: int, batch: int) -> float:
    """What offloaded checkpointing moves to host RAM: each layer's 2·s·b·h input."""
    return layer_input_bytes(arch, seq, batch)


def overhead_bytes(
    states: float,
    activations: float,
    cuda_context_gb: float,
    allocator_reserve: float,
    gather: float,
) -> float:
    """CUDA context, the caching allocator's fragmentation and FSDP's gathered-layer buffers."""
    return cuda_context_gb * 1e9 + allocator_reserve * (states + activations) + gather
