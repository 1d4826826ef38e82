"""Calibration: ftopt's memory and speed figures against published measurements.

`python -m benchmarks.calibration` reads every benchmarks/calibration/points*.yaml (measurements with
their sources and configurations; points-amd.yaml and the like add to points.yaml) and cards.yaml
(cards that only serve calibration, never planned with), recomputes ftopt's figure for every point
it can express, and writes benchmarks/calibration.md and benchmarks/calibration.json. The goals:
memory within ±15 %, throughput within ±25 %; the targets on held-out points: memory within goal
on 80 % of them, throughput on 85 %, and the planned memory (with the margin of the point's stack
and method) at least the measurement on 95 %.

Each point is *fit* (its source was used to choose a constant of the stacks) or *held-out* (never
used for that); the report keeps the two apart, per kind and per stack, because only the held-out
error says how ftopt will do on a workload nobody calibrated it on. `--write-margins` derives the
planning memory margins from the held-out memory points and the allocator reserve from the fit
points that publish both peaks (benchmarks.calibration.margins).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from ftopt.catalogue import load_catalogue
from ftopt.catalogue.loader import _load
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import GB
from ftopt.model.sizing import CopySetup, profile_run, size_run
from ftopt.model.speed import SpeedContext, at_power, estimate_speed, planning_host
from ftopt.model.stack import MIN_SOURCES
from ftopt.model.workload import InlineModel, Offload, Optimizer, Run, SizingOptions, Strategy

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
POINTS = HERE / "points.yaml"
CARDS = HERE / "cards.yaml"
CHANGES = HERE / "changes.yaml"
MARKDOWN = ROOT / "benchmarks" / "calibration.md"
JSON = ROOT / "benchmarks" / "calibration.json"
GOALS = {"memory": 0.15, "throughput": 0.25}
#: Share of the held-out points of each kind that must be within goal (issue 28's targets).
TARGET_SHARE = {"memory": 0.8, "throughput": 0.85}
#: Share of the held-out memory points the planned memory (with its margin) must cover.
COVER_TARGET = 0.95
SPLITS = ("fit", "held-out")
KINDS = ("memory", "throughput")
GIB = 2**30
#: Fields of a point's configuration that are not Run fields.
PLACEMENT = ("card", "gpus", "strategy", "offload", "stack_overrides", "accumulation", "power_w")


@dataclass(frozen=True)
class Outcome:
    """One point, recomputed (or the reason it cannot be)."""

    id: str
    kind: str
    published: float
    unit: str
    source: str
    ftopt: float | None
    reason: str | None
    known_miss: str | None
    split: str = "fit"
    stack: str | None = None
    method: str | None = None
    reserved: float | None = None  # the peak the caching allocator reserved, where published
    overridden: bool = False  # the point's configuration changes the stack (stack_overrides)
    # throughput of a method with its own dequantisation figure (methods.yaml), recomputed with
    # bitsandbytes' figure instead: what ftopt would predict had the figure's source been left out
    ftopt_borrowed: float | None = None

    @property
    def ratio(self) -> float | None:
        """ftopt's figure over the published one."""
        return None if self.ftopt is None else self.ftopt / self.published

    @property
    def within_goal(self) -> bool | None:
        """Whether the ratio is within the goal of the point's kind."""
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1) <= GOALS[self.kind]

    @property
    def under(self) -> float | None:
        """How much ftopt's figure would have to grow to reach the published one (0 when it does):
        the margin this point asks for."""
        ratio = self.ratio
        return None if ratio is None else max(0.0, 1 / ratio - 1)


def calibration_cards() -> dict[str, Gpu]:
    """The calibration-only cards, validated as catalogue cards."""
    cards = TypeAdapter(list[Gpu]).validate_python(yaml.safe_load(CARDS.read_text(encoding="utf-8")))
    return {card.id: card for card in cards}


def _run(point_id: str, config: dict[str, Any], models: dict[str, Architecture]) -> Run:
    fields = {k: v for k, v in config.items() if k not in PLACEMENT}
    model = fields.pop("model")
    fields["model"] = InlineModel(name=model, architecture=models[model]) if model in models else model
    return Run.model_validate({"name": point_id, **fields})


