"""The power benchmark's README states what ftopt's power model computes for each published system."""

from __future__ import annotations

import benchmarks.power as power_bench


def test_the_readme_is_what_the_benchmark_computes_now() -> None:
    assert power_bench.README.read_text() == power_bench.render(power_bench.rows())


def test_at_least_three_systems_are_within_ten_percent_and_every_miss_says_why() -> None:
    found = power_bench.rows()
    assert sum(r.within for r in found) >= 3
    assert all(r.miss for r in found if not r.within)
    assert any("PCIe" in r.name or r.chassis.startswith("gpu-server") for r in found if r.within)


def test_a_row_is_ftopts_wall_draw_over_the_published_figure() -> None:
    dgx_h100 = next(r for r in power_bench.rows() if "H100" in r.name and r.chassis.startswith("hgx"))
    assert dgx_h100.ratio == dgx_h100.ftopt_w / 10200 and dgx_h100.within
