"""The rollout engine of a GRPO or PPO run: its memory (weights plus KV cache) and its generation time.

Why a model of its own: generation is bound by memory bandwidth, not FLOPs. Every decode step of a
vLLM-style engine reads the weights of its tensor-parallel shard and the KV cache of the sequences
in flight once, and produces one token per sequence; how many sequences fit in flight is what the
engine's memory left after the weights holds. So the engine's memory share sets its speed, and a
colocated engine (a share of the training GPUs) trades memory with training.

The engine splits its GPUs into replicas of `tp` GPUs (tensor parallel) and deals the step's
sequences among them (data parallel); `tp` is the smallest power of two whose weight shard leaves
room for at least one whole sequence's KV cache. A replica decodes at most what its KV cache holds
and its scheduler admits (`max_num_seqs`) at once; responses are shorter than the cap on average
(`response_mean_share`) but the step waits for the longest, which runs to the cap after the queue
has drained (the long tail); each decoded token of a tensor-parallel replica pays two all-reduces
per layer. Pure functions; constants from rollout.yaml.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ftopt.model.architecture import Architecture, ParamCounts, full_attention_layers
from ftopt.model.hardware import Gpu
from ftopt.model.memory import BF16, GB
from ftopt.model.stack import RolloutConstants as RolloutConstants  # catalogue data, typed with the stacks
from ftopt.model.workload import Rollout


def kv_bytes_per_token(arch: Architecture) -> float:
    """KV cache of one token: keys and values of every softmax-attention layer, in BF16.

    Linear-attention (DeltaNet) layers keep a fixed-size state instead, which is small beside the
    cache of a long sequence and is not counted.
    """
    return 2 * full_attention_layers(arch) * arch.kv_heads * arch.head_dim * BF16


@dataclass(frozen=True)
class Engine:
    """A rollout engine laid out on `gpus` GPUs of one card model, each giving it `budget_gb`."""

    gpus: int
    tp: int  # GPUs per replica (tensor parallel)
    budget_gb: float  # memory per GPU the engine may take
    weights_gb: float  # weight shard per GPU
    overhead_gb: float
    kv_gb_per_sequence: float  # one whole sequence's cache, per GPU of a replica
    in_flight: int  # sequences one replica decodes at once

    @property
    def replicas(self) -> int:
        """Data-parallel engine replicas."""
        return self.gpus // self.tp

    @property
    def fits(self) -> bool:
        """Whether the weights and at least one sequence's cache fit the budget."""
        return self.in_flight >= 1

    @property
    def need_gb(self) -> float:
        """What the engine holds per GPU with its batch in flight: weights, overhead and KV cache."""
        return self.weights_gb + self.overhead_gb + self.in_flight * self.kv_gb_per_sequence


def tp_choices(gpus: int) -> list[int]:
    """Tensor-parallel widths that divide the engine's GPUs: powers of two up to all of them (a
    multi-node copy's engine may span servers, as TRL's 72B run did with TP 16)."""
    return [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= gpus and gpus % t == 0]


@dataclass(frozen=True)
class Sampler:
    """What generates a step's responses: the policy's model (counts and architecture), the run's
    rollout (prompts, responses, group size) and the engine's constants. The four travel together
    through the engine's layout and its timing."""

    counts: ParamCounts
    arch: Architecture
    rollout: Rollout
    constants: RolloutConstants


