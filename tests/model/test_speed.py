"""The speed model: what a user relies on when comparing options by time to train."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.sizing import CopySetup, RunProfile, Sizing, profile_run, size_run
from ftopt.model.speed import (
    Speed,
    SpeedContext,
    at_power,
    energy_kwh,
    estimate_speed,
    flops_per_token,
    hours_to_train,
    link_kind,
    matmul_params,
    planning_host,
    power_factor,
)
from ftopt.model.workload import Energy, Offload, Optimizer, Recompute, Run, SizingOptions, Strategy


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def speed_of(
    catalogue: Catalogue,
    gpu_id: str,
    method: str = "lora",
    gpus: int = 1,
    strategy: Strategy = Strategy.SINGLE,
    offload: Offload = Offload.NONE,
    stack: str = "hf-fsdp",
    **run_fields: object,
) -> tuple[Speed, Sizing, RunProfile]:
    run = Run.model_validate(
        {"name": "r", "model": "llama-3.1-8b", "method": method, "stack": stack, **run_fields}
    )
    profile = profile_run(run, catalogue)
    gpu = catalogue.gpu(gpu_id)
    sizing = size_run(
        CopySetup(profile, gpu, gpus, strategy, Optimizer.ADAMW_32BIT, offload, SizingOptions())
    )
    assert catalogue.speed is not None and profile.stack is not None
    host = planning_host(catalogue, gpus, catalogue.speed)
    return (
        estimate_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host)),
        sizing,
        profile,
    )


@pytest.mark.parametrize("strategy", [Strategy.DDP, Strategy.FSDP])
@pytest.mark.parametrize("method", ["full", "lora"])
def test_more_gpus_on_nvlink_are_not_slower_per_copy(
    catalogue: Catalogue, strategy: Strategy, method: str
) -> None:
    one = speed_of(catalogue, "h200-nvl", method)[0].tokens_per_s
    two = speed_of(catalogue, "h200-nvl", method, 2, strategy)[0]
    four = speed_of(catalogue, "h200-nvl", method, 4, strategy)[0]
    assert two.link == four.link == "nvlink-4"
    assert one <= two.tokens_per_s <= four.tokens_per_s


def test_offload_is_slower_than_no_offload(catalogue: Catalogue) -> None:
    kept = speed_of(catalogue, "h200-nvl", "full", 4, Strategy.FSDP)[0]
    offloaded = speed_of(catalogue, "h200-nvl", "full", 4, Strategy.FSDP, Offload.CPU)[0]
    assert offloaded.offload_seconds > 0 and kept.offload_seconds == 0
    assert offloaded.tokens_per_s < kept.tokens_per_s


def test_lora_is_faster_per_token_than_full(catalogue: Catalogue) -> None:
    full = speed_of(catalogue, "h200-nvl", "full")[0]
    lora = speed_of(catalogue, "h200-nvl", "lora")[0]
    assert lora.tokens_per_s > full.tokens_per_s


def test_qlora_pays_for_dequantisation(catalogue: Catalogue) -> None:
    lora = speed_of(catalogue, "l40s", "lora")[0]
    qlora = speed_of(catalogue, "l40s", "qlora")[0]
    assert lora.dequant_seconds == 0 < qlora.dequant_seconds
    assert qlora.tokens_per_s < lora.tokens_per_s


def test_a_faster_stack_gives_more_tokens_per_second(catalogue: Catalogue) -> None:
    hf = speed_of(catalogue, "h200-nvl", "full", stack="hf-fsdp")[0]
    tuned = speed_of(catalogue, "h200-nvl", "full", stack="torchtune")[0]
    assert tuned.mfu > hf.mfu
    assert tuned.tokens_per_s > hf.tokens_per_s


def test_fp8_speeds_up_only_where_stack_and_card_offer_it(catalogue: Catalogue) -> None:
    def tps(gpu: str, stack: str, precision: str) -> Speed:
        return speed_of(catalogue, gpu, "full", stack=stack, precision=precision)[0]

    assert tps("h200-nvl", "megatron", "fp8").tokens_per_s > tps("h200-nvl", "megatron", "bf16").tokens_per_s
    assert tps("h200-nvl", "megatron", "fp8").precision == "fp8"
    # The RTX PRO 6000 SE has no FP8 peak in the catalogue: it trains in BF16.
    no_fp8 = tps("rtx-pro-6000-se", "megatron", "fp8")
    assert no_fp8.precision == "bf16"
    assert no_fp8.tokens_per_s == tps("rtx-pro-6000-se", "megatron", "bf16").tokens_per_s


def test_pcie_all_reduce_is_slower_than_nvlink(catalogue: Catalogue) -> None:
    nvlink = speed_of(catalogue, "h200-nvl", "full", 4, Strategy.FSDP)[0]
    pcie = speed_of(catalogue, "rtx-pro-6000-se", "full", 4, Strategy.FSDP)[0]
    assert pcie.link == "pcie-socket"
    assert pcie.comm_seconds > nvlink.comm_seconds


def test_link_kinds_follow_the_topology(catalogue: Catalogue) -> None:
    assert link_kind(catalogue.gpu("h200-nvl"), 1) is None
    assert link_kind(catalogue.gpu("h200-nvl"), 4) == "nvlink-4"
    assert link_kind(catalogue.gpu("h200-nvl"), 8) == "pcie-cross-socket"
    assert link_kind(catalogue.gpu("h100-nvl"), 2) == "nvlink-2"
    assert link_kind(catalogue.gpu("h100-nvl"), 4) == "pcie-socket"
    assert link_kind(catalogue.gpu("l40s"), 4) == "pcie-socket"
    assert link_kind(catalogue.gpu("l40s"), 8) == "pcie-cross-socket"


def test_slower_pcie_gives_lower_bus_bandwidth(catalogue: Catalogue) -> None:
    gen4 = speed_of(catalogue, "l40s", "full", 8, Strategy.FSDP)[0]  # PCIe Gen4, 64 GB/s
    gen5 = speed_of(catalogue, "rtx-pro-6000-se", "full", 8, Strategy.FSDP)[0]  # Gen5, 128 GB/s
    assert gen4.comm_seconds == pytest.approx(2 * gen5.comm_seconds)


def test_hours_are_tokens_over_rate(catalogue: Catalogue) -> None:
    speed = speed_of(catalogue, "l40s", "qlora")[0]
    tokens = 2_000_000_000
    assert hours_to_train(tokens, speed) == pytest.approx(tokens / speed.tokens_per_s / 3600)
    assert hours_to_train(2 * tokens, speed) == pytest.approx(2 * hours_to_train(tokens, speed))


def test_step_is_the_sum_of_its_parts(catalogue: Catalogue) -> None:
    s, _, profile = speed_of(catalogue, "h200-nvl", "full", 8, Strategy.FSDP, Offload.CPU)
    parts = (
        s.compute_seconds
        + s.dequant_seconds
        + s.exposed_comm_seconds
        + s.offload_seconds
        + s.optimizer_seconds
        + s.overhead_seconds
    )
    assert s.step_seconds == pytest.approx(parts)
    micro_batch = profile.run.micro_batch_choices[0]
    assert s.tokens_per_s == pytest.approx(8 * profile.run.seq_len * micro_batch / parts)
    assert 0 <= s.exposed_comm_seconds <= s.comm_seconds


def test_recomputation_adds_one_forward_pass(catalogue: Catalogue) -> None:
    model = catalogue.model("llama-3.1-8b")
    counts, arch = model.params, model.architecture
    for method in catalogue.methods.methods:
        plain = flops_per_token(counts, arch, 4096, method, Recompute.SELECTIVE)
        again = flops_per_token(counts, arch, 4096, method, Recompute.FULL)
        # One forward: 2 FLOPs per multiplied parameter plus causal attention, 2·s·a·d per layer.
        forward = 2 * matmul_params(counts, arch) + arch.layers * 2 * 4096 * arch.heads * arch.head_dim
        assert again - plain == pytest.approx(forward)
    full = flops_per_token(counts, arch, 4096, catalogue.methods.method("full"), Recompute.SELECTIVE)
    assert 6 * counts.total * 0.9 < full < 6 * counts.total * 1.2  # the 6·P rule plus attention


def test_longer_sequences_cost_more_per_token(catalogue: Catalogue) -> None:
    model = catalogue.model("llama-3.1-8b")
    short = flops_per_token(
        model.params, model.architecture, 1024, catalogue.methods.method("full"), Recompute.FULL
    )
    long = flops_per_token(
        model.params, model.architecture, 32768, catalogue.methods.method("full"), Recompute.FULL
    )
    assert long > short


def test_energy_is_hours_times_gpu_and_host_watts_times_pue() -> None:
    """A run's energy: hours × (GPU W at its setting + host W per GPU) × PUE. The hours are training
    time already, so `utilisation` (a share of a server's years) changes nothing."""
    energy = Energy(pue=1.5, utilisation=0.5)
    kwh = energy_kwh(600, 4, 10, energy, 140)
    assert kwh == pytest.approx(4 * (600 + 140) / 1000 * 10 * 1.5)
    assert energy_kwh(600, 4, 10, Energy(pue=1.5, utilisation=1.0), 140) == pytest.approx(kwh)
    assert energy_kwh(600, 8, 10, energy, 140) == pytest.approx(2 * kwh)
    assert energy_kwh(600, 4, 10, Energy(pue=1.0, utilisation=0.5), 140) == pytest.approx(kwh / 1.5)
    assert energy_kwh(450, 4, 10, energy, 140) == pytest.approx(4 * (450 + 140) / 1000 * 10 * 1.5)


@pytest.mark.parametrize("gpu_id", ["rtx-pro-6000-se", "h200-nvl", "h100-nvl"])
def test_a_capped_card_trains_a_compute_bound_copy_slower(catalogue: Catalogue, gpu_id: str) -> None:
    """Cards capped below full power train a compute-bound copy slower, by the card class's published
    power–performance exponent; at full power nothing changes."""
    assert catalogue.speed is not None
    gpu = catalogue.gpu(gpu_id)
    full, _, _ = speed_of(catalogue, gpu_id, "full", 1, Strategy.SINGLE, Offload.NONE, micro_batch=1)
    cap = min(gpu.power_settings_w)
    assert cap < gpu.power_w
    capped = at_power(full, gpu, cap, catalogue.speed)
    factor = power_factor(gpu, cap, catalogue.speed)
    exponent = catalogue.speed.power_exponent[gpu.card_class]
    assert factor == pytest.approx((cap / gpu.power_w) ** exponent) and factor < 1
    assert capped.tokens_per_s < full.tokens_per_s
    assert capped.compute_seconds == pytest.approx(full.compute_seconds / factor)
    assert capped.optimizer_seconds == full.optimizer_seconds  # memory-bound parts keep their time
    assert capped.power_w == cap
    assert at_power(full, gpu, gpu.power_w, catalogue.speed) is full


def test_rtx_pro_6000_at_450_w_is_slower_than_at_600_w(catalogue: Catalogue) -> None:
    """The issue's case: the same copy on RTX PRO 6000 Server Edition cards at 450 W and at 600 W."""
    assert catalogue.speed is not None
    gpu = catalogue.gpu("rtx-pro-6000-se")
    speed, _, _ = speed_of(catalogue, "rtx-pro-6000-se", "lora", 1)
    at_450 = at_power(speed, gpu, 450, catalogue.speed).tokens_per_s
    at_600 = at_power(speed, gpu, 600, catalogue.speed).tokens_per_s
    assert at_450 < at_600 == speed.tokens_per_s
    assert 0.9 < at_450 / at_600 < 0.97  # GDDR class: a shallow relation (Max-Q against Workstation)


def test_a_cap_exposes_no_less_communication(catalogue: Catalogue) -> None:
    assert catalogue.speed is not None
    gpu = catalogue.gpu("h200-nvl")
    speed, _, _ = speed_of(catalogue, "h200-nvl", "full", 8, Strategy.FSDP)
    capped = at_power(speed, gpu, 450, catalogue.speed)
    assert capped.comm_seconds == speed.comm_seconds
    assert capped.exposed_comm_seconds <= speed.exposed_comm_seconds
    assert capped.step_seconds > speed.step_seconds


def test_host_bandwidth_and_cores_bound_cpu_adam(catalogue: Catalogue) -> None:
    s, sizing, profile = speed_of(catalogue, "h200-nvl", "full", 1, Strategy.SINGLE, Offload.CPU)
    assert catalogue.speed is not None and profile.stack is not None
    gpu: Gpu = catalogue.gpu("h200-nvl")
    rich = planning_host(catalogue, 8, catalogue.speed)  # more cores than one GPU's share
    faster = estimate_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, rich))
    assert faster.offload_seconds < s.offload_seconds


