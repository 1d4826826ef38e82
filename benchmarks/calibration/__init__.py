"""Calibration: ftopt's memory and speed figures against published measurements.

`python -m benchmarks.calibration` reads benchmarks/calibration/points.yaml (measurements with their
sources and configurations) and cards.yaml (cards that only serve calibration, never planned with),
recomputes ftopt's figure for every point it can express, and writes benchmarks/calibration.md and
benchmarks/calibration.json. The goals: memory within ±15 %, throughput within ±25 %.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import GB
from ftopt.model.sizing import profile_run, size_run
from ftopt.model.speed import estimate_speed, planning_host
from ftopt.model.workload import InlineModel, Offload, Optimizer, Run, SizingOptions, Strategy

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
POINTS = HERE / "points.yaml"
CARDS = HERE / "cards.yaml"
MARKDOWN = ROOT / "benchmarks" / "calibration.md"
JSON = ROOT / "benchmarks" / "calibration.json"
GOALS = {"memory": 0.15, "throughput": 0.25}
GIB = 2**30
#: Fields of a point's configuration that are not Run fields.
PLACEMENT = ("card", "gpus", "strategy", "offload", "stack_overrides", "accumulation")


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

    @property
    def ratio(self) -> float | None:
        """ftopt's figure over the published one."""
        return None if self.ftopt is None else self.ftopt / self.published

    @property
    def within_goal(self) -> bool | None:
        """Whether the ratio is within the goal of the point's kind."""
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1) <= GOALS[self.kind]


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
    point: dict[str, Any], catalogue: Catalogue, cards: dict[str, Gpu], models: dict[str, Architecture]
) -> float:
    """ftopt's figure for one expressible point, in the point's unit."""
    config = point["config"]
    run = _run(point["id"], config, models)
    profile = profile_run(run, catalogue)
    assert profile.stack is not None and catalogue.speed is not None
    if config.get("stack_overrides"):
        profile = type(profile)(
            run,
            profile.model_name,
            profile.arch,
            type(profile.stack).model_validate({**profile.stack.model_dump(), **config["stack_overrides"]}),
        )
    gpu = cards.get(config["card"]) or catalogue.gpu(config["card"])
    gpus = int(config["gpus"])
    strategy = Strategy(config.get("strategy", "single" if gpus == 1 else "fsdp"))
    offload = Offload(config.get("offload", "none"))
    optimizer = Optimizer(run.optimizer) if run.optimizer != "auto" else Optimizer.ADAMW_32BIT
    if point["kind"] == "memory":
        allocated = point["includes"] == "allocated"
        options = SizingOptions(cuda_context_gb=0, allocator_reserve=0) if allocated else SizingOptions()
        sizing = size_run(profile, gpu, gpus, strategy, optimizer, offload, options, peak_allocated=allocated)
        scale = GIB if point["unit"] == "GiB" else GB
        return sizing.total_gb * GB / scale
    sizing = size_run(profile, gpu, gpus, strategy, optimizer, offload, SizingOptions())
    host = planning_host(catalogue, gpus, catalogue.speed)
    accumulation = int(config.get("accumulation", 1))
    speed = estimate_speed(
        profile, sizing, gpu, profile.stack, catalogue.speed, host, accumulation=accumulation
    )
    return speed.tokens_per_s / gpus if point["unit"] == "tokens/s/gpu" else speed.tokens_per_s


def run_calibration(points_file: Path = POINTS) -> list[Outcome]:
    """Every point of `points_file`, recomputed with the packaged catalogue and calibration cards."""
    data = yaml.safe_load(points_file.read_text(encoding="utf-8"))
    models = {name: Architecture.model_validate(arch) for name, arch in data["models"].items()}
    catalogue, cards = load_catalogue(), calibration_cards()
    outcomes = []
    for point in data["points"]:
        reason = point.get("reason")
        value = None if reason else recompute(point, catalogue, cards, models)
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
            )
        )
    return outcomes


def _figure(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def render_markdown(outcomes: list[Outcome], sources: dict[str, str]) -> str:
    """The calibration table, the summary per kind, the misses and the points ftopt cannot express."""
    lines = [
        "# Calibration against published measurements",
        "",
        "Written by `python -m benchmarks.calibration` from `benchmarks/calibration/points.yaml`; do not",
        "edit by hand. Ratio = ftopt / published. Goals: memory within ±15 %, throughput within ±25 %, on",
        "the stack that was measured. The stacks' MFU figures were chosen from some of these same",
        "measurements (see `ftopt/catalogue/data/stacks.yaml`), so the throughput rows show fit rather",
        "than prediction.",
        "",
    ]
    for kind in ("memory", "throughput"):
        rows = [o for o in outcomes if o.kind == kind and o.ftopt is not None]
        within = sum(1 for o in rows if o.within_goal)
        lines += [f"## {kind.capitalize()}: {within} of {len(rows)} within ±{GOALS[kind]:.0%}", ""]
        lines += [
            "| point | source | published | ftopt | ratio | within goal? |",
            "|---|---|---:|---:|---:|---|",
        ]
        for o in rows:
            verdict = "yes" if o.within_goal else ("no (known miss)" if o.known_miss else "no")
            assert o.ftopt is not None and o.ratio is not None
            lines.append(
                f"| {o.id} | {o.source} | {_figure(o.published)} {o.unit} | {_figure(o.ftopt)} | "
                f"{o.ratio:.2f} | {verdict} |"
            )
        lines.append("")
    misses = [o for o in outcomes if o.known_miss]
    if misses:
        lines += ["## Known misses", ""]
        lines += [f"- **{o.id}**: {o.known_miss}" for o in misses]
        lines.append("")
    skipped = [o for o in outcomes if o.reason]
    lines += ["## Points ftopt cannot express", ""]
    lines += [f"- **{o.id}** ({o.kind}, {_figure(o.published)} {o.unit}): {o.reason}" for o in skipped]
    lines += ["", "## Sources", ""]
    lines += [f"- **{key}**: {text}" for key, text in sources.items()]
    return "\n".join(lines) + "\n"


def render_json(outcomes: list[Outcome]) -> str:
    """The same outcomes as JSON records."""
    records = [
        {
            "id": o.id,
            "kind": o.kind,
            "source": o.source,
            "published": o.published,
            "unit": o.unit,
            "ftopt": None if o.ftopt is None else round(o.ftopt, 2),
            "ratio": None if o.ratio is None else round(o.ratio, 3),
            "within_goal": o.within_goal,
            "goal": GOALS[o.kind],
            "known_miss": o.known_miss,
            "reason": o.reason,
        }
        for o in outcomes
    ]
    return json.dumps({"points": records}, indent=2) + "\n"


def sources_of(points_file: Path = POINTS) -> dict[str, str]:
    """The sources block of the points file."""
    data: dict[str, Any] = yaml.safe_load(points_file.read_text(encoding="utf-8"))
    return dict(data["sources"])


def main() -> None:
    """Recompute every point and write calibration.md and calibration.json."""
    outcomes = run_calibration()
    MARKDOWN.write_text(render_markdown(outcomes, sources_of()), encoding="utf-8")
    JSON.write_text(render_json(outcomes), encoding="utf-8")
    for kind in ("memory", "throughput"):
        rows = [o for o in outcomes if o.kind == kind and o.ftopt is not None]
        print(f"{kind}: {sum(1 for o in rows if o.within_goal)} of {len(rows)} within goal")
