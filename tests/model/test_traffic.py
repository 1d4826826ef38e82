"""Bytes moved per step, FLOPs per step and the times they take."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.methods import TrainingMethod
from ftopt.model.traffic import (
    compute_seconds,
    step_flops,
    traffic_bytes_per_step,
    transfer_seconds,
)
from ftopt.model.workload import Recompute, Strategy

FULL, LORA, QLORA = (load_catalogue().methods.method(m) for m in ("full", "lora", "qlora"))


def test_single_gpu_moves_nothing() -> None:
    assert traffic_bytes_per_step(Strategy.SINGLE, 1, FULL, 100, 1000) == 0
    assert traffic_bytes_per_step(Strategy.DDP, 1, FULL, 100, 1000) == 0
    assert traffic_bytes_per_step(Strategy.FSDP, 1, FULL, 100, 1000) == 0


@pytest.mark.parametrize("gpus", [2, 4, 8])
def test_ddp_allreduce_is_2_psi_whatever_the_count(gpus: int) -> None:
    # Ψ = 100 trainable · 2 bytes = 200; all-reduce 2Ψ = 400 per card
    assert traffic_bytes_per_step(Strategy.DDP, gpus, LORA, 100, 1000) == 400


def test_fsdp_full_receives_three_passes() -> None:
    # 3 · 1,000 · (4 − 1)/4 = 2,250
    assert traffic_bytes_per_step(Strategy.FSDP, 4, FULL, 500, 1000) == pytest.approx(2250)


@pytest.mark.parametrize("method", [LORA, QLORA])
def test_fsdp_frozen_base_receives_two_passes(method: TrainingMethod) -> None:
    # 2 · 1,000 · (4 − 1)/4 = 1,500; and on 2 cards 2 · 1,000 · 1/2 = 1,000
    assert traffic_bytes_per_step(Strategy.FSDP, 4, method, 10, 1000) == pytest.approx(1500)
    assert traffic_bytes_per_step(Strategy.FSDP, 2, method, 10, 1000) == pytest.approx(1000)


@pytest.mark.parametrize(
    ("method", "recompute", "per_token"),
    [
        (FULL, Recompute.NONE, 6),
        (FULL, Recompute.SELECTIVE, 6),
        (FULL, Recompute.FULL, 8),
        (LORA, Recompute.NONE, 4),
        (LORA, Recompute.FULL, 6),
        (QLORA, Recompute.SELECTIVE, 4),
    ],
)
def test_step_flops(method: TrainingMethod, recompute: Recompute, per_token: int) -> None:
    # per_token · 1,000 params · 10 tokens
    assert step_flops(1000, 10, method, recompute) == per_token * 10_000


def test_compute_seconds() -> None:
    # 6e12 FLOPs at 1 TFLOPS peak and 50 % MFU = 12 s
    assert compute_seconds(6e12, 1.0, 0.5) == pytest.approx(12.0)


def test_transfer_uses_one_direction() -> None:
    # a 128 GB/s two-way link carries 64 GB/s one way: 64e9 bytes take 1 s; 900 → 450 GB/s
    assert transfer_seconds(64e9, 128) == pytest.approx(1.0)
    assert transfer_seconds(450e9, 900) == pytest.approx(1.0)
    assert transfer_seconds(0, 128) == 0
