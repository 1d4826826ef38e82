"""Power at the wall against published systems: `python -m benchmarks.power` writes README.md here.

Each system of systems.yaml is costed part by part with ftopt's own power model
(`ftopt.model.power`): its cards at their published power, its CPUs, DIMMs, drives and NICs, and the
catalogue chassis class that stands for it (supplies, efficiency, base_watts). The table gives the
published figure, ftopt's and their ratio; tests/benchmarks/test_power_bench.py checks that the
README says what this module computes, so no figure in it is typed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue, Cpu
from ftopt.model.power import Parts, load_w, supplies_carry, wall_w

HERE = Path(__file__).resolve().parent
SYSTEMS = HERE / "systems.yaml"
README = HERE / "README.md"
GOAL = 0.10  # issue 28: within ±10 % of each published figure
BOOT = "nvme-boot-960gb"


def systems() -> list[dict[str, Any]]:
    """The published systems of systems.yaml."""
    loaded: list[dict[str, Any]] = yaml.safe_load(SYSTEMS.read_text())
    return loaded


def extra_w(system: dict[str, Any]) -> float:
    """The system's own parts the catalogue has no entry for (a DGX's BlueField-3 DPUs), each with
    its published watts: what the supplies deliver on top of `load_w`."""
    return float(sum(p["count"] * p["watts"] for p in system.get("extra_parts", [])))


def parts(system: dict[str, Any], catalogue: Catalogue) -> Parts:
    """The system's parts on its catalogue chassis class."""
    data = system.get("data_drive")
    nic = system.get("nic")
    return Parts(
        chassis=catalogue.chassis_by_id(system["chassis"]),
        gpu_w=system["gpu_w"],
        gpu_count=system["gpu_count"],
        cpu=Cpu.model_validate(system["cpu"]),
        dimm=catalogue.dimm(system["dimm"]),
        dimm_count=system["dimm_count"],
        boot=catalogue.drive(BOOT),
        data_drive=catalogue.drive(data) if data else None,
        data_drive_count=system.get("data_drive_count", 0),
        nic=catalogue.nic(nic) if nic else None,
        nic_count=system.get("nic_count", 0),
    )


@dataclass(frozen=True)
class Row:
    """One system: what was published, what ftopt computes, and whether it is within the goal."""

    name: str
    chassis: str
    published_w: int
    low_w: int | None
    ftopt_w: int
    carried: bool
    miss: str | None
    source: str

    @property
    def ratio(self) -> float:
        """ftopt's draw over the published figure."""
        return self.ftopt_w / self.published_w

    @property
    def within(self) -> bool:
        """Whether ftopt is within ±10 % of the published figure."""
        return abs(self.ratio - 1) <= GOAL


def rows(catalogue: Catalogue | None = None) -> list[Row]:
    """Every system of systems.yaml, costed by ftopt's power model."""
    c = catalogue or load_catalogue()
    out = []
    for s in systems():
        p = parts(s, c)
        load = load_w(p) + extra_w(s)
        out.append(
            Row(
                name=s["name"],
                chassis=s["chassis"],
                published_w=s["max_w"],
                low_w=s.get("low_w"),
                ftopt_w=wall_w(p.chassis, load),
                carried=supplies_carry(p.chassis, load),
                miss=s.get("miss"),
                source=s["source"],
            )
        )
    return out


def _published(r: Row) -> str:
    """The published figure in words: a maximum, or a typical range."""
    if r.low_w is None:
        return f"{r.published_w:,} W maximum"
    return f"{r.low_w:,}-{r.published_w:,} W typical"


def table(found: list[Row]) -> str:
    """The Markdown table of every system: published, ftopt, ratio, within ±10 %."""
    lines = [
        "| system | chassis class | published | ftopt at the wall | ratio | within ±10 %? |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in found:
        verdict = "yes" if r.within else "no (missed, below)"
        lines.append(
            f"| {r.name} | {r.chassis} | {_published(r)} | {r.ftopt_w:,} W | {r.ratio:.2f} | {verdict} |"
        )
    return "\n".join(lines)


def render(found: list[Row]) -> str:
    """README.md: the table, the count within the goal, each miss's reason and the sources."""
    inside = sum(r.within for r in found)
    misses = [f"- **{r.name}**: {r.ratio:.2f}; {r.miss}" for r in found if not r.within]
    sources = [f"- **{r.name}**: {r.source}" for r in found]
    return "\n".join(
        [
            "# Power at the wall against published systems",
            "",
            "Written by `python -m benchmarks.power` from `systems.yaml`; do not edit by hand. ftopt",
            "counts a server's draw from its parts (`ftopt/model/power.py`): cards at their setting, CPU",
            "TDP, DIMMs, drives, NICs, the system's own parts the catalogue has no entry for",
            "(`extra_parts`: a DGX B200's BlueField-3 DPUs) and the chassis' `base_watts` (fans, switches,",
            "retimers, BMC, part by part in `ftopt/catalogue/data/chassis.yaml`), over the supplies'",
            "efficiency. No figure here chose a catalogue figure: the chassis' base parts are published part",
            "figures, stand-ins and a published cooling share, fixed before the comparison (chassis.yaml",
            "header). This table checks the parts' estimate alone; where a chassis class carries the",
            "vendor's published maximum (`published_max`: DGX H200, DGX B200), plans size feeds, circuits",
            'and supplies by the larger of the two (the vendor floor, README "Power at the wall").',
            "",
            table(found),
            "",
            f"{inside} of {len(found)} systems within ±10 % (issue 28 asks for at least 3). A reported",
            "typical range is compared at its top: ftopt's figure is a full-load maximum.",
            "",
            "## Misses",
            "",
            *(misses or ["None."]),
            "",
            "## Sources",
            "",
            *sources,
            "",
        ]
    )


def main() -> None:
    """Write README.md beside this file."""
    README.write_text(render(rows()))
    print(README.read_text())
