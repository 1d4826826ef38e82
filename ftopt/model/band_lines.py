"""The band every planned figure carries, as lines the quote's appendix and the workbench print.

Why a module of its own: the plan JSON already holds each copy's `bands` (memory per GPU, hours,
energy) and each server's `power_band`, but a buyer reads the quote, not the JSON. Every format must
say the same thing from the same fields (the summary), so the words are made here once: one line per
figure, "78.4 GB (−6/+11 %, 31 points, 7 sources)", with the band's basis beside it. Identical
copies of a run (the same figures and bands) share one line, as the headroom lines do.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ftopt.model.plan import Assignment, Plan
from ftopt.model.spread import Band

_LINE = ConfigDict(frozen=True, extra="forbid")

Figure = Literal["memory per GPU", "hours", "energy", "wall power"]
#: Each figure's unit and how its value is written (the precision the plan's tables use).
UNITS: dict[str, tuple[str, str]] = {
    "memory per GPU": ("GB", "{:,.1f}"),
    "hours": ("h", "{:,.1f}"),
    "energy": ("kWh", "{:,.0f}"),
    "wall power": ("W", "{:,.0f}"),
}


class BandLine(BaseModel):
    """One planned figure with the band of where the true figure fell on calibration data nobody
    fitted to (docs/calibration.md, section 6)."""

    model_config = _LINE
    subject: str = Field(description="what the figure is of: `run r copies 1-4` or `server s1`")
    of: Literal["run", "server"] = Field(description="whether the figure is a run's copies' or a server's")
    name: str = Field(description="the run's name or the server's id, as the plan gives it")
    copies: str | None = Field(description="the copies of the run it holds for (`1-4`); None for a server")
    figure: Figure = Field(description="which figure: memory per GPU, hours, energy or wall power")
    value: float = Field(description="ftopt's figure, in `unit`")
    unit: str = Field(description="GB, h, kWh or W")
    shown: str = Field(description="the figure as written, without its band: `78.4 GB`")
    low_percent: int = Field(description="10th percentile of measured / ftopt - 1, in whole percent")
    high_percent: int = Field(description="90th percentile of measured / ftopt - 1, in whole percent")
    points: int = Field(ge=0, description="calibration points behind the band")
    sources: int = Field(ge=0, description="independent sources behind the band")
    basis: str = Field(description="which points the band comes from, in words (Band.basis)")
    words: str = Field(description="the figure with its band, as every format prints it (Band.words)")


def band_line(of: tuple[str, str | None], figure: Figure, value: float, band: Band) -> BandLine:
    """One figure of `of` (a run's name and its copies, or a server's id and None) and its band, in
    the words every format prints."""
    name, copies = of
    unit, form = UNITS[figure]
    shown = f"{form.format(value)} {unit}"
    if copies is None:
        subject = f"server {name}"
    else:
        subject = f"run {name} cop{'ies' if ('-' in copies or ',' in copies) else 'y'} {copies}"
    return BandLine(
        subject=subject,
        of="server" if copies is None else "run",
        name=name,
        copies=copies,
        figure=figure,
        value=value,
        unit=unit,
        shown=shown,
        low_percent=round(band.low * 100),
        high_percent=round(band.high * 100),
        points=band.points,
        sources=band.sources,
        basis=band.basis,
        words=band.words(shown),
    )


def _copy_figures(a: Assignment) -> list[tuple[Figure, float | None, Band]]:
    assert a.bands is not None
    return [
        ("memory per GPU", a.memory_per_gpu_gb.total, a.bands.memory_per_gpu),
        ("hours", a.hours, a.bands.hours),
        ("energy", a.energy_kwh, a.bands.energy),
    ]


def copy_numbers(copies: list[int]) -> str:
    """`1`, `1-4`, `2, 5`: copy numbers, runs of consecutive ones as ranges (the summary's lines too)."""
    spans: list[list[int]] = []
    for n in sorted(copies):
        if spans and n == spans[-1][-1] + 1:
            spans[-1].append(n)
        else:
            spans.append([n])
    return ", ".join(str(s[0]) if len(s) == 1 else f"{s[0]}-{s[-1]}" for s in spans)


def copy_band_lines(plan: Plan) -> list[BandLine]:
    """Each copy's memory per GPU, hours and energy with their bands, identical copies of a run once
    (a figure the copy has no value for, such as hours without train_tokens, has no line)."""
    groups: dict[tuple[object, ...], list[Assignment]] = {}
    for a in plan.assignments:
        if a.bands is None:
            continue
        key = (a.run, *((f, v, b) for f, v, b in _copy_figures(a)))
        groups.setdefault(key, []).append(a)
    lines = []
    for copies in groups.values():
        a, numbers = copies[0], copy_numbers([c.copy_ for c in copies])
        lines += [band_line((a.run, numbers), f, v, b) for f, v, b in _copy_figures(a) if v is not None]
    return lines


def band_lines(plan: Plan) -> tuple[BandLine, ...]:
    """Every band a plan carries: the copies' figures in plan order, then each server's wall power."""
    servers = [
        band_line((s.id, None), "wall power", s.power_w, s.power_band) for s in plan.servers if s.power_band
    ]
    return (*copy_band_lines(plan), *servers)
