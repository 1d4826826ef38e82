"""Activation memory per GPU, after Korthikanti et al., "Reducing Activation Recomputation in Large
Transformer Models" (MLSys 2023), plus the loss logits and the fixed overheads.

Per layer without recomputation a transformer stores s·b·h·(34 + 5·a·s/h) bytes; FlashAttention
never stores the s×s scores, which removes the second term; full recomputation keeps only each
layer's 2·s·b·h input and rebuilds one layer at a time. The FP32 logits of the loss, s·b·V·4 bytes,
often outweigh all of that under checkpointing with a large vocabulary, so they are counted apart.
Hybrid (linear-attention) and MoE layers are costed as dense layers of the same width: an
upper-side approximation, documented rather than hidden.
"""

from __future__ import annotations

from ftopt.model.architecture import Architecture
from ftopt.model.workload import Recompute

FP32 = 4


def layer_activation_bytes(arch: Architecture, seq: int, batch: int, flash_attention: bool) -> float:
    """One layer's stored activations without recomputation: s·b·h·(34 + 5·a·s/h)."""
    sbh = seq * batch * arch.hidden
    scores = 0.0 if flash_attention else 5 * arch.heads * seq * seq * batch
    return 34 * sbh + scores


def activation_bytes(
    arch: Architecture, seq: int, batch: int, recompute: Recompute, flash_attention: bool
) -> float:
    """All layers' activations on one GPU for one micro-batch."""
    full_layer = layer_activation_bytes(arch, seq, batch, flash_attention)
    if recompute == Recompute.FULL:
        return arch.layers * 2 * seq * batch * arch.hidden + full_layer
    if recompute == Recompute.SELECTIVE:
        return arch.layers * 34 * seq * batch * arch.hidden
    return arch.layers * full_layer


def logits_bytes(arch: Architecture, seq: int, batch: int, bytes_per_entry: float = FP32) -> float:
    """The loss logits: s·b·V entries at the stack's peak bytes per entry (4: one FP32 copy)."""
    return seq * batch * arch.vocab * bytes_per_entry


def offloadable_activation_bytes(arch: Architecture, seq: int, batch: int) -> float:
    """What offloaded checkpointing moves to host RAM: each layer's 2·s·b·h input."""
    return arch.layers * 2 * seq * batch * arch.hidden


def overhead_bytes(
    states: float,
    activations: float,
    cuda_context_gb: float,
    allocator_reserve: float,
    gather: float,
) -> float:
    """CUDA context, the caching allocator's fragmentation and FSDP's gathered-layer buffers."""
    return cuda_context_gb * 1e9 + allocator_reserve * (states + activations) + gather