def recompute(
    point: dict[str, Any],
    catalogue: Catalogue,
    cards: dict[str, Gpu],
    models: dict[str, Architecture],
    overrides: bool = True,
) -> float:
    """ftopt's figure for one expressible point, in the point's unit; with `overrides` False, on the
    stack as ftopt plans it today (a plan has no per-point override, so that figure sizes plans)."""
    config = point["config"]
    run = _run(point["id"], config, models)
    profile = profile_run(run, catalogue)
    assert profile.stack is not None and catalogue.speed is not None
    if overrides and config.get("stack_overrides"):
        # replace, not rebuild: the profile keeps its margin and fitted allocator reserve (until
        # 2026-12-05 a rebuilt profile fell back to the legacy reserve on every overridden point)
        stack = type(profile.stack).model_validate(
            {**profile.stack.model_dump(), **config["stack_overrides"]}
        )
        profile = replace(profile, stack=stack)
    gpu = cards.get(config["card"]) or catalogue.gpu(config["card"])
    gpus = int(config["gpus"])
    strategy = Strategy(config.get("strategy", "single" if gpus == 1 else "fsdp"))
    offload = Offload(config.get("offload", "none"))
    optimizer = Optimizer(run.optimizer) if run.optimizer != "auto" else Optimizer.ADAMW_32BIT
    if point["kind"] == "memory":
        allocated = point["includes"] == "allocated"
        options = SizingOptions(cuda_context_gb=0, allocator_reserve=0) if allocated else SizingOptions()
        if point["includes"] == "reserved":  # the caching allocator's peak: no CUDA context
            options = SizingOptions(cuda_context_gb=0)
        sizing = size_run(
            CopySetup(profile, gpu, gpus, strategy, optimizer, offload, options), peak_allocated=allocated
        )
        scale = GIB if point["unit"] == "GiB" else GB
        return sizing.total_gb * GB / scale
    setup = CopySetup(profile, gpu, gpus, strategy, optimizer, offload, SizingOptions())
    return _tokens_per_s(point, setup, catalogue)


def _tokens_per_s(point: dict[str, Any], setup: CopySetup, catalogue: Catalogue) -> float:
    """ftopt's speed for a throughput point, per GPU or per copy as the point's unit says. A point's
    `power_w` (the cards ran below full power, e.g. torchtitan's H100s at 500 W) slows the compute
    part by ftopt's power relation (speed.yaml power_exponent), as a plan's card power setting does."""
    config, gpu, gpus = point["config"], setup.gpu, setup.gpus
    assert setup.profile.stack is not None and catalogue.speed is not None
    sizing = size_run(setup)
    host = planning_host(catalogue, gpus, catalogue.speed)
    context = SpeedContext(setup.profile.stack, catalogue.speed, host)
    speed = estimate_speed(
        setup.profile, sizing, gpu, context, accumulation=int(config.get("accumulation", 1))
    )
    if config.get("power_w"):
        speed = at_power(speed, gpu, float(config["power_w"]), catalogue.speed)
    return speed.tokens_per_s / gpus if point["unit"] == "tokens/s/gpu" else speed.tokens_per_s


def points_files() -> list[Path]:
    """Every points file of the folder: points.yaml first, then the others (points-amd.yaml...)."""
    return [POINTS, *sorted(p for p in HERE.glob("points*.yaml") if p != POINTS)]


def read_points(files: list[Path] | None = None) -> dict[str, Any]:
    """The models, sources and points of every points file, merged (a model or source defined twice
    must be the same; a point id must be new)."""
    merged: dict[str, Any] = {"models": {}, "sources": {}, "points": [], "disclosures": []}
    for path in files or points_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        merged["disclosures"] += data.get("disclosures") or []
        for block in ("models", "sources"):
            for key, value in (data.get(block) or {}).items():
                if merged[block].get(key, value) != value:
                    raise ValueError(f"{path}: {block[:-1]} {key} differs from an earlier file's")
                merged[block][key] = value
        seen = {p["id"] for p in merged["points"]}
        for point in data.get("points") or []:
            if point["id"] in seen:
                raise ValueError(f"{path}: point {point['id']} is defined twice")
            merged["points"].append(point)
    return merged


def run_calibration(points_file: Path | None = None, overrides: bool = True) -> list[Outcome]:
    """Every point of `points_file` (default: every points*.yaml), recomputed with the packaged
    catalogue and calibration cards; `overrides` False drops every point's stack_overrides."""
    data = read_points([points_file] if points_file else None)
    models = {name: Architecture.model_validate(arch) for name, arch in data["models"].items()}
    catalogue, cards = load_catalogue(), calibration_cards()
    bitsandbytes = _bitsandbytes_dequant(catalogue)
    outcomes = []
    for point in data["points"]:
        if point.get("split") not in SPLITS:
            raise ValueError(f"point {point['id']}: split must be one of {', '.join(SPLITS)}")
        reason = point.get("reason")
        value = None if reason else recompute(point, catalogue, cards, models, overrides)
        config = point.get("config", {})
        borrowed = None
        if value is not None and point["kind"] == "throughput" and _own_dequant(catalogue, config):
            borrowed = recompute(point, bitsandbytes, cards, models, overrides)
        outcomes.append(
            Outcome(
                id=point["id"],
                kind=point["kind"],
                published=float(point["published"]),
                unit=point["unit"],
                source=point["source"],
                ftopt=value,
                reason=reason,
                known_miss=point.get("known_miss"),
                split=point["split"],
                stack=config.get("stack") or point.get("stack"),
                method=config.get("method") or point.get("method"),
                reserved=float(point["reserved"]) if point.get("reserved") is not None else None,
                overridden=bool(config.get("stack_overrides")),
                ftopt_borrowed=borrowed,
            )
        )
    return outcomes


