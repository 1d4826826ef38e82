"""Planning memory margins per stack and method from the calibration's cross-validated error, and
the allocator reserve from its fit points.

ftopt's memory model errs; where it errs low, a plan that fits on paper runs out of memory. The
margin is how much a copy's memory per GPU is raised before the fit test so that it covers what the
model missed on sources it was not fitted on. The derivation (protocol: docs/calibration.md):

1. Every memory point of every source (fit and held-out; pre-registered sources never) is predicted
   leave-one-source-out (benchmarks/calibration/cv.py) on the stack as plans use it, without the
   point's stack overrides, and asks for a margin: how much that figure would have to grow to reach
   the published one (0 where it is at or above it).
2. A stack and method's bucket records two figures: the median cross-validated error, |ftopt /
   published - 1|, and what covering 95 % of its points would take (the nearest-rank 95th
   percentile of what they ask, shortfall only).
3. The margin is the 95 %-coverage figure as long as the pooled coverage figure is at most 25 %;
   beyond that, covering 95 % would price every plan for its worst points, so the median error
   applies and calibration.md reports the coverage that leaves. A bucket's own figure applies only
   when at least three independent sources measured the stack and method; a bucket with fewer
   sources takes the pooled one, over every memory point of every stack. The margin is rounded up
   to the next hundredth.
4. The caching allocator's reserve is the median of (reserved - allocated) / allocated over the fit
   points that publish both peaks.

The coverage calibration.md reports is judged one level further out: each source's points against
the margin the other sources' cross-validated errors give. The plan and quote state each copy's
margin with its basis ("cross-validated error of torchtune/lora, 4 sources" or "pooled
cross-validated error of all stacks, 9 sources"; the words are the catalogue's, the figures cross-validated).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

import yaml

from benchmarks.calibration import ROOT, Outcome, calibration_method, sources_of
from ftopt.model.stack import COVER_CAP, MIN_SOURCES, AllocatorReserve, MarginBucket, MemoryMargins

MARGINS_FILE = ROOT / "ftopt" / "catalogue" / "data" / "margins.yaml"
METHODS = ("full", "lora", "qlora")
#: Share of a bucket's held-out points the margin must cover (issue 28's target).
COVER = 0.95


def covering_error(asks: list[float], cover: float = COVER) -> float:
    """The smallest margin at or above `cover` of `asks` (nearest rank); 0 without any."""
    if not asks:
        return 0.0
    ordered = sorted(asks)
    return ordered[max(0, math.ceil(round(cover * len(ordered), 9)) - 1)]


def _ceil4(value: float) -> float:
    return math.ceil(round(value * 1e4, 6)) / 1e4


def median_error(rows: list[Outcome]) -> float:
    """The median |ftopt / published - 1| of the points (0 without any)."""
    errors = sorted(abs((o.ratio or 0.0) - 1) for o in rows)
    if not errors:
        return 0.0
    middle = len(errors) // 2
    return errors[middle] if len(errors) % 2 else (errors[middle - 1] + errors[middle]) / 2


def _bucket(stack: str, method: str, rows: list[Outcome]) -> MarginBucket:
    return MarginBucket(
        stack=stack,
        method=method,
        sources=tuple(sorted({o.source for o in rows})),
        points=tuple(o.id for o in rows),
        error=_ceil4(median_error(rows)),
        cover_95=_ceil4(covering_error([o.under or 0.0 for o in rows])),
    )


def memory_points(outcomes: list[Outcome]) -> list[Outcome]:
    """The matched memory points with a stack and method, fit and held-out (pass them
    cross-validated: benchmarks.calibration.cv.cross_validated)."""
    return [o for o in outcomes if o.kind == "memory" and o.ftopt is not None and o.stack and o.method]


def buckets(outcomes: list[Outcome]) -> tuple[MarginBucket, list[MarginBucket]]:
    """The pooled bucket and one per stack and calibrated method with memory points: a method that
    reads another's margin (`calibrated_as`: GPTQ LoRA reads QLoRA's) joins that method's bucket, so
    the points of every method a margin sizes are the ones that set it."""
    rows = memory_points(outcomes)
    groups: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for o in rows:
        groups[(str(o.stack), calibration_method(str(o.method)))].append(o)
    return _bucket("all", "all", rows), [_bucket(s, m, g) for (s, m), g in sorted(groups.items())]


def _round_up(value: float) -> float:
    return math.ceil(round(value * 100, 6)) / 100


def stack_ids(stacks_file: Path = MARGINS_FILE.parent / "stacks.yaml") -> list[str]:
    """Every stack of the catalogue, in its file's order."""
    return [s["id"] for s in yaml.safe_load(stacks_file.read_text(encoding="utf-8"))]


