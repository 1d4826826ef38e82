"""The rollout engine: its KV cache per token, its tensor-parallel layout, and its generation time, which
memory bandwidth (not FLOPs) bounds at decode; and an RL step's time from its phases."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.rl import Layout, rl_speed, size_rl
from ftopt.model.rollout import (
    Sampler,
    allreduce_seconds,
    decode_steps,
    generation_time,
    kv_bytes_per_token,
    lay_out_engine,
)
from ftopt.model.sizing import profile_run
from ftopt.model.speed import SpeedContext, planning_host
from ftopt.model.workload import (
    Offload,
    Optimizer,
    Placement,
    Rollout,
    RolloutEngine,
    Run,
    SizingOptions,
    Strategy,
)

CONSTANTS = load_catalogue().rollout


def test_kv_cache_of_llama_8b_is_128_kib_per_token(catalogue: Catalogue) -> None:
    # 32 layers × 8 KV heads × 128 wide × (K and V) × 2 bytes = 131,072 bytes.
    assert kv_bytes_per_token(catalogue.model("llama-3.1-8b").architecture) == 131_072


def test_engine_takes_the_narrowest_layout_that_holds_the_weights(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.3-70b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    rollout = Rollout()
    engine = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 8, 0.4 * gpu.memory_gb
    )
    # 141 GB of BF16 weights: a shard of 70.6 GB on two cards exceeds 56.4 GB, 35 GB on four does not.
    assert engine.tp == 4 and engine.replicas == 2 and engine.fits
    assert engine.need_gb <= engine.budget_gb
    assert engine.in_flight <= rollout.sequences // 2


def test_decode_is_bound_by_memory_bandwidth(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.1-8b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    rollout = Rollout(prompts_per_step=1, group_size=1, response_len=1000)
    engine = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 1, 0.5 * gpu.memory_gb
    )
    time = generation_time(Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, engine)
    # One sequence runs to the cap: each of 1,000 decode steps reads the 16 GB of weights (plus a
    # little cache) and pays the engine's fixed per-step cost.
    bandwidth = gpu.memory_bandwidth_gbps * 1e9 * CONSTANTS.decode_bandwidth_efficiency
    weights_read = 1000 * profile.counts.total * 2 / bandwidth
    fixed = 1000 * CONSTANTS.step_overhead_s(rollout.engine)
    assert time.decode_seconds == pytest.approx(weights_read + fixed, rel=0.02)
    faster = gpu.model_copy(update={"memory_bandwidth_gbps": 2 * gpu.memory_bandwidth_gbps})
    quicker = generation_time(Sampler(profile.counts, profile.arch, rollout, CONSTANTS), faster, engine)
    assert quicker.decode_seconds == pytest.approx(weights_read / 2 + fixed, rel=0.02)


def test_each_engine_pays_its_own_fixed_time_per_decode_step(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.1-8b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    constants = CONSTANTS.model_copy(
        update={"decode_step_overhead_ms": {RolloutEngine.VLLM: 3.0, RolloutEngine.SGLANG: 20.0}}
    )
    times = {}
    for engine in RolloutEngine:
        rollout = Rollout(engine=engine, prompts_per_step=1, group_size=1, prompt_len=100, response_len=1000)
        layout = lay_out_engine(
            Sampler(profile.counts, profile.arch, rollout, constants), gpu, 1, 0.5 * gpu.memory_gb
        )
        times[engine] = generation_time(
            Sampler(profile.counts, profile.arch, rollout, constants), gpu, layout
        )
    # One sequence runs 1,000 decode steps; each reads 16.06 GB of weights at 4.8 TB/s x 0.6 (5.58 ms)
    # and its engine's fixed time: 3 ms under vLLM, 20 ms under SGLang.
    reads = (
        2 * profile.counts.total / (gpu.memory_bandwidth_gbps * 1e9 * CONSTANTS.decode_bandwidth_efficiency)
    )
    assert reads == pytest.approx(0.00558, rel=0.01)
    assert times[RolloutEngine.VLLM].decode_seconds == pytest.approx(1000 * (reads + 0.003), rel=0.02)
    assert times[RolloutEngine.SGLANG].decode_seconds == pytest.approx(1000 * (reads + 0.020), rel=0.02)
    # The engines differ by exactly 1,000 steps x 17 ms; prefill is the same.
    gap = times[RolloutEngine.SGLANG].decode_seconds - times[RolloutEngine.VLLM].decode_seconds
    assert gap == pytest.approx(17.0)
    assert times[RolloutEngine.SGLANG].prefill_seconds == times[RolloutEngine.VLLM].prefill_seconds


def test_an_engine_the_constants_leave_out_pays_no_fixed_time() -> None:
    only_sglang = CONSTANTS.model_copy(update={"decode_step_overhead_ms": {RolloutEngine.SGLANG: 20.0}})
    assert only_sglang.step_overhead_s(RolloutEngine.VLLM) == 0.0
    assert only_sglang.step_overhead_s(RolloutEngine.SGLANG) == pytest.approx(0.020)


def test_packaged_constants_give_sglang_its_fitted_step_cost_and_vllm_none() -> None:
    # rollout.yaml: SGLang's 20 ms fitted on verl issue #1208; vLLM's 0, the bound its fit point allows.
    assert CONSTANTS.step_overhead_s(RolloutEngine.SGLANG) == pytest.approx(0.020)
    assert CONSTANTS.step_overhead_s(RolloutEngine.VLLM) == 0.0
    assert Rollout().engine == RolloutEngine.VLLM


def test_the_longest_response_sets_the_step_and_the_rest_drain_at_the_mean() -> None:
    # One slot-full of sequences: the longest runs to the cap whatever the mean.
    assert decode_steps(64, 64, 1000, 0.6) == pytest.approx(1000)
    assert decode_steps(10, 64, 1000, 0.3) == pytest.approx(1000)
    # Four slot-fulls drain at the mean (600 steps each), then the tail runs on to the cap.
    assert decode_steps(256, 64, 1000, 0.6) == pytest.approx(4 * 600 + 400)
    assert decode_steps(256, 64, 1000, 1.0) == pytest.approx(4 * 1000)


def test_the_scheduler_caps_the_sequences_in_flight(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.1-8b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    rollout = Rollout(prompts_per_step=512, group_size=8, prompt_len=128, response_len=256)
    engine = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 1, 0.9 * gpu.memory_gb
    )
    assert engine.in_flight == CONSTANTS.max_num_seqs  # the KV cache would hold more
    wider = CONSTANTS.model_copy(update={"max_num_seqs": 4 * CONSTANTS.max_num_seqs})
    more = lay_out_engine(Sampler(profile.counts, profile.arch, rollout, wider), gpu, 1, 0.9 * gpu.memory_gb)
    assert more.in_flight > engine.in_flight


def test_tensor_parallel_replicas_pay_all_reduces_per_decoded_token(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.3-70b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    rollout = Rollout()
    engine = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 8, 0.4 * gpu.memory_gb
    )
    assert engine.tp == 4
    exchanges = allreduce_seconds(profile.arch, gpu, engine, CONSTANTS)
    # Two all-reduces per layer, each at least its fixed latency.
    assert exchanges >= 2 * profile.arch.layers * CONSTANTS.tp_allreduce_latency_us * 1e-6
    single = replace(engine, tp=1)
    assert allreduce_seconds(profile.arch, gpu, single, CONSTANTS) == 0.0
    free = CONSTANTS.model_copy(update={"tp_allreduce_latency_us": 0.0})
    with_cost = generation_time(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, engine
    ).decode_seconds
    without = generation_time(
        Sampler(profile.counts, profile.arch, rollout, free), gpu, engine
    ).decode_seconds
    assert with_cost > without


def test_more_engine_memory_means_fewer_waves_and_less_time(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.1-8b", method="full"), catalogue)
    gpu = catalogue.gpu("h200-nvl")
    rollout = Rollout(prompts_per_step=512, group_size=8, response_len=4096)
    small = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 1, 0.2 * gpu.memory_gb
    )
    large = lay_out_engine(
        Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, 1, 0.9 * gpu.memory_gb
    )
    assert small.in_flight < large.in_flight
    slow = generation_time(Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, small).seconds
    fast = generation_time(Sampler(profile.counts, profile.arch, rollout, CONSTANTS), gpu, large).seconds
    assert fast < slow


def _step(
    catalogue: Catalogue, method: str, placement: Placement, engine: int = 0
) -> tuple[float, float, float]:
    run = Run.model_validate({"name": "r", "model": "llama-3.1-8b", "method": method, "rollout": {}})
    profile = profile_run(run, catalogue)
    gpu = catalogue.gpu("h200-sxm")
    layout = Layout(8, placement, engine, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE)
    sizing = size_rl(profile, gpu, layout, SizingOptions(), CONSTANTS)
    assert catalogue.speed is not None and profile.stack is not None
    host = planning_host(catalogue, 8, catalogue.speed)
    speed = rl_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host), CONSTANTS)
    update = speed.step_seconds - speed.rollout_seconds
    return speed.step_seconds, speed.rollout_seconds, update


def test_rl_step_adds_generation_scoring_and_sync_to_the_update(catalogue: Catalogue) -> None:
    step, phases, update = _step(catalogue, "grpo", Placement.COLOCATED)
    assert phases > 0 and update > 0 and step == pytest.approx(phases + update)
    _ppo_step, ppo_phases, ppo_update = _step(catalogue, "ppo", Placement.COLOCATED)
    assert ppo_update == pytest.approx(update)  # the same policy update
    assert ppo_phases > phases + update * 0.99  # plus the critic's update and forward pass


def test_rl_tokens_per_step_are_the_policys_trained_tokens(catalogue: Catalogue) -> None:
    run = Run.model_validate(
        {
            "name": "r",
            "model": "llama-3.1-8b",
            "method": "grpo",
            "rollout": {"prompt_len": 100, "response_len": 300, "group_size": 4, "prompts_per_step": 10},
        }
    )
    profile = profile_run(run, catalogue)
    gpu = catalogue.gpu("h200-sxm")
    layout = Layout(2, Placement.COLOCATED, 0, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE)
    sizing = size_rl(profile, gpu, layout, SizingOptions(), CONSTANTS)
    assert catalogue.speed is not None and profile.stack is not None
    host = planning_host(catalogue, 2, catalogue.speed)
    speed = rl_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host), CONSTANTS)
    assert speed.tokens_per_step == 10 * 4 * (100 + 300)
