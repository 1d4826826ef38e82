"""Hours with failures: the Young/Daly interval, expected interruptions and goodput."""

from __future__ import annotations

import math

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.failures import (
    LEAST_GOODPUT,
    Reliability,
    failure_cost,
    repair_wait_share,
    restart_hours,
    write_hours,
)

LLAMA3 = Reliability(interruptions_per_gpu_hour=419 / (54 * 24 * 16384), restart_hours=0.25)


def test_the_packaged_rate_is_llama_3_405b_s_interruptions_per_gpu_hour() -> None:
    packaged = load_catalogue().reliability
    assert packaged is not None
    assert packaged.interruptions_per_gpu_hour == pytest.approx(LLAMA3.interruptions_per_gpu_hour, rel=2e-3)


def test_a_405b_copy_on_32_gpus_over_four_servers() -> None:
    # 405e9 parameters × 14 bytes (BF16 weights, FP32 master and moments) = 5,670 GB written to
    # four servers with one 6.8 GB/s drive each: 208 s; MTBF = 1 / (λ × 32) ≈ 1,584 h.
    cost = failure_cost(1000.0, 32, 5670, 4 * 6.8, LLAMA3)
    mtbf = 1 / (LLAMA3.interruptions_per_gpu_hour * 32)
    assert cost.write_h == pytest.approx(5670 / 27.2 / 3600)
    assert cost.interval_h == pytest.approx(math.sqrt(2 * cost.write_h * mtbf))
    lost = cost.write_h / cost.interval_h + (cost.interval_h / 2 + 0.25) / mtbf
    assert cost.goodput == pytest.approx(1 - lost)
    assert cost.interruptions == pytest.approx(1000 / (1 - lost) / mtbf)
    assert 0.005 < cost.overhead < 0.01  # about 0.9 %: the interval (13.5 h) beats the MTBF by far


def test_more_gpus_fail_more_often_and_lose_more() -> None:
    small = failure_cost(100.0, 8, 1000, 6.8, LLAMA3)
    large = failure_cost(100.0, 16384, 1000, 6.8, LLAMA3)
    assert large.interval_h < small.interval_h and large.overhead > small.overhead > 0
    assert large.interruptions > small.interruptions


def test_a_run_its_restarts_would_eat_keeps_the_least_goodput() -> None:
    flaky = Reliability(interruptions_per_gpu_hour=0.1, restart_hours=1.0)
    assert failure_cost(10.0, 64, 1000, 1.0, flaky).goodput == LEAST_GOODPUT


def test_write_hours_is_size_over_bandwidth() -> None:
    assert write_hours(3600 * 2.0, 2.0) == pytest.approx(1.0)


# Spares: λ 1e-4 per GPU-hour, half of the interruptions hardware, 10 h to repair a server. A copy on
# 16 GPUs has 0.5 × 1e-4 × 16 × 10 = 0.008 servers in repair on average.
SITE = Reliability(interruptions_per_gpu_hour=1e-4, restart_hours=0.25, hardware_share=0.5, repair_hours=10.0)


def test_without_a_spare_every_hardware_interruption_waits_for_the_repair() -> None:
    assert repair_wait_share(SITE, 16) == 1.0
    assert restart_hours(SITE, 16) == pytest.approx(0.25 + 0.5 * 10.0)  # 5.25 h


def test_one_spare_waits_only_when_another_server_is_already_in_repair() -> None:
    waits = 1 - math.exp(-0.008)  # P(Poisson(0.008) ≥ 1) = 0.00797
    assert repair_wait_share(SITE, 16, 1) == pytest.approx(waits)
    assert restart_hours(SITE, 16, 1) == pytest.approx(0.25 + 0.5 * waits * 10.0)  # 0.290 h
    two = 1 - math.exp(-0.008) * (1 + 0.008)  # P(≥ 2) = 3.2e-5
    assert restart_hours(SITE, 16, 2) == pytest.approx(0.25 + 0.5 * two * 10.0)


def test_a_spare_raises_the_goodput_and_keeps_the_interval() -> None:
    bare, spared = failure_cost(500.0, 16, 1000, 6.8, SITE), failure_cost(500.0, 16, 1000, 6.8, SITE, 1)
    assert spared.interval_h == bare.interval_h and spared.restart_h < bare.restart_h
    mtbf = 1 / (1e-4 * 16)
    assert bare.goodput - spared.goodput == pytest.approx((bare.restart_h - spared.restart_h) / -mtbf)
    assert spared.overhead < bare.overhead


def test_without_hardware_figures_the_restart_is_the_catalogues() -> None:
    assert restart_hours(LLAMA3, 32) == 0.25 and restart_hours(LLAMA3, 32, 1) == 0.25


def test_the_packaged_figures_make_a_spare_save_most_of_the_repair_waits() -> None:
    packaged = load_catalogue().reliability
    assert packaged is not None and packaged.hardware_share == 0.78 and packaged.repair_hours
    assert restart_hours(packaged, 32) > 30 * restart_hours(packaged, 32, 1)