def _own_dequant(catalogue: Catalogue, config: dict[str, Any]) -> bool:
    """Whether the point's method carries a dequantisation figure of its own (GPTQ LoRA's)."""
    method = config.get("method")
    known = method in catalogue.methods.ids
    return known and catalogue.methods.method(str(method)).dequant_bytes_per_param is not None


def _bitsandbytes_dequant(catalogue: Catalogue) -> Catalogue:
    """The catalogue with every method's own dequantisation figure dropped (speed.yaml's applies)."""
    methods = tuple(m.model_copy(update={"dequant_bytes_per_param": None}) for m in catalogue.methods.methods)
    return catalogue.model_copy(update={"methods": catalogue.methods.model_copy(update={"methods": methods})})


@dataclass(frozen=True)
class Summary:
    """One group of matched points (a kind, a split and a stack, or all stacks): how many are within
    goal, and the median and worst error."""

    kind: str
    split: str
    stack: str  # "all" for every stack together
    points: int
    within: int
    median_error: float  # median |ratio - 1|
    worst_under: float  # the largest under-prediction (see Outcome.under)

    @property
    def share(self) -> float:
        """Share of the group within goal."""
        return self.within / self.points if self.points else 0.0


def _summary(kind: str, split: str, stack: str, rows: list[Outcome]) -> Summary:
    errors = sorted(abs((o.ratio or 0.0) - 1) for o in rows)
    middle = len(errors) // 2
    median = (
        (errors[middle] if len(errors) % 2 else (errors[middle - 1] + errors[middle]) / 2) if errors else 0.0
    )
    return Summary(
        kind=kind,
        split=split,
        stack=stack,
        points=len(rows),
        within=sum(1 for o in rows if o.within_goal),
        median_error=median,
        worst_under=max((o.under or 0.0 for o in rows), default=0.0),
    )


def summarise(outcomes: list[Outcome]) -> list[Summary]:
    """Fit and held-out apart, per kind, over all stacks and then per stack."""
    matched = [o for o in outcomes if o.ftopt is not None]
    summaries = []
    for kind in KINDS:
        for split in SPLITS:
            rows = [o for o in matched if o.kind == kind and o.split == split]
            summaries.append(_summary(kind, split, "all", rows))
            for stack in sorted({o.stack or "" for o in rows}):
                summaries.append(_summary(kind, split, stack, [o for o in rows if (o.stack or "") == stack]))
    return summaries


def held_out_meets_target(outcomes: list[Outcome], kind: str) -> bool:
    """Whether at least TARGET_SHARE[kind] of the held-out points of `kind` are within goal."""
    overall = next(s for s in summarise(outcomes) if (s.kind, s.split, s.stack) == (kind, "held-out", "all"))
    return overall.points > 0 and overall.share >= TARGET_SHARE[kind]


def planning_outcomes(outcomes: list[Outcome] | None = None) -> list[Outcome]:
    """The figures margins, spread and bands are derived from: every point on the stack as plans use
    it (no stack overrides), predicted by constants fitted without its source (cv.py). `outcomes`,
    when given, must be run_calibration(overrides=False)'s."""
    from benchmarks.calibration.cv import cross_validated

    return cross_validated(outcomes if outcomes is not None else run_calibration(overrides=False))


def calibration_method(method: str) -> str:
    """The method whose margin a point's method plans with: its own, or the one its registry entry is
    calibrated as (GaLore and full with 8-bit Adam read full's)."""
    from ftopt.catalogue import load_catalogue

    methods = load_catalogue().methods
    return methods.method(method).calibration if method in methods.ids else method


def planned_covers(planning: list[Outcome]) -> list[tuple[Outcome, float, bool]]:
    """Each memory point (cross-validated, no overrides) with the margin its stack and method would
    plan with had its source never been seen (margins derived from the other sources' points) and
    whether its figure raised by that margin is at least the published one."""
    from benchmarks.calibration.margins import derive_margins, memory_points

    rows = memory_points(planning)
    out = []
    for source in sorted({o.source for o in rows}):
        others = [o for o in rows if o.source != source]
        stacks = sorted({str(o.stack) for o in rows})
        margins = derive_margins(others, stacks)
        for o in (o for o in rows if o.source == source):
            margin = margins[str(o.stack)][calibration_method(str(o.method))]
            assert o.ftopt is not None
            out.append((o, margin, o.ftopt * (1 + margin) >= o.published * (1 - 1e-9)))
    return out