def test_accumulation_amortises_the_gradient_exchange(catalogue: Catalogue) -> None:
    _, sizing, profile = speed_of(catalogue, "l40s", "lora", 8, Strategy.DDP)
    assert catalogue.speed is not None and profile.stack is not None
    gpu = catalogue.gpu("l40s")
    host = planning_host(catalogue, 8, catalogue.speed)
    once = estimate_speed(profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host))
    four = estimate_speed(
        profile, sizing, gpu, SpeedContext(profile.stack, catalogue.speed, host), accumulation=4
    )
    assert four.tokens_per_step == 4 * once.tokens_per_step
    assert four.comm_seconds == pytest.approx(once.comm_seconds)
    assert four.tokens_per_s > once.tokens_per_s


def test_sxm_modules_talk_over_their_nvswitch_at_a_rate_scaled_by_nvlink(catalogue: Catalogue) -> None:
    from ftopt.model.speed import bus_bandwidth_gbps, link_kind

    constants = catalogue.speed
    assert constants is not None
    h200, b200 = catalogue.gpu("h200-sxm"), catalogue.gpu("b200-sxm")
    assert link_kind(h200, 8) == "nvswitch" and link_kind(h200, 1) is None
    measured = constants.bus_bandwidth_gbps.nvswitch
    assert bus_bandwidth_gbps("nvswitch", h200, constants) == pytest.approx(measured)  # the measured board
    assert bus_bandwidth_gbps("nvswitch", b200, constants) == pytest.approx(measured * 1800 / 900)
