"""Builds: every server the catalogue, the hardware limits, the feed and the inlet allow."""

from __future__ import annotations

from ftopt.solver.problem.builds import enumerate_builds, power_overhead, server_power_w
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL, catalogue


def test_the_power_estimate_is_cards_and_cpus_with_the_overhead_rounded_up() -> None:
    cpu = catalogue().cpus[0]
    assert server_power_w(600, 4, cpu, 2, 0.1) == -(-((600 * 4 + cpu.tdp_w * 2) * 1.1) // 1)


def test_every_build_fits_the_feed_and_uses_only_allowed_cards() -> None:
    workload = workload_from(SMALL)
    found = enumerate_builds(catalogue(), workload)
    feed = catalogue().feed(workload.site.feed)
    assert found.builds
    for build in found.builds:
        assert build.gpu.id == "rtx-pro-6000-se"
        overhead = power_overhead(catalogue(), build.chassis)
        assert server_power_w(
            build.power_cap_w, build.gpu_count, build.cpu, build.chassis.sockets, overhead
        ) <= (feed.usable_w)


def test_a_small_feed_caps_the_cards_or_drops_the_build() -> None:
    big = enumerate_builds(catalogue(), workload_from(SMALL)).builds
    small_site = SMALL.replace("400v-3p-32a", "230v-16a")
    small = enumerate_builds(catalogue(), workload_from(small_site))
    assert max(b.gpu_count for b in small.builds) <= max(b.gpu_count for b in big)
    assert all(b.power_w <= catalogue().feed("230v-16a").usable_w for b in small.builds)