def spread_covers(planning: list[Outcome]) -> list[tuple[Outcome, float, bool]]:
    """Each throughput point (cross-validated, no overrides) with the P90 factor of its stack derived
    from the other sources' points, and whether that factor covers it (ratio at most P90: the real
    hours at most the P90 hours)."""
    from benchmarks.calibration.spread import derive_spread, throughput_points

    rows = throughput_points(planning)
    out = []
    for source in sorted({o.source for o in rows}):
        others = [o for o in rows if o.source != source]
        spread = derive_spread(others, sorted({str(o.stack) for o in rows}))
        for o in (o for o in rows if o.source == source):
            p90 = spread.of(str(o.stack)).p90
            out.append((o, p90, (o.ratio or 0.0) <= p90 + 1e-9))
    return out


def _figure(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _cell(s: Summary | None) -> str:
    if s is None or not s.points:
        return "— | — | — | —"
    return f"{s.within} of {s.points} | {s.share:.0%} | {s.median_error:.0%} | {s.worst_under:.0%}"


def _beside_lines(outcomes: list[Outcome]) -> list[str]:
    """Per kind and stack: the fit points' error beside the held-out points'."""
    groups = {(s.kind, s.split, s.stack): s for s in summarise(outcomes)}
    lines = [
        "| kind | stack | fit: within goal | share | median error | worst under | "
        "held out: within goal | share | median error | worst under |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        stacks = sorted({st for (k, _, st) in groups if k == kind and st != "all"})
        for stack in ["all", *stacks]:
            fit, held = groups.get((kind, "fit", stack)), groups.get((kind, "held-out", stack))
            lines.append(f"| {kind} | {stack} | {_cell(fit)} | {_cell(held)} |")
    return lines


def _share_cell(rows: list[Outcome], kind: str) -> str:
    """'within of points (share), median error' of matched rows of one kind."""
    rows = [o for o in rows if o.kind == kind and o.ftopt is not None]
    if not rows:
        return "—"
    within = sum(1 for o in rows if o.within_goal)
    s = _summary(kind, "", "", rows)
    return f"{within} of {len(rows)} ({within / len(rows):.0%}), median {s.median_error:.0%}"


def _side_by_side(outcomes: list[Outcome], plain: list[Outcome], planning: list[Outcome]) -> list[str]:
    """Fit, held-out (with and without the per-point stack overrides), cross-validated and
    pre-registered figures in one table: within goal, of how many, and the median error."""
    from benchmarks.calibration.preregistered import comparison_cells

    def split(rows: list[Outcome], name: str) -> list[Outcome]:
        return [o for o in rows if o.split == name]

    lines = [
        "| kind | fit | held out, with overrides | held out, without overrides (sizes plans) | "
        "cross-validated, every source, without overrides | pre-registered (first comparison) |",
        "|---|---|---|---|---|---|",
    ]
    pre = comparison_cells()
    here = {o.source for o in outcomes}  # the log also moves RL sources (rl-points.yaml)
    moved = {s for c in read_changes() for s in c.get("moved_to_fit") or []} & here

    def formerly(rows: list[Outcome]) -> list[Outcome]:  # held out before the protocol moved them
        return [o for o in rows if o.split == "held-out" or o.source in moved]

    for kind in KINDS:
        lines.append(
            f"| {kind} | {_share_cell(split(outcomes, 'fit'), kind)} | "
            f"{_share_cell(split(outcomes, 'held-out'), kind)} | "
            f"{_share_cell(split(plain, 'held-out'), kind)} | "
            f"{_share_cell(planning, kind)} | {pre.get(kind, '—')} |"
        )
    lines += [
        "",
        "The sources held out before the protocol moved the ones tuned on to fit "
        f"({', '.join(sorted(moved))} and today's held-out ones):",
        "",
        "| kind | with the per-point stack overrides | without them (the stack as plans use it) |",
        "|---|---|---|",
    ]
    for kind in KINDS:
        lines.append(
            f"| {kind} | {_share_cell(formerly(outcomes), kind)} | {_share_cell(formerly(plain), kind)} |"
        )
    return lines


def _coverage_lines(planning: list[Outcome]) -> list[str]:
    """Cross-validated coverage of the planned memory (per stack and method) and of the P90 hours
    (per stack): each source judged by margins or spread derived without it."""
    from benchmarks.calibration.cv import Coverage

    def table(rows: list[tuple[Outcome, float, bool]], key: Any) -> list[Coverage]:
        groups: dict[str, list[tuple[Outcome, bool]]] = {}
        for o, _, ok in rows:
            groups.setdefault("all", []).append((o, ok))
            groups.setdefault(key(o), []).append((o, ok))
        return [
            Coverage(k, len(g), sum(1 for _, ok in g if ok), len({o.source for o, _ in g}))
            for k, g in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0]))
        ]

    memory = table(planned_covers(planning), lambda o: f"{o.stack}/{o.method}")
    hours = table(spread_covers(planning), lambda o: str(o.stack))
    lines = [
        "## Cross-validated coverage",
        "",
        "Each source's points judged by the margin (memory) or P90 factor (hours) derived from every",
        "other source's cross-validated points, on the stack as plans use it (no per-point overrides).",
        f"Targets: planned memory at least the measurement on {COVER_TARGET:.0%}; P90 hours at least the",
        "real hours on 88 %.",
        "",
        "| figure | stack/method | points | sources | covered | share |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| memory × (1 + margin) | {c.key} | {c.points} | {c.sources} | {c.covered} | {c.share:.0%} |"
        for c in memory
    ]
    lines += [
        f"| hours at P90 | {c.key} | {c.points} | {c.sources} | {c.covered} | {c.share:.0%} |" for c in hours
    ]
    return [*lines, ""]