def lay_out_engine(sampler: Sampler, gpu: Gpu, gpus: int, budget_gb: float) -> Engine:
    """The narrowest tensor-parallel layout whose shards hold the weights and one sequence's cache,
    with as many sequences in flight as the rest of the budget holds (at most the replica's share).
    When none fits, the widest layout, with no sequence in flight (`fits` is False)."""
    counts, arch, rollout, constants = sampler.counts, sampler.arch, sampler.rollout, sampler.constants
    weights = counts.total * BF16 / GB
    kv_sequence = kv_bytes_per_token(arch) * (rollout.prompt_len + rollout.response_len) / GB
    choices = tp_choices(gpus)
    engine = Engine(gpus, choices[-1], budget_gb, weights / choices[-1], constants.engine_overhead_gb, 0.0, 0)
    for tp in choices:
        shard_kv = kv_sequence / tp
        free = budget_gb - weights / tp - constants.engine_overhead_gb
        share = math.ceil(rollout.sequences / (gpus // tp))
        in_flight = min(share, constants.max_num_seqs, int(free / shard_kv)) if free > 0 else 0
        engine = Engine(gpus, tp, budget_gb, weights / tp, constants.engine_overhead_gb, shard_kv, in_flight)
        if engine.fits:
            return engine
    return engine


@dataclass(frozen=True)
class Generation:
    """One step's generation: prefill of the prompts and decode of the responses, seconds."""

    prefill_seconds: float
    decode_seconds: float

    @property
    def seconds(self) -> float:
        """Prefill and decode run one after the other for each wave of sequences."""
        return self.prefill_seconds + self.decode_seconds


def decode_steps(share: int, in_flight: int, response_len: int, mean_share: float) -> float:
    """Decode steps of one replica dealt `share` sequences with `in_flight` slots (continuous
    batching): the queue drains at the mean response length per slot, then the longest response runs
    on to the cap alone (the long tail), so one slot-full of sequences always takes the whole cap."""
    mean = mean_share * response_len
    return max(share / in_flight, 1.0) * mean + (response_len - mean)


def allreduce_seconds(arch: Architecture, gpu: Gpu, engine: Engine, constants: RolloutConstants) -> float:
    """Tensor-parallel exchanges of one decode step: two all-reduces per layer (after attention and
    after the MLP) of the batch's hidden states in BF16, each a fixed latency plus a ring's 2(tp-1)/tp
    of the payload over the card's GPU link (half its PCIe figure without one). None at tp 1."""
    if engine.tp == 1:
        return 0.0
    link = gpu.nvlink.bandwidth_gbps if gpu.nvlink else gpu.pcie_gbps
    payload = engine.in_flight * arch.hidden * BF16 * 2 * (engine.tp - 1) / engine.tp
    one = constants.tp_allreduce_latency_us * 1e-6 + payload / (link / 2 * 1e9)
    return 2 * arch.layers * one


def generation_time(sampler: Sampler, gpu: Gpu, engine: Engine) -> Generation:
    """Time to generate one step's responses on `engine`.

    Decode: each replica decodes its share of the sequences for `decode_steps` steps, each reading
    the weight shard and the cache in flight (on average the prompt plus half the mean response) at
    the card's memory bandwidth, or computing 2 FLOPs per active parameter per sequence at the card's
    peak, whichever is slower, plus its tensor-parallel exchanges and the fixed work per step of the
    run's engine (scheduling, sampling, kernel launches: what bounds a small model's decode; it
    differs between vLLM and SGLang, rollout.yaml). Prefill: 2 FLOPs per active
    parameter per prompt token over all the engine's GPUs, as compute.
    """
    counts, arch, rollout, constants = sampler.counts, sampler.arch, sampler.rollout, sampler.constants
    if not engine.fits:
        return Generation(math.inf, math.inf)
    share = math.ceil(rollout.sequences / engine.replicas)
    bandwidth = gpu.memory_bandwidth_gbps * 1e9 * constants.decode_bandwidth_efficiency
    peak = gpu.bf16_dense_tflops * 1e12
    mean_tokens = rollout.prompt_len + constants.response_mean_share * rollout.response_len / 2
    kv = engine.in_flight * kv_bytes_per_token(arch) * mean_tokens / engine.tp
    read = (engine.weights_gb * GB + kv) / bandwidth
    compute = 2 * counts.active * engine.in_flight / engine.tp / (peak * constants.prefill_mfu)
    step = max(read, compute) + allreduce_seconds(arch, gpu, engine, constants)
    step += constants.step_overhead_s(rollout.engine)
    steps = decode_steps(share, engine.in_flight, rollout.response_len, constants.response_mean_share)
    prompt_tokens = rollout.sequences * rollout.prompt_len
    prefill = 2 * counts.active * prompt_tokens / (engine.gpus * peak * constants.prefill_mfu)
    return Generation(prefill, steps * step)


def switch_seconds(engine: Engine, gpu: Gpu, constants: RolloutConstants) -> float:
    """A colocated engine's turn-taking per step: its weight shard leaves the card for training and
    comes back for generation (sleep and wake, over PCIe one way each), plus a fixed cost."""
    one_way = gpu.pcie_gbps / 2 * 1e9 * constants.switch_pcie_efficiency
    return 2 * engine.weights_gb * GB / one_way + constants.switch_fixed_s
