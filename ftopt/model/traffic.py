"""What a step moves between GPUs and how long it takes, as lower bounds.

Data parallel training all-reduces the gradients: 2Ψ bytes per card, Ψ the BF16 gradient bytes
(ZeRO paper). Full sharding gathers the BF16 weights before the forward and again before the
backward pass and reduce-scatters the gradients, so each card receives 3·W·(N−1)/N per step; a
frozen base has no weight gradients, leaving 2·W·(N−1)/N. Compute is 6·P·tokens FLOPs for full
fine-tuning (2 forward, 4 backward), 4·P·tokens when the base is frozen (no weight gradients), plus
2·P·tokens when activations are recomputed; time divides by the card's dense BF16 peak times MFU.
Link figures are sums of both directions; one direction carries the received bytes.
"""

from __future__ import annotations

from ftopt.model.memory import BF16
from ftopt.model.methods import TrainingMethod
from ftopt.model.workload import Recompute, Strategy


def traffic_bytes_per_step(
    strategy: Strategy, gpus: int, method: TrainingMethod, trainable: int, weight_bytes: float
) -> float:
    """Bytes each card receives per optimiser step."""
    if strategy == Strategy.SINGLE or gpus == 1:
        return 0.0
    if strategy == Strategy.DDP:
        return 2 * trainable * BF16
    passes = 3 if method.full else 2  # weights gathered twice; gradients of all weights scattered
    return passes * weight_bytes * (gpus - 1) / gpus


def step_flops(active_params: int, tokens: int, method: TrainingMethod, recompute: Recompute) -> float:
    """FLOPs of one step on one card's tokens: forward 2, input gradients 2, and weight gradients 2
    when every weight trains."""
    per_token = 6 if method.full else 4
    if recompute == Recompute.FULL:
        per_token += 2
    return per_token * active_params * tokens


def compute_seconds(flops: float, bf16_tflops: float, mfu: float) -> float:
    """Time for `flops` at the card's dense BF16 peak times model FLOPs utilisation."""
    return flops / (bf16_tflops * 1e12 * mfu)


def transfer_seconds(traffic_bytes: float, link_gbps_both_ways: float) -> float:
    """Time to receive `traffic_bytes` over one direction of a link quoted as a two-way sum."""
    if traffic_bytes == 0:
        return 0.0
    return traffic_bytes / (link_gbps_both_ways / 2 * 1e9)
