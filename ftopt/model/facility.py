"""The facility sheet: what a data-centre team asks of a quote, per rack and for the whole bid.

Why a record of its own: the people who power and cool the servers read watts, heat, airflow, weight
and rack units, not prices. Every figure is derived here once from the plan's servers and the
catalogue's chassis, so each format prints the same ones:

- wall power at maximum: each server's full-load draw at the wall, what the circuits are planned with
  (`Server.power_w`); and the average over the write-off years, full load for the share of the years
  the servers train (`energy.utilisation`) and nothing for the rest, the figure the energy cost is
  counted on. It is not a "P50 load": the power model knows each part at full load only, no
  part-load curve, so no median draw can be derived; `average_label` and `power_note` say so in
  every format;
- heat: all of that power leaves as heat, in kW and in BTU/h (1 W = 3.412142 BTU/h, NIST SP 811,
  appendix B.8, https://www.nist.gov/pml/special-publication-811, read 2026-12-04);
- airflow and weight: the chassis' published figures (`Chassis.airflow_cfm`, `weight_kg`, each with
  its source); where a chassis lacks one, the sum names it and counts the servers it leaves out
  (`airflow_lacking`, `weight_lacking`) rather than counting them as zero: a rack of four servers with
  one figure between them reads "for 1 of 4 servers", never as the rack's weight.
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
    power_years_average_w: int = Field(
        description="Σ full-load draw × the workload's utilisation: the average over the years, idle at zero"
    )
    heat_kw: float = Field(description="power_max_w in kW: all of it leaves as heat")
    heat_btu_h: int = Field(description="power_max_w × 3.412142")
    airflow_cfm: int | None = Field(
        description="Σ the published airflow of the servers that have one; None: none has"
    )
    airflow_lacking: int = Field(
        ge=0, description="servers whose chassis has no published airflow (not in the sum)"
    )
    weight_kg: float | None = Field(
        description="Σ the published weight of the servers that have one; None: none has"
    )
    weight_lacking: int = Field(
        ge=0, description="servers whose chassis has no published weight (not in the sum)"
    )
    missing: tuple[str, ...] = Field(description="chassis of these servers that lack airflow or weight")


class Facility(BaseModel):
    """The facility sheet: one row per rack (when the site is given as racks) and the bid's."""

    model_config = _FACILITY
    utilisation: float = Field(description="the share of the years the servers train (energy.utilisation)")
    average_label: str = Field(description="the heading of power_years_average_w, as every format prints it")
    power_note: str = Field(description="what the two wall-power figures are, as every format prints it")
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
    count = len(servers)
    lacking = sorted({s.chassis for s, c in zip(servers, chassis, strict=True) if not _complete(c)})
    return FacilityRow(
        name=name,
        servers=tuple(s.id for s in servers),
        rack_units=sum(c.rack_units or 0 for c in chassis if c is not None),
        units_available=None,
        power_max_w=power,
        power_years_average_w=round(power * utilisation),
        heat_kw=round(power / 1000, 2),
        heat_btu_h=round(power * BTU_H_PER_W),
        airflow_cfm=round(sum(airflow)) if airflow else None,
        airflow_lacking=count - len(airflow),
        weight_kg=round(sum(weight), 2) if weight else None,
        weight_lacking=count - len(weight),
        missing=tuple(lacking),
    )


def _power_note(utilisation: float) -> str:
    return (
        "Wall power at maximum is each server's full-load draw, what the circuits are planned with; "
        f"averaged over the years is that × the share of the years the servers train ({utilisation:.0%}, "
        "energy.utilisation), idle hours at zero, the figure the energy cost counts. No part-load (P50) "
        "figure is given: the power model knows each part at full load only."
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
        average_label=f"wall W averaged over the years ({utilisation:.0%} training)",
        power_note=_power_note(utilisation),
        servers=tuple(drawn),
        racks=tuple(racks),
        bid=_row("bid", list(plan.servers), known, utilisation),
        sources=sources,
    )