def _verdicts(outcomes: list[Outcome], planning: list[Outcome]) -> list[str]:
    lines = []
    for kind in KINDS:
        overall = next(
            s for s in summarise(outcomes) if (s.kind, s.split, s.stack) == (kind, "held-out", "all")
        )
        verdict = "met" if held_out_meets_target(outcomes, kind) else "not met"
        lines.append(
            f"- Held out, {kind}: {overall.within} of {overall.points} ({overall.share:.0%}) within "
            f"±{GOALS[kind]:.0%}; target {TARGET_SHARE[kind]:.0%}: {verdict}."
        )
    covers = planned_covers(planning)
    covered = sum(1 for _, _, ok in covers if ok)
    share = covered / len(covers) if covers else 0.0
    verdict = "met" if covers and share >= COVER_TARGET else "not met"
    lines.append(
        "- Cross-validated, memory ftopt plans with (× (1 + margin) derived without the point's source) "
        f"at least the measurement: {covered} of {len(covers)} ({share:.1%}); target {COVER_TARGET:.0%}: "
        f"{verdict}."
    )
    hours = spread_covers(planning)
    held = sum(1 for _, _, ok in hours if ok)
    share = held / len(hours) if hours else 0.0
    lines.append(
        f"- Cross-validated, P90 hours at least the real hours: {held} of {len(hours)} ({share:.1%}); "
        f"target 88%: {'met' if hours and share >= 0.88 else 'not met'}."
    )
    return lines


def _share(hit: int, n: int) -> str:
    return f"{hit} of {n} ({hit / n:.1%})" if n else "—"


def _within(rows: list[Outcome], kind: str) -> str:
    rows = [o for o in rows if o.kind == kind and o.ftopt is not None]
    return _share(sum(1 for o in rows if o.within_goal), len(rows))


def _median(rows: list[Outcome], kind: str) -> str:
    rows = [o for o in rows if o.kind == kind and o.ftopt is not None]
    return f"{_summary(kind, '', '', rows).median_error:.0%}" if rows else "—"


def _covered(rows: list[tuple[Outcome, float, bool]], split: str | None) -> str:
    picked = [ok for o, _, ok in rows if split is None or o.split == split]
    return _share(sum(picked), len(picked))


def _targets_lines(plain: list[Outcome], planning: list[Outcome]) -> list[str]:
    """Issue 37's done-when targets, each judged on fit, held-out and cross-validated points (on the
    stack as plans use it) and on the pre-registered sources, first and with today's model."""
    from benchmarks.calibration.preregistered import comparison

    first, after = comparison(), comparison(after=True)

    def pre(table: dict[str, dict[str, int]], kind: str, key: str) -> str:
        row = table.get(kind)
        if row is None:
            return "—"
        return f"{row['median_percent']}%" if key == "median" else _share(row[key], row["points"])

    def split(name: str) -> list[Outcome]:
        return [o for o in plain if o.split == name]

    memory, hours = planned_covers(planning), spread_covers(planning)
    rows = [
        ("memory within ±15 % on ≥ 80 %",
         *(_within(r, "memory") for r in (split("fit"), split("held-out"), planning)),
         pre(first, "memory", "within"), pre(after, "memory", "within")),
        ("throughput within ±25 % on ≥ 85 %",
         *(_within(r, "throughput") for r in (split("fit"), split("held-out"), planning)),
         pre(first, "throughput", "within"), pre(after, "throughput", "within")),
        ("planned memory ≥ measurement on ≥ 95 %", _covered(memory, "fit"), _covered(memory, "held-out"),
         _covered(memory, None), pre(first, "memory", "covered"), pre(after, "memory", "covered")),
        ("P90 hours ≥ real hours on ≥ 88 %", _covered(hours, "fit"), _covered(hours, "held-out"),
         _covered(hours, None), pre(first, "throughput", "covered"), pre(after, "throughput", "covered")),
        ("median throughput error ≤ 10 % (held out)",
         *(_median(r, "throughput") for r in (split("fit"), split("held-out"), planning)),
         pre(first, "throughput", "median"), pre(after, "throughput", "median")),
    ]  # fmt: skip
    return [
        "## Issue 37's targets, side by side",
        "",
        "On the stack as plans use it (no per-point overrides). Planned memory and P90 hours are judged",
        "with the margin or factor derived without the point's source (cross-validated) in the fit,",
        "held-out and cross-validated columns; the pre-registered columns with the committed predictions",
        "(first comparison) and with today's model (not blind: changes were made after the",
        "measurements were read, benchmarks/calibration/preregistered.md).",
        "",
        "| target | fit | held out | cross-validated | pre-registered, first | "
        "pre-registered, today's model |",
        "|---|---|---|---|---|---|",
        *(f"| {' | '.join(row)} |" for row in rows),
        "",
    ]


