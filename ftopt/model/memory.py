"""Model states: what weights, gradients and optimiser moments take on each GPU, in host RAM and on disk.

The ZeRO paper's accounting (docs/design.md, Sizing): mixed-precision AdamW holds 2 bytes of BF16 weights,
2 of BF16 gradients and 12 of FP32 master weights and moments per parameter; 8-bit moments cut the
12 to 6. A frozen base carries only its weights. Fully sharded training (FSDP FULL_SHARD, ZeRO-3)
divides every state by the GPU count; data parallel training (DDP) replicates them. ZeRO-Offload
keeps the 16-bit weights on the GPU and 14 bytes per parameter, once, in host RAM.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.architecture import Architecture, ParamCounts
from ftopt.model.methods import TrainingMethod
from ftopt.model.workload import Offload, Optimizer, Strategy

GB = 1e9

#: NF4 with double quantisation: 4 bits plus 0.127 bits of quantisation constants (QLoRA paper).
#: Layers other than the decoder's linear ones (embeddings, the output head, norms) stay in BF16.
NF4_BYTES_PER_PARAM = 0.5 + 0.015875
#: GPTQ at 4 bits in groups of 128 input features (the usual checkpoint, Qwen's Int4 ones among them):
#: per weight 4 bits, plus per group and output feature an FP16 scale and a 4-bit zero point, as
#: AutoGPTQ's QuantLinear stores them (qweight, scales, qzeros); its per-input-feature group index
#: (4 B per input feature, under 0.001 B per weight) is left out.
GPTQ_BYTES_PER_PARAM = 0.5 + (2 + 0.5) / 128
BF16 = 2
FP32 = 4
FULL_ADAM_32BIT = 16  # 2 weights + 2 grads + 12 (FP32 master, m, v)
FULL_ADAM_8BIT = 10  # 2 + 2 + 4 master + 2 moments
PURE_BF16_ADAM_32BIT = 8  # pure BF16 (torchtune): 2 weights + 2 grads + 4 BF16 moments, no master
PURE_BF16_ADAM_8BIT = 6  # 2 + 2 + 2 8-bit moments
MOMENTS_8BIT = 2  # what a paged 8-bit optimiser leaves in host RAM per parameter
FP32_GRAD_BUFFER = 2  # Hugging Face / DeepSpeed count FP32 gradients: 18 instead of 16
OFFLOAD_HOST = 14  # FP32 master and moments (12) plus FP16 gradients (2), on the host
ADAPTER_ADAM_32BIT = 16  # FP32 adapter weights 4 + grads 4 + moments 8
ADAPTER_ADAM_8BIT = 10  # 4 + 4 + 2
CHECKPOINT_FULL_32BIT = 14  # FP32 master and moments (12) plus BF16 weights (2)
CHECKPOINT_FULL_8BIT = 8  # FP32 master 4, 8-bit moments 2, BF16 weights 2


@dataclass(frozen=True)
class States:
    """Model-state bytes of one run copy before any division among GPUs."""

    gpu_bytes: float  # on the GPUs together (divided by N when sharded)
    host_bytes: float  # in host RAM (optimiser offload), one copy per run
    trainable: int  # parameters that receive gradients


def trainable_params(counts: ParamCounts, method: TrainingMethod, lora_rank: int) -> int:
    """All parameters for full fine-tuning; the adapter (and DoRA's magnitudes) otherwise."""
    return method.trainable(counts, lora_rank)


def frozen_base_bytes(counts: ParamCounts, method: TrainingMethod) -> float:
    """Bytes of the base weights as stored: BF16, or 4-bit linear layers (NF4 or GPTQ) and a BF16 rest."""
    if method.four_bit:
        per_param = NF4_BYTES_PER_PARAM if method.base == "nf4" else GPTQ_BYTES_PER_PARAM
        rest = counts.total - counts.linear
        return counts.linear * per_param + rest * BF16
    return counts.total * BF16


def upcast_rest_bytes(counts: ParamCounts) -> float:
    """What casting a QLoRA base's non-quantised parameters (embeddings, output head, norms) from BF16
    to FP32 adds: 2 bytes each (PEFT's prepare_model_for_kbit_training; `Stack.qlora_fp32_upcast`)."""
    return (counts.total - counts.linear) * (FP32 - BF16)


def largest_linear_params(arch: Architecture) -> int:
    """Weights of the widest decoder linear layer: an MLP projection (one expert's, for MoE) or the
    query projection, whichever is wider."""
    query = arch.heads * arch.head_dim * (2 if arch.attention_output_gate else 1)
    return arch.hidden * max(arch.intermediate, query)


def dequant_buffer_bytes(arch: Architecture, method: TrainingMethod) -> float:
    """A method's working copy of a weight: QLoRA's dequantisation (bitsandbytes and torchao's NF4
    tensor turn an NF4 weight back into a BF16 matrix just before its matrix product, in the forward
    pass and again in the backward pass, and free it after) or DoRA's W + BA for its column norms.
    One linear layer's BF16 copy is alive at a time; at the peak, the widest one. Nothing for LoRA
    or full fine-tuning, which multiply by the BF16 weights themselves."""
    return BF16 * largest_linear_params(arch) if method.working_copy else 0.0


def projected_moments_bytes(counts: ParamCounts, optimizer: Optimizer, rank: int, moment: float) -> float:
    """GaLore's optimiser states (Zhao et al. 2024, https://arxiv.org/abs/2403.03507, Table 1: mr + 2nr
    for an m × n weight, m ≤ n): each adapted linear layer keeps its two moments as r rows of its longer
    side and a BF16 projector of r rows of its shorter side; every other parameter (embeddings, output
    head, norms) keeps two full moments. `moment` is the bytes of one moment element at 32 bits
    (4 with FP32 master weights, 2 in pure BF16); 8-bit moments take 1."""
    each = 1 if optimizer != Optimizer.ADAMW_32BIT else moment
    short_sides = counts.lora_per_rank - counts.long_sides
    moments = 2 * each * ((counts.total - counts.linear) + rank * counts.long_sides)
    return moments + BF16 * rank * short_sides


def _projected_states(
    counts: ParamCounts, optimizer: Optimizer, rank: int, fp32_grad_buffer: bool, master_weights: str
) -> float:
    """A projected-states method's copy: BF16 weights and gradients (and FP32 master weights under
    mixed precision) for every parameter, and the projected moments."""
    master = FP32 if master_weights == "fp32" else 0
    per_param = BF16 + BF16 + master + (FP32_GRAD_BUFFER if fp32_grad_buffer else 0)
    moment = FP32 if master_weights == "fp32" else BF16
    return counts.total * per_param + projected_moments_bytes(counts, optimizer, rank, moment)


def _full_per_param(optimizer: Optimizer, master_weights: str, fp32_grad_buffer: bool) -> int:
    """Bytes per parameter of a full fine-tune on the GPUs: mixed precision or pure BF16, 32- or
    8-bit moments, and Hugging Face's FP32 gradient buffer where the workload counts it."""
    if master_weights == "bf16":
        per_param = PURE_BF16_ADAM_32BIT if optimizer == Optimizer.ADAMW_32BIT else PURE_BF16_ADAM_8BIT
    else:
        per_param = FULL_ADAM_32BIT if optimizer == Optimizer.ADAMW_32BIT else FULL_ADAM_8BIT
    return per_param + (FP32_GRAD_BUFFER if fp32_grad_buffer else 0)


def model_states(
    counts: ParamCounts,
    method: TrainingMethod,
    optimizer: Optimizer,
    offload: Offload,
    lora_rank: int,
    fp32_grad_buffer: bool = False,
    master_weights: str = "fp32",
) -> States:
    """Weights, gradients and optimiser states of one copy, on the GPUs and on the host.

    `master_weights` follows the stack: "fp32" is mixed precision (16 B/param, the reference
    figures' accounting; FP32 adapters, 16 B), "bf16" is pure BF16 training without a master copy,
    adapters included (8 B/param). A paged 8-bit optimiser's moments are counted in host RAM:
    bitsandbytes pages them out of the card under memory pressure, which is when it matters.
    """
    trainable = trainable_params(counts, method, lora_rank)
    if method.projected_states:  # its entry offers neither CPU offload nor paged moments
        gpu = _projected_states(counts, optimizer, lora_rank, fp32_grad_buffer, master_weights)
        return States(gpu, 0.0, trainable)
    if method.full:
        if offload == Offload.CPU:
            return States(counts.total * BF16, counts.total * OFFLOAD_HOST, trainable)
        per_param = _full_per_param(optimizer, master_weights, fp32_grad_buffer)
        if optimizer == Optimizer.ADAMW_8BIT_PAGED:
            per_param -= MOMENTS_8BIT
            return States(counts.total * per_param, counts.total * MOMENTS_8BIT, trainable)
        return States(counts.total * per_param, 0.0, trainable)
    if master_weights == "bf16":
        # Pure BF16 stacks hold the adapter in BF16 too: 2 weights + 2 grads + 4 (or 2) BF16 moments.
        adapter = PURE_BF16_ADAM_32BIT if optimizer == Optimizer.ADAMW_32BIT else PURE_BF16_ADAM_8BIT
    else:
        adapter = ADAPTER_ADAM_32BIT if optimizer == Optimizer.ADAMW_32BIT else ADAPTER_ADAM_8BIT
    return States(frozen_base_bytes(counts, method) + trainable * adapter, 0.0, trainable)


def states_per_gpu(states: States, strategy: Strategy, gpus: int) -> float:
    """Sharding divides the states by the GPU count; data parallel replicates them on every GPU."""
    return states.gpu_bytes / gpus if strategy == Strategy.FSDP else states.gpu_bytes


def checkpoint_bytes(
    counts: ParamCounts, method: TrainingMethod, optimizer: Optimizer, lora_rank: int
) -> float:
    """One resumable checkpoint: master weights and moments, or the adapter with its states."""
    if method.projected_states:  # BF16 weights and FP32 master weights, and the projected moments
        return counts.total * (BF16 + FP32) + projected_moments_bytes(counts, optimizer, lora_rank, FP32)
    if method.full:
        per_param = CHECKPOINT_FULL_32BIT if optimizer == Optimizer.ADAMW_32BIT else CHECKPOINT_FULL_8BIT
        return counts.total * per_param
    adapter = ADAPTER_ADAM_32BIT if optimizer == Optimizer.ADAMW_32BIT else ADAPTER_ADAM_8BIT
    return method.trainable(counts, lora_rank) * adapter


def nvme_bytes(checkpoint: float, keep: int, counts: ParamCounts) -> float:
    """Disk a copy needs on its server: the checkpoints it keeps and its BF16 base model."""
    return keep * checkpoint + counts.total * BF16
