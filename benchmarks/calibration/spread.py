"""The speed model's P50/P90 hours factors per stack, from the calibration's cross-validated
throughput points (every source judged by constants fitted without it, benchmarks/calibration/cv.py;
the method is ftopt.model.spread's docstring); written to ftopt/catalogue/data/spread.yaml.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import yaml

from benchmarks.calibration import ROOT, Outcome, calibration_method
from benchmarks.calibration.margins import stack_ids
from ftopt.model.spread import Band, Bands, Spread, SpreadFactors
from ftopt.model.stack import MIN_SOURCES

SPREAD_FILE = ROOT / "ftopt" / "catalogue" / "data" / "spread.yaml"


def throughput_points(outcomes: list[Outcome]) -> list[Outcome]:
    """The matched throughput points, fit and held-out (pass them cross-validated)."""
    return [o for o in outcomes if o.kind == "throughput" and o.ftopt is not None]


def quantile(ratios: list[float], q: float) -> float:
    """The median for q = 0.5 (the mean of the middle two of an even count), else the nearest rank."""
    ordered = sorted(ratios)
    n = len(ordered)
    if q == 0.5:
        return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return ordered[max(0, math.ceil(round(q * n, 9)) - 1)]


def _up(value: float) -> float:
    return math.ceil(round(value * 100, 6)) / 100


def factors(rows: list[Outcome], basis: str) -> SpreadFactors:
    """P50 and P90 of the rows' ratios ftopt / published, rounded up to the next hundredth."""
    ratios = [o.ratio or 0.0 for o in rows]
    return SpreadFactors(
        p50=_up(quantile(ratios, 0.5)),
        p90=_up(quantile(ratios, 0.9)),
        sources=len({o.source for o in rows}),
        points=len(rows),
        basis=basis,
    )


def _down(value: float) -> float:
    return math.floor(round(value * 100, 6)) / 100


def band(deviations: list[tuple[str, float]], basis: str) -> Band:
    """The nearest-rank 10th and 90th percentile of (source, measured / ftopt - 1) pairs, rounded
    outward to the hundredth."""
    values = sorted(d for _, d in deviations)
    n = len(values)
    low = values[max(0, math.ceil(round(0.1 * n, 9)) - 1)] if values else 0.0
    high = values[max(0, math.ceil(round(0.9 * n, 9)) - 1)] if values else 0.0
    return Band(
        low=_down(low), high=_up(high), points=n, sources=len({s for s, _ in deviations}), basis=basis
    )


def _deviation(o: Outcome) -> tuple[str, float]:
    """(source, measured / ftopt - 1): for memory the card holds that much more than ftopt's figure,
    for throughput the real hours are that much longer (the ratio ftopt / published - 1)."""
    ratio = o.ratio or 1.0
    return o.source, (1 / ratio - 1) if o.kind == "memory" else ratio - 1


def _own_or_pooled(rows: list[Outcome], pooled: Band, words: str) -> Band:
    """The rows' own band with at least MIN_SOURCES sources, else `pooled`."""
    sources = len({o.source for o in rows})
    if sources < MIN_SOURCES:
        return pooled
    return band([_deviation(o) for o in rows], f"cross-validated {words}, {sources} sources")


def power_band() -> Band:
    """Wall power: benchmarks/power's published systems against ftopt's parts estimate (the published
    maximum over ftopt's figure, minus 1: min and max of four systems)."""
    from benchmarks.power import rows

    found = rows()
    values = sorted(r.published_w / r.ftopt_w - 1 for r in found)
    return Band(
        low=_down(values[0]),
        high=_up(values[-1]),
        points=len(values),
        sources=len({r.source for r in found}),
        basis="published system maxima against ftopt's parts estimate (benchmarks/power)",
    )


def derive_bands(outcomes: list[Outcome], stacks: list[str]) -> Bands:
    """Memory per stack and method, hours per stack: own bands with three sources, else pooled."""
    memory = [o for o in outcomes if o.kind == "memory" and o.ftopt is not None and o.stack and o.method]
    speed = throughput_points(outcomes)
    count = len({o.source for o in memory})
    memory_pooled = band(
        [_deviation(o) for o in memory], f"pooled cross-validated memory of all stacks, {count} sources"
    )
    count = len({o.source for o in speed})
    hours_pooled = band(
        [_deviation(o) for o in speed], f"pooled cross-validated throughput of all stacks, {count} sources"
    )
    per_memory = {
        stack: {
            method: _own_or_pooled(
                [o for o in memory if (o.stack, calibration_method(str(o.method))) == (stack, method)],
                memory_pooled,
                f"memory of {stack}/{method}",
            )
            for method in ("full", "lora", "qlora")
        }
        for stack in stacks
    }
    per_hours = {
        stack: _own_or_pooled([o for o in speed if o.stack == stack], hours_pooled, f"throughput of {stack}")
        for stack in stacks
    }
    return Bands(
        memory_pooled=memory_pooled,
        memory=per_memory,
        hours_pooled=hours_pooled,
        hours=per_hours,
        power=power_band(),
    )


def derive_spread(outcomes: list[Outcome], stacks: list[str], bands: bool = False) -> Spread:
    """Per stack its own factors with at least MIN_SOURCES sources, else the pooled ones; with the
    bands (derive_bands) when `bands`."""
    rows = throughput_points(outcomes)
    count = len({o.source for o in rows})
    pooled = factors(rows, f"pooled cross-validated throughput of all stacks, {count} sources")
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in rows:
        groups[str(o.stack)].append(o)
    own = {
        stack: factors(g, f"cross-validated throughput of {stack}, {len({o.source for o in g})} sources")
        for stack, g in groups.items()
        if len({o.source for o in g}) >= MIN_SOURCES
    }
    return Spread(
        pooled=pooled,
        stacks={stack: own.get(stack, pooled) for stack in stacks},
        bands=derive_bands(outcomes, stacks) if bands else None,
    )


def render_spread(outcomes: list[Outcome]) -> str:
    """spread.yaml: the factors with the derivation in its header."""
    from ftopt.model import spread as method

    doc = (method.__doc__ or "").split("\n\n", 1)[1].split("\n\nspread.yaml", 1)[0].strip()
    rows = throughput_points(outcomes)
    groups: dict[str, int] = defaultdict(int)
    for o in rows:
        groups[str(o.stack)] += 1
    header = [
        "# The speed model's spread: a copy's hours at P50 and P90 are its hours (with failures, on one",
        "# server or several) × these factors (ftopt/model/spread.py). Generated by",
        "# `python -m benchmarks.calibration --write-margins` from the cross-validated throughput points",
        "# of benchmarks/calibration/points*.yaml; do not edit by hand (tests/benchmarks/test_calibration.py",
        "# checks this file against the derivation). Sources: benchmarks/calibration.md lists each",
        "# point with its source's address.",
        "#",
        *[f"# {line}".rstrip() for line in doc.splitlines()],
        "#",
        "# Cross-validated throughput points per stack: "
        + ", ".join(f"{stack} {count}" for stack, count in sorted(groups.items())),
        "",
    ]
    body = derive_spread(outcomes, stack_ids(), bands=True).model_dump(mode="json")
    return "\n".join(header) + "\n" + yaml.safe_dump(body, sort_keys=False, width=100)


def read_spread(path: Path = SPREAD_FILE) -> Spread:
    """The committed file."""
    return Spread.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
