"""The spread factor: hours at P50 and P90 multiply the base hours by the stack's factor, a stack the
file does not name takes the pooled one, and no spread data leaves the hours as they are."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.spread import Band, Bands, Spread, SpreadFactors, confidence_words, spread_hours

POOLED = SpreadFactors(p50=0.9, p90=1.8, sources=5, points=30, basis="pooled")
OWN = SpreadFactors(p50=1.1, p90=1.4, sources=3, points=9, basis="own")


def test_hours_at_a_confidence_are_the_base_times_its_factor() -> None:
    spread = Spread(pooled=POOLED, stacks={"torchtune": OWN})
    assert spread_hours(10.0, spread.of("torchtune"), 0.9) == pytest.approx(14.0)
    assert spread_hours(10.0, spread.of("torchtune"), 0.5) == pytest.approx(11.0)
    assert spread_hours(10.0, spread.of("megatron"), 0.9) == pytest.approx(18.0)
    assert spread_hours(10.0, None, 0.9) == 10.0
    assert (confidence_words(0.5), confidence_words(0.9)) == ("P50", "P90")


def test_the_bundled_catalogue_has_a_wider_p90_than_p50_for_every_stack() -> None:
    catalogue = load_catalogue()
    assert catalogue.spread is not None
    for stack in catalogue.stacks:
        factors = catalogue.spread.of(stack.id)
        assert 0 < factors.p50 < factors.p90


def _band(low: float, high: float, basis: str) -> Band:
    return Band(low=low, high=high, points=31, sources=7, basis=basis)


def test_a_band_reads_as_a_quote_states_it() -> None:
    """Issue 37's form: the figure, the percent either side, the points and sources behind it."""
    assert _band(-0.06, 0.11, "x").words("78.4 GB") == "78.4 GB (−6/+11 %, 31 points, 7 sources)"
    assert _band(0.02, 0.4, "x").words("10 h") == "10 h (+2/+40 %, 31 points, 7 sources)"
    assert _band(-0.3, -0.05, "x").words("1 kW") == "1 kW (−30/−5 %, 31 points, 7 sources)"


def test_a_copy_takes_its_stack_and_methods_bands_or_the_pooled_ones() -> None:
    """Memory by stack and method, hours by stack; energy carries the hours band; a stack or method
    the file does not name takes the pooled band; no bands in the file, no bands on the copy."""
    pooled_memory, pooled_hours = _band(-0.2, 0.3, "pm"), _band(-0.3, 0.7, "ph")
    own_memory, own_hours = _band(-0.1, 0.1, "om"), _band(-0.1, 0.2, "oh")
    bands = Bands(
        memory_pooled=pooled_memory,
        memory={"torchtune": {"lora": own_memory}},
        hours_pooled=pooled_hours,
        hours={"torchtune": own_hours},
    )
    spread = Spread(pooled=POOLED, bands=bands)
    copy = spread.copy_bands("torchtune", "lora")
    assert copy is not None
    assert (copy.memory_per_gpu, copy.hours, copy.energy) == (own_memory, own_hours, own_hours)
    other = spread.copy_bands("megatron", "dora")
    assert other is not None and (other.memory_per_gpu, other.hours) == (pooled_memory, pooled_hours)
    assert spread.copy_bands("torchtune", "qlora").memory_per_gpu == pooled_memory  # type: ignore[union-attr]
    assert Spread(pooled=POOLED).copy_bands("torchtune", "lora") is None


def test_the_bundled_catalogue_bands_every_stack_and_the_wall_power() -> None:
    """spread.yaml carries bands for every stack and method the plans use, low below high, and a
    wall-power band from the power benchmark."""
    catalogue = load_catalogue()
    assert catalogue.spread is not None and catalogue.spread.bands is not None
    bands = catalogue.spread.bands
    for stack in catalogue.stacks:
        for method in ("full", "lora", "qlora"):
            band = bands.memory_of(stack.id, method)
            assert band.low < band.high and band.points > 0 and band.sources > 0
        assert bands.hours_of(stack.id).low < bands.hours_of(stack.id).high
    assert bands.power is not None and bands.power.points >= 4
