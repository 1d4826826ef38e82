"""Heavy configurations: aligned free blocks after the heavy copies, and the cheapest tier that holds."""

from __future__ import annotations

import itertools

from ftopt.solver.problem.configs import cheapest_tier, free_blocks, worth_buying
from tests.solver.tiny import HEAVY, SHARING, problem


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


def test_tiers_worth_buying_run_from_the_least_need_to_the_most_each_larger_and_dearer() -> None:
    tiers = problem(HEAVY).builds[0].disk_upgrades
    least, most = min(t.gb for t in tiers), max(t.gb for t in tiers)
    worth = worth_buying(tiers, least, most)
    cheapest = cheapest_tier(tiers, least)
    assert cheapest is not None and worth[0].price == cheapest.price
    assert worth[-1].gb >= most
    assert all(a.gb < b.gb and a.price < b.price for a, b in itertools.pairwise(worth))
    assert worth_buying(tiers, least, least) == worth[:1]


def test_sized_configurations_span_the_optimistic_and_safe_tiers_with_their_room() -> None:
    """Every optimistic and every safe configuration reappears among the sized ones at its price, and
    open sized one states the room its tiers leave beyond its heavy copies."""
    data = problem(SHARING)
    sized = data.with_sized_configs()
    assert sized.light_room and len(sized.configs) > len(data.configs)
    prices = {(c.heavy, c.price) for c in sized.configs}
    assert all((c.heavy, c.price) in prices for c in [*data.configs, *data.safe_configs])
    for config in (c for c in sized.configs if c.free_blocks):
        held = sum(sized.heavy_classes[k].shape.nvme_gb * n for k, n in config.heavy)
        assert config.nvme_room_gb == config.disk.gb - held >= 0
