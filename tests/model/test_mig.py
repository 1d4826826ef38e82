"""GPU slices (MIG): the catalogue's profiles and layouts, and the card one instance amounts to."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.mig import Mig, MigProfile, slice_card
from ftopt.model.sizing import CopySetup, profile_run, size_run
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy

ONE = MigProfile(name="1g.24gb", memory_gb=24, compute_slices=1, memory_slices=1, max_count=4)
TWO = MigProfile(name="2g.48gb", memory_gb=48, compute_slices=2, memory_slices=2, max_count=2)


def test_the_rtx_pro_6000_splits_into_the_layouts_nvidia_lists() -> None:
    mig = load_catalogue().gpu("rtx-pro-6000-se").mig
    assert mig is not None and (mig.compute_slices, mig.memory_slices) == (4, 4)
    assert [(p.name, p.memory_gb, n) for p, n in mig.uniform_layouts()] == [
        ("1g.24gb", 24, 4),
        ("2g.48gb", 48, 2),
    ]
    assert mig.valid(["2g.48gb", "1g.24gb", "1g.24gb"]) and mig.valid(["1g.24gb"])  # part of a layout
    assert not mig.valid(["2g.48gb", "2g.48gb", "1g.24gb"])  # five compute slices of four
    assert not mig.valid(["4g.96gb", "1g.24gb"])


def test_the_h200_nvl_offers_seven_small_instances_and_cards_without_mig_none() -> None:
    catalogue = load_catalogue()
    mig = catalogue.gpu("h200-nvl").mig
    assert mig is not None and ("1g.18gb", 7) in [(p.name, n) for p, n in mig.uniform_layouts()]
    assert not mig.valid(["4g.71gb", "4g.71gb"])
    assert catalogue.gpu("l40s").mig is None


def test_a_layout_beyond_the_cards_slices_is_refused() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        Mig(
            compute_slices=4,
            memory_slices=4,
            profiles=(ONE, TWO),
            layouts=(("2g.48gb", "2g.48gb", "1g.24gb"),),
        )
    with pytest.raises(ValueError, match="unknown"):
        Mig(compute_slices=4, memory_slices=4, profiles=(ONE,), layouts=(("3g.72gb",),))


def test_a_slice_has_its_share_of_memory_compute_and_bandwidth_and_no_nvlink() -> None:
    catalogue = load_catalogue()
    card = catalogue.gpu("rtx-pro-6000-se")
    quarter = slice_card(card, ONE)
    assert quarter.id == card.id and quarter.memory_gb == 24
    assert quarter.bf16_dense_tflops == pytest.approx(card.bf16_dense_tflops / 4)
    assert quarter.memory_bandwidth_gbps == pytest.approx(card.memory_bandwidth_gbps / 4)
    h200 = catalogue.gpu("h200-nvl")
    assert h200.mig is not None
    small = slice_card(h200, h200.mig.uniform_layouts()[0][0])
    assert small.nvlink is None and small.bf16_dense_tflops == pytest.approx(h200.bf16_dense_tflops / 7)
    assert small.memory_bandwidth_gbps == pytest.approx(h200.memory_bandwidth_gbps / 8)


def test_an_8b_qlora_copy_fits_a_quarter_card_and_trains_at_a_quarter_of_its_compute() -> None:
    catalogue = load_catalogue()
    card = catalogue.gpu("rtx-pro-6000-se")
    run = Run.model_validate(
        {
            "name": "q",
            "model": "llama-3.1-8b",
            "method": "qlora",
            "seq_len": 2048,
            "gradient_checkpointing": True,
        }
    )
    profile = profile_run(run, catalogue)
    args = (Strategy.SINGLE, Optimizer.ADAMW_32BIT, Offload.NONE, SizingOptions())
    whole = size_run(CopySetup(profile, card, 1, *args))
    sliced = size_run(CopySetup(profile, slice_card(card, ONE), 1, *args))
    assert sliced.card_gb == 24 and sliced.fits
    assert sliced.total_gb == pytest.approx(whole.total_gb)  # the same copy, on less memory
    assert sliced.compute_seconds == pytest.approx(4 * whole.compute_seconds)
    big = run.model_copy(update={"model": "llama-3.3-70b", "method": "lora"})
    assert not size_run(CopySetup(profile_run(big, catalogue), slice_card(card, TWO), 1, *args)).fits
