"""Hours with failures: the Young/Daly interval, expected interruptions and goodput."""

from __future__ import annotations

import math

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.failures import LEAST_GOODPUT, Reliability, failure_cost, write_hours

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
