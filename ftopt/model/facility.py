"""The facility sheet: what a data-centre team asks of a quote, per rack and for the whole bid.

Why a record of its own: the people who power and cool the servers read watts, heat, airflow, weight
and rack units, not prices. Every figure is derived here once from the plan's servers and the
catalogue's chassis, so each format prints the same ones:

- wall power at maximum: each server's full-load draw at the wall, what the circuits are planned with
  (`Server.power_w`); and the average over the write-off years at the workload's utilisation
  (`energy.utilisation`), the figure the energy cost is counted on;
- heat: all of that power leaves as heat, in kW and in BTU/h (1 W = 3.412142 BTU/h, NIST SP 811,
  appendix B.8, https://www.nist.gov/pml/special-publication-811, read 2026-12-04);
- airflow and weight: the chassis' published figures (`Chassis.airflow_cfm`, `weight_kg`, each with
  its source); where a chassis lacks one, the sum names it rather than counting it as zero.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ftopt.model.hardware import Catalogue, Chassis
from ftopt.model.plan import Plan, Server

_FACILITY = ConfigDict(frozen=True, extra="forbid")

#: BTU per hour in one watt (NIST SP 811, appendix B.8: 1 BTU_IT/h = 0.2930711 W).
BTU_H_PER_W = 3.412142


class FacilityServer(BaseModel):
    """One server as the rack elevation draws it: its place, height and circuit."""

    model_config = _FACILITY
    id: str
    chassis: str
    rack: str | None
    circuit: int | None
    units: int | None = Field(description="rack units; None: the catalogue gives no height")
    power_w: int


class FacilityRow(BaseModel):
    """A rack's (or the bid's) facility figures."""

    model_config = _FACILITY
    name: str = Field(description="the rack's name, or 'bid' for every server of the plan")
    servers: tuple[str, ...]
    rack_units: int = Field(description="Σ the chassis' heights that the catalogue gives")
    units_available: int | None = Field(description="the rack's height; None for the bid")
    power_max_w: int = Field(description="Σ full-load draw at the wall")
    power_average_w: int = Field(description="Σ full-load draw × the workload's utilisation")
    heat_kw: float = Field(description="power_max_w in kW: all of it leaves as heat")
    heat_btu_h: int = Field(description="power_max_w × 3.412142")
    airflow_cfm: int | None = Field(description="Σ the chassis' airflow; None when none has one")
    weight_kg: float | None = Field(description="Σ the chassis' weight; None when none has one")
    missing: tuple[str, ...] = Field(description="chassis of these servers that lack airflow or weight")


class Facility(BaseModel):
    """The facility sheet: one row per rack (when the site is given as racks) and the bid's."""

    model_config = _FACILITY
    utilisation: float = Field(description="the share of the years the servers train (energy.utilisation)")
    servers: tuple[FacilityServer, ...]
    racks: tuple[FacilityRow, ...]
    bid: FacilityRow
    sources: tuple[str, ...] = Field(description="where the chassis' airflow and weight are published")


def _known(values: list[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def _complete(chassis: Chassis | None) -> bool:
    """Whether the catalogue gives this chassis' airflow and weight."""
    return chassis is not None and chassis.airflow_cfm is not None and chassis.weight_kg is not None


def _row(name: str, servers: list[Server], known: dict[str, Chassis], utilisation: float) -> FacilityRow:
    chassis = [known.get(s.chassis) for s in servers]
    power = sum(s.power_w for s in servers)
    airflow = _known([c.airflow_cfm if c is not None else None for c in chassis])
    weight = _known([c.weight_kg if c is not None else None for c in chassis])
    lacking = sorted({s.chassis for s, c in zip(servers, chassis, strict=True) if not _complete(c)})
    return FacilityRow(
        name=name,
        servers=tuple(s.id for s in servers),
        rack_units=sum(c.rack_units or 0 for c in chassis if c is not None),
        units_available=None,
        power_max_w=power,
        power_average_w=round(power * utilisation),
        heat_kw=round(power / 1000, 2),
        heat_btu_h=round(power * BTU_H_PER_W),
        airflow_cfm=round(sum(airflow)) if airflow else None,
        weight_kg=round(sum(weight), 1) if weight else None,
        missing=tuple(lacking),
    )


def facility(plan: Plan, catalogue: Catalogue, utilisation: float) -> Facility:
    """The plan's facility sheet: per rack and for the bid, from its servers and the chassis' figures."""
    known = {c.id: c for c in catalogue.chassis}
    drawn = []
    for s in plan.servers:
        c = known.get(s.chassis)
        units = c.rack_units if c is not None else None
        drawn.append(FacilityServer(id=s.id, chassis=s.chassis, rack=s.rack, circuit=s.circuit,
                                    units=units, power_w=s.power_w))  # fmt: skip
    racks = []
    for rack in plan.racks:
        row = _row(rack.name, [s for s in plan.servers if s.rack == rack.name], known, utilisation)
        racks.append(row.model_copy(update={"units_available": rack.units}))
    used = {s.chassis for s in plan.servers}
    sources = tuple(dict.fromkeys(
        src for c in catalogue.chassis if c.id in used for src in c.facility_sources
    ))  # fmt: skip
    return Facility(
        utilisation=utilisation,
        servers=tuple(drawn),
        racks=tuple(racks),
        bid=_row("bid", list(plan.servers), known, utilisation),
        sources=sources,
    )