def covers_by_rule(pooled: MarginBucket) -> bool:
    """Whether margins cover 95 % of the held-out points (the pooled coverage figure is at most
    COVER_CAP) rather than the median error (the rule MemoryMargins.covering reads back)."""
    return MemoryMargins(margins={}, pooled=pooled).covering()


def rule_words(pooled: MarginBucket) -> str:
    """The rule in force, in the words calibration.md states it with."""
    if covers_by_rule(pooled):
        return (
            "the margin that puts the planned memory at or above 95 % of its cross-validated memory points "
            f"('to cover 95 %'; the pooled figure, {pooled.cover_95:.0%}, is within the {COVER_CAP:.0%} "
            "this rule is adopted at)"
        )
    return (
        "the median error of its cross-validated memory points (covering 95 % would take "
        f"{pooled.cover_95:.0%} pooled, beyond the {COVER_CAP:.0%} the coverage rule is adopted at)"
    )


def planned_error(bucket: MarginBucket, pooled: MarginBucket) -> float:
    """The figure of a bucket that margins are set from under the rule in force."""
    return bucket.planned(covers_by_rule(pooled))


def derive_margins(outcomes: list[Outcome], stacks: list[str]) -> dict[str, dict[str, float]]:
    """Margin per stack and method (see the module docstring)."""
    pooled, own = buckets(outcomes)
    found = {(b.stack, b.method): b for b in own if len(b.sources) >= MIN_SOURCES}

    def margin(stack: str, method: str) -> float:
        return planned_error(found.get((stack, method)) or pooled, pooled)

    return {stack: {m: _round_up(margin(stack, m)) for m in METHODS} for stack in stacks}


def allocator_reserve(outcomes: list[Outcome]) -> AllocatorReserve:
    """The median (reserved - allocated) / allocated over the fit points that publish both."""
    rows = [o for o in outcomes if o.split == "fit" and o.reserved is not None and o.kind == "memory"]
    if not rows:
        raise ValueError("no fit point publishes both the allocated and the reserved peak")
    shares = sorted((o.reserved or 0.0) / o.published - 1 for o in rows)
    middle = len(shares) // 2
    median = shares[middle] if len(shares) % 2 else (shares[middle - 1] + shares[middle]) / 2
    return AllocatorReserve(
        share=round(max(0.0, median), 3),
        sources=tuple(sorted({o.source for o in rows})),
        points=tuple(o.id for o in rows),
    )


def _address(text: str) -> str:
    """The first web address of a source's description."""
    match = re.search(r"https://\S+?(?=[,;) ]|$)", text)
    return match.group(0).rstrip(".") if match else text


def render_margins(outcomes: list[Outcome], planning: list[Outcome]) -> str:
    """margins.yaml: the margins ftopt plans with (from `planning`, the cross-validated points without
    overrides), how they were derived, the buckets they came from and the allocator reserve (from
    `outcomes`' fit points)."""
    margins = derive_margins(planning, stack_ids())
    pooled, own = buckets(planning)
    doc = (__doc__ or "").split("\n\n", 1)[1].strip()
    reserve = allocator_reserve(outcomes)
    sources = sources_of()
    cited = [f"#   {key}: {_address(sources[key])}" for key in reserve.sources]
    header = [
        "# Planning memory margins per stack and method: a copy's memory per GPU is multiplied by",
        "# (1 + margin) before the fit test, and the allocator reserve below is the share of allocated",
        "# memory the caching allocator is planned to hold back. A workload's sizing.memory_margin and",
        "# sizing.allocator_reserve override them (a margin below the measured one is noted in the plan).",
        "# Generated by `python -m benchmarks.calibration --write-margins` from",
        "# benchmarks/calibration/points*.yaml; do not edit by hand (tests/benchmarks/test_calibration.py",
        "# checks this file against the derivation).",
        "#",
        *[f"# {line}".rstrip() for line in doc.splitlines()],
        "#",
        "# The allocator reserve was chosen from these fit sources (benchmarks/calibration/points.yaml):",
        *cited,
        "",
    ]
    body = {
        "margins": margins,
        "pooled": pooled.model_dump(mode="json"),
        "buckets": [b.model_dump(mode="json") for b in own],
        "allocator_reserve": reserve.model_dump(mode="json"),
    }
    return "\n".join(header) + "\n" + yaml.safe_dump(body, sort_keys=False, width=100)


def read_margins(path: Path = MARGINS_FILE) -> dict[str, dict[str, float]]:
    """The margins block of the committed file."""
    return dict(yaml.safe_load(path.read_text(encoding="utf-8"))["margins"])
