"""Heavy configurations: aligned free blocks after the heavy copies, and the cheapest tier that holds."""

from __future__ import annotations

from ftopt.solver.problem.configs import cheapest_tier, free_blocks
from tests.solver.tiny import HEAVY, problem


def test_free_blocks_are_aligned_powers_of_two_covering_the_rest() -> None:
    assert free_blocks(8, 0) == (8,)
    assert free_blocks(8, 1) == (1, 2, 4)
    assert free_blocks(8, 3) == (1, 4)
    assert free_blocks(4, 2) == (2,)
    assert free_blocks(4, 4) == ()


def test_the_cheapest_tier_holds_the_need() -> None:
    build = problem(HEAVY).builds[0]
    tiers = build.ram_upgrades
    need = tiers[0].gb + 1
    tier = cheapest_tier(tiers, need)
    assert tier is not None and tier.gb >= need
    assert all(t.price >= tier.price for t in tiers if t.gb >= need)
    assert cheapest_tier(tiers, max(t.gb for t in tiers) + 1) is None


def test_configurations_hold_their_heavy_copies_ram() -> None:
    data = problem(HEAVY)
    reserve = data.catalogue.rules.host_ram_reserve_gb
    for config in data.configs:
        held = sum(data.heavy_classes[k].shape.host_ram_gb * n for k, n in config.heavy)
        assert config.ram.gb >= held + reserve