def _summary_lines(outcomes: list[Outcome], plain: list[Outcome], planning: list[Outcome]) -> list[str]:
    matched = [o for o in outcomes if o.ftopt is not None]
    sources = {o.source for o in outcomes}
    lines = [
        "## Summary: fit, held out, cross-validated and pre-registered",
        "",
        f"{len(outcomes)} points from {len(sources)} sources; ftopt expresses {len(matched)} of them "
        f"({sum(1 for o in matched if o.kind == 'memory')} memory, "
        f"{sum(1 for o in matched if o.kind == 'throughput')} throughput).",
        "Fit points come from sources a constant was chosen from, or that were looked at while a",
        "constant was changed (docs/calibration.md: such a source moves to fit); held-out points come",
        "from sources never used to choose or tune anything. Cross-validated: every source (fit and",
        "held out) predicted by constants fitted without it. Pre-registered: sources whose predictions",
        "were committed before their measurements (benchmarks/calibration/preregistered/). Within goal:",
        "memory ±15 %, throughput ±25 %; error = |ftopt / published - 1|.",
        "",
        *_side_by_side(outcomes, plain, planning),
        "",
        "Per stack, with the per-point stack overrides (the stack as measured):",
        "",
        *_beside_lines(outcomes),
        "",
        *_verdicts(outcomes, planning),
        "",
        *_targets_lines(plain, planning),
    ]
    return [*lines, ""]


