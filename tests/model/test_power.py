"""A server's draw at the wall from its parts, its supplies, and the check against published systems."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Cpu
from ftopt.model.power import Parts, load_w, supplies_carry, supplies_words, wall_w

SYSTEMS = Path(__file__).parents[2] / "benchmarks" / "power" / "systems.yaml"


def _parts(system: dict[str, Any]) -> Parts:
    c = load_catalogue()
    return Parts(
        chassis=c.chassis_by_id(system["chassis"]),
        gpu_w=system["gpu_w"],
        gpu_count=system["gpu_count"],
        cpu=Cpu.model_validate(system["cpu"]),
        dimm=c.dimm(system["dimm"]),
        dimm_count=system["dimm_count"],
        boot=c.drive("nvme-boot-960gb"),
        data_drive=c.drive(system["data_drive"]),
        data_drive_count=system["data_drive_count"],
        nic=c.nic(system["nic"]),
        nic_count=system["nic_count"],
    )


def published_systems() -> list[dict[str, Any]]:
    """The published systems of benchmarks/power/systems.yaml."""
    systems: list[dict[str, Any]] = yaml.safe_load(SYSTEMS.read_text())
    return systems


@pytest.mark.parametrize("system", published_systems(), ids=lambda s: s["name"])
def test_the_draw_at_the_wall_is_within_ten_percent_of_each_published_system_maximum(
    system: dict[str, Any],
) -> None:
    parts = _parts(system)
    wall = wall_w(parts.chassis, load_w(parts))
    assert 0.9 <= wall / system["max_w"] <= 1.1, f"{system['name']}: {wall} W against {system['max_w']} W"
    assert supplies_carry(parts.chassis, load_w(parts))


def test_at_least_three_published_systems_are_checked() -> None:
    assert len({s["max_w"] for s in published_systems()}) >= 3


def test_the_wall_sees_every_part_over_the_supplies_efficiency() -> None:
    parts = _parts(published_systems()[1])
    c = parts.chassis
    expected = 8 * 700 + 2 * 350 + 32 * parts.dimm.watts + 8 * 20 + parts.boot.watts + 10 * 25 + c.base_watts
    assert load_w(parts) == pytest.approx(expected)
    assert wall_w(c, load_w(parts)) == -(-expected // c.psu_efficiency)


def test_redundant_supplies_that_cannot_carry_the_parts_are_refused() -> None:
    chassis = load_catalogue().chassis_by_id("gpu-server-8")  # 4 × 3,000 W, N+1: 9,000 W
    assert supplies_carry(chassis, 9000) and not supplies_carry(chassis, 9001)
    n_n = chassis.model_validate(chassis.model_dump() | {"psu_redundancy": "N+N"})
    assert not supplies_carry(n_n, 6001) and supplies_words(n_n) == "4 × 3,000 W, N+N"
