"""Builds: every server the catalogue, the hardware limits, the feed and the inlet allow."""

from __future__ import annotations

from ftopt.model.power import load_w, supplies_carry, wall_w
from ftopt.solver.problem.builds import build_parts, enumerate_builds
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL, catalogue


def test_every_build_fits_the_feed_and_its_supplies_with_any_tier_and_uses_only_allowed_cards() -> None:
    workload = workload_from(SMALL)
    found = enumerate_builds(catalogue(), workload)
    feed = catalogue().feed(workload.site.feed)
    assert found.builds
    for b in found.builds:
        assert b.gpu.id == "rtx-pro-6000-se"
        for ram in b.ram_upgrades:
            for disk in b.disk_upgrades:
                load = load_w(build_parts(b.chassis, b.power_cap_w, b.gpu_count, b.cpu, b.boot, ram, disk))
                assert load <= b.load_w and wall_w(b.chassis, load) <= b.power_w <= feed.usable_w
                assert supplies_carry(b.chassis, load)


def test_a_small_feed_caps_the_cards_or_drops_the_build() -> None:
    big = enumerate_builds(catalogue(), workload_from(SMALL)).builds
    small_site = SMALL.replace("400v-3p-32a", "230v-16a")
    small = enumerate_builds(catalogue(), workload_from(small_site))
    assert max(b.gpu_count for b in small.builds) <= max(b.gpu_count for b in big)
    assert all(b.power_w <= catalogue().feed("230v-16a").usable_w for b in small.builds)