def _point_table(outcomes: list[Outcome], kind: str) -> list[str]:
    rows = [o for o in outcomes if o.kind == kind and o.ftopt is not None]
    within = sum(1 for o in rows if o.within_goal)
    lines = [f"## {kind.capitalize()}: {within} of {len(rows)} within ±{GOALS[kind]:.0%}", ""]
    lines += [
        "| point | split | source | stack | published | ftopt | ratio | within goal? |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for o in rows:
        verdict = "yes" if o.within_goal else ("no (known miss)" if o.known_miss else "no")
        assert o.ftopt is not None and o.ratio is not None
        lines.append(
            f"| {o.id} | {o.split} | {o.source} | {o.stack} | {_figure(o.published)} {o.unit} | "
            f"{_figure(o.ftopt)} | {o.ratio:.2f} | {verdict} |"
        )
    return [*lines, ""]


def _margin_lines(outcomes: list[Outcome], planning: list[Outcome]) -> list[str]:
    """The planning margins' buckets (cross-validated, no overrides) and every point the planned
    figure, with the margin derived without its source, misses."""
    from benchmarks.calibration.margins import MIN_SOURCES, allocator_reserve, buckets, rule_words

    pooled, own = buckets(planning)
    reserve = allocator_reserve(outcomes)
    rule = rule_words(pooled)
    lines = [
        "## Planning margins from the cross-validated error",
        "",
        f"A stack and method's margin is {rule}, its own when at least {MIN_SOURCES} sources measured it,",
        "otherwise the pooled figure of every stack's points (benchmarks/calibration/margins.py;",
        "ftopt/catalogue/data/margins.yaml).",
        "ftopt plans every copy with these margins and the fitted allocator reserve below, unless the",
        "workload's sizing.memory_margin or sizing.allocator_reserve sets its own (and a margin below",
        "the measured one is noted in every format of the plan).",
        "",
        "| stack | method | points | sources | median error | to cover 95 % | plans with |",
        "|---|---|---:|---:|---:|---:|---|",
        f"| all | all | {len(pooled.points)} | {len(pooled.sources)} | {pooled.error:.0%} | "
        f"{pooled.cover_95:.0%} | pooled |",
    ]
    for b in own:
        own_enough = len(b.sources) >= MIN_SOURCES
        lines.append(
            f"| {b.stack} | {b.method} | {len(b.points)} | {len(b.sources)} | {b.error:.0%} | "
            f"{b.cover_95:.0%} | {'its own' if own_enough else 'pooled'} |"
        )
    missed = [(o, m) for o, m, ok in planned_covers(planning) if not ok]
    lines += [
        "",
        "Points whose planned memory, ftopt × (1 + the margin derived without their source), stays below",
        "the measurement (cross-validated, no overrides):",
        "",
    ]
    lines += [
        f"- **{o.id}** ({o.stack}/{o.method}): ftopt {_figure(o.ftopt or 0.0)} × {1 + m:.2f} < "
        f"{_figure(o.published)} {o.unit}" + (f"; {o.known_miss}" if o.known_miss else "")
        for o, m in missed
    ] or ["- none"]
    lines += [
        "",
        f"Allocator reserve (reserved − allocated, share of allocated): median {reserve.share:.1%} over "
        f"{len(reserve.points)} fit points from {', '.join(reserve.sources)}.",
        "",
    ]
    return lines


def _spread_lines(planning: list[Outcome]) -> list[str]:
    """The speed model's P50/P90 hours factors: each stack's cross-validated throughput ratios and
    what it plans with (benchmarks.calibration.spread; ftopt/catalogue/data/spread.yaml)."""
    from benchmarks.calibration.spread import factors, throughput_points

    rows = throughput_points(planning)
    pooled = factors(rows, "pooled")
    lines = [
        "## Hours at P50 and P90 from the cross-validated throughput",
        "",
        "A copy's hours at P50 (P90) are the speed model's hours × the median (nearest-rank 90th",
        "percentile) of the cross-validated ratios ftopt / published tokens/s of its stack (no overrides),",
        "when at least three sources measured it; otherwise of every stack's points (spread.py;",
        "ftopt/catalogue/data/spread.yaml). Deadlines hold at the workload's `deadline_confidence`.",
        "",
        "| stack | points | sources | P50 | P90 | plans with |",
        "|---|---:|---:|---:|---:|---|",
        f"| all | {pooled.points} | {pooled.sources} | {pooled.p50:.2f} | {pooled.p90:.2f} | pooled |",
    ]
    for stack in sorted({str(o.stack) for o in rows}):
        own = factors([o for o in rows if str(o.stack) == stack], stack)
        enough = own.sources >= MIN_SOURCES
        lines.append(
            f"| {stack} | {own.points} | {own.sources} | {own.p50:.2f} | {own.p90:.2f} | "
            f"{'its own' if enough else 'pooled'} |"
        )
    return [*lines, ""]


def _excluded_lines(outcomes: list[Outcome]) -> list[str]:
    """Per source, kind and split: how many points carry a reason instead of a configuration, beside
    how many ftopt expresses, so that what leaves the denominators is counted where it leaves."""
    groups: dict[tuple[str, str, str], list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault((o.source, o.kind, o.split), []).append(o)
    lines = [
        "Excluded points leave the denominators above; per source:",
        "",
        "| source | kind | split | excluded | expressed |",
        "|---|---|---|---:|---:|",
    ]
    for (source, kind, split), rows in sorted(groups.items()):
        excluded = sum(1 for o in rows if o.reason)
        if excluded:
            lines.append(f"| {source} | {kind} | {split} | {excluded} | {len(rows) - excluded} |")
    return [*lines, ""]


def read_changes(path: Path = CHANGES) -> list[dict[str, Any]]:
    """The model and point changes made after the held-out results had been seen (changes.yaml)."""
    return list(yaml.safe_load(path.read_text(encoding="utf-8")) or [])


#: The structured fields of a change (issue 37's protocol), in the order calibration.md prints them.
CHANGE_FIELDS = (
    "constant",
    "before",
    "after",
    "points_seen",
    "fit_before",
    "fit_after",
    "held_out_before",
    "held_out_after",
    "moved_to_fit",
)


def _change_figures(change: dict[str, Any]) -> str:
    """The structured fields of a change, where it has them, as one parenthesis."""
    parts = [f"{f.replace('_', ' ')}: {change[f]}" for f in CHANGE_FIELDS if change.get(f) not in (None, [])]
    return f" ({'; '.join(parts)})" if parts else ""


def _change_lines(changes: list[dict[str, Any]]) -> list[str]:
    """The disclosure the calibration standard asks for: every constant touched since wave 4 began,
    what was in view, what it moved and what chose it."""
    lines = [
        "## Changes made after looking at held-out points",
        "",
        "Held-out points never choose a constant. Below is every constant touched since 2026-12-03",
        "(benchmarks/calibration/changes.yaml), each with the points in view when it was chosen: where",
        "a held-out source was among them, that source moved to fit, and where held-out misses had",
        "been seen the held-out figures above are not wholly blind to the change.",
        "",
    ]
    lines += [f"- **{c['date']}, {c['what']}**: {c['change']}" + _change_figures(c) for c in changes]
    lines += [f"- {note}" for note in read_points()["disclosures"]]  # the points files' own
    return [*lines, ""]


def render_markdown(
    outcomes: list[Outcome], sources: dict[str, str], plain: list[Outcome] | None = None
) -> str:
    """The summary (fit, held out, cross-validated, pre-registered), the tables per kind, the misses
    and the points ftopt cannot express. `plain`: the same points without stack overrides (default:
    recomputed)."""
    plain = plain if plain is not None else run_calibration(overrides=False)
    planning = planning_outcomes(plain)
    lines = [
        "# Calibration against published measurements",
        "",
        "Written by `python -m benchmarks.calibration` from `benchmarks/calibration/points*.yaml`; do",
        "not edit by hand. The protocol is docs/calibration.md. Ratio = ftopt / published. Goals: memory",
        "within ±15 %, throughput within ±25 %; targets on held-out points: memory within goal on at",
        "least 80 %, throughput on at least 85 %; planned memory (with the margin) at least the",
        "measurement on at least 95 % and P90 hours at least the real hours on 88 %, cross-validated.",
        "",
        *_summary_lines(outcomes, plain, planning),
        *_coverage_lines(planning),
        *_margin_lines(outcomes, planning),
        *_spread_lines(planning),
    ]
    for kind in KINDS:
        lines += _point_table(outcomes, kind)
    misses = [o for o in outcomes if o.known_miss]
    if misses:
        lines += ["## Known misses", ""]
        lines += [f"- **{o.id}** ({o.split}): {o.known_miss}" for o in misses]
        lines.append("")
    skipped = [o for o in outcomes if o.reason]
    lines += ["## Points ftopt cannot express", "", *_excluded_lines(outcomes)]
    lines += [
        f"- **{o.id}** ({o.kind}, {o.split}, {_figure(o.published)} {o.unit}): {o.reason}" for o in skipped
    ]
    lines += ["", *_change_lines(read_changes())]
    lines += ["## Sources", ""]
    lines += [f"- **{key}**: {text}" for key, text in sources.items()]
    return "\n".join(lines) + "\n"


def render_json(outcomes: list[Outcome], plain: list[Outcome] | None = None) -> str:
    """The same outcomes as JSON records (with each point's figure without overrides and
    cross-validated), with the summary per kind, split and stack."""
    plain = plain if plain is not None else run_calibration(overrides=False)
    cv = {o.id: o for o in planning_outcomes(plain)}
    records = [
        {
            "id": o.id,
            "kind": o.kind,
            "split": o.split,
            "source": o.source,
            "stack": o.stack,
            "method": o.method,
            "published": o.published,
            "unit": o.unit,
            "reserved": o.reserved,
            "ftopt": None if o.ftopt is None else round(o.ftopt, 2),
            "ratio": None if o.ratio is None else round(o.ratio, 3),
            "within_goal": o.within_goal,
            "goal": GOALS[o.kind],
            "known_miss": o.known_miss,
            "reason": o.reason,
            "overridden": o.overridden,
            "ftopt_without_overrides": None if p.ftopt is None else round(p.ftopt, 2),
            "ratio_without_overrides": None if p.ratio is None else round(p.ratio, 3),
            "ratio_cross_validated": None if c is None or c.ratio is None else round(c.ratio, 3),
        }
        for o, p in zip(outcomes, plain, strict=True)
        for c in [cv.get(o.id)]
    ]
    summary = [
        {
            "kind": s.kind,
            "split": s.split,
            "stack": s.stack,
            "points": s.points,
            "within_goal": s.within,
            "share": round(s.share, 3),
            "median_error": round(s.median_error, 3),
            "worst_under": round(s.worst_under, 3),
        }
        for s in summarise(outcomes)
        if s.points
    ]
    return json.dumps({"summary": summary, "points": records}, indent=2) + "\n"


def sources_of() -> dict[str, str]:
    """The sources of every points file."""
    return dict(read_points()["sources"])


def main(argv: list[str] | None = None) -> None:
    """Recompute every point and write calibration.md and calibration.json; with --write-margins,
    also derive the planning memory margins and write them to the catalogue's margins file."""
    args = sys.argv[1:] if argv is None else argv
    outcomes, plain = run_calibration(), run_calibration(overrides=False)
    if "--write-margins" in args:  # first: the device points are sized with the fitted reserve
        from benchmarks.calibration.margins import MARGINS_FILE, render_margins

        for _ in range(2):  # the margins again, from points sized with the reserve just written
            MARGINS_FILE.write_text(render_margins(outcomes, planning_outcomes(plain)), encoding="utf-8")
            _load.cache_clear()
            outcomes, plain = run_calibration(), run_calibration(overrides=False)
        print(f"wrote {MARGINS_FILE.relative_to(ROOT)}")
        from benchmarks.calibration.spread import SPREAD_FILE, render_spread

        SPREAD_FILE.write_text(render_spread(planning_outcomes(plain)), encoding="utf-8")
        print(f"wrote {SPREAD_FILE.relative_to(ROOT)}")
    from benchmarks.calibration import preregistered

    preregistered.MARKDOWN.write_text(preregistered.render_markdown(), encoding="utf-8")
    MARKDOWN.write_text(render_markdown(outcomes, sources_of(), plain), encoding="utf-8")
    JSON.write_text(render_json(outcomes, plain), encoding="utf-8")
    for s in summarise(outcomes):
        if s.stack == "all":
            print(f"{s.kind} {s.split}: {s.within} of {s.points} within goal ({s.share:.0%})")
