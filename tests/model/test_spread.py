"""The spread factor: hours at P50 and P90 multiply the base hours by the stack's factor, a stack the
file does not name takes the pooled one, and no spread data leaves the hours as they are."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.spread import Spread, SpreadFactors, confidence_words, spread_hours

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
