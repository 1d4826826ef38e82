"""Calibration of the preference/RL model: GPU counts and generation share against published runs.

`python -m benchmarks.calibration.rl` reads benchmarks/calibration/rl-points.yaml (verl's minimum
configurations, TRL's colocated-versus-server runs, OpenRLHF's hybrid-engine example), recomputes
ftopt's figure for each point it can express, and writes benchmarks/calibration-rl.md and
calibration-rl.json. Points are fit or held-out by source: only the fit points chose a constant of
the rollout model (decode_step_overhead_ms, per engine: a point counts for the engine its run
names), the held-out ones judge it.

Goals: `min_gpus`, ftopt's fewest GPUs at most the published count (a sizing may not ask for more
than a run was shown to need); `generation_share` and `generation_seconds`, within ±25 % of the
published share of a step spent generating, or of its generation time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from benchmarks.calibration import calibration_cards
from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture
from ftopt.model.fabric import MULTI_NODE_STRATEGIES, Network, fabric_nic, node_network
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.rl import multinode_any_sizing, multinode_any_speed, rl_phases, rl_sizings, rl_speed
from ftopt.model.sizing import CopySetup, RunProfile, optimizer_choices, profile_run
from ftopt.model.speed import SpeedContext, link_kind, planning_host
from ftopt.model.topology import PCIE_GEN5_X16_GBPS
from ftopt.model.workload import MULTI_NODE_COUNTS, InlineModel, Offload, RolloutEngine, Run, SizingOptions

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
POINTS = HERE / "rl-points.yaml"
MARKDOWN = ROOT / "benchmarks" / "calibration-rl.md"
JSON = ROOT / "benchmarks" / "calibration-rl.json"
#: The goal of a generation share or generation time: within ±25 % of the published figure.
TIME_GOAL = 0.25
#: The model's own memory, as the memory calibration compares it: the planning margin (issue 28) is
#: what plans add for the model's measured error, and a published run shows what fit, not a plan.
OPTIONS = SizingOptions(memory_margin=0.0)
#: GPUs per server of a multi-node copy (HGX-class boards of eight, as the published runs used).
NODE_GPUS = 8


@dataclass(frozen=True)
class RlOutcome:
    """One point, recomputed (or the reason it cannot be)."""

    id: str
    kind: str
    role: str
    source: str
    card: str
    published: float
    ftopt: float | None
    reason: str | None
    miss_reason: str | None = None
    note: str | None = None  # what a reader must know to weigh the point (e.g. a constant set after it)
    engine: str | None = None  # the run's rollout engine, for points that generate

    @property
    def ratio(self) -> float | None:
        """ftopt's figure over the published one."""
        return None if self.ftopt is None else self.ftopt / self.published

    @property
    def within_goal(self) -> bool | None:
        """min_gpus: ftopt needs no more GPUs than published; a share or a time: within ±25 %."""
        if self.ratio is None:
            return None
        return self.ratio <= 1 if self.kind == "min_gpus" else abs(self.ratio - 1) <= TIME_GOAL


def load_points(path: Path = POINTS) -> dict[str, Any]:
    """The points file as data."""
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def rl_cards(data: dict[str, Any]) -> dict[str, Gpu]:
    """The cards of the points file, with the shared calibration cards."""
    extra = TypeAdapter(list[Gpu]).validate_python(data.get("cards", []))
    return {**calibration_cards(), **{card.id: card for card in extra}}


def _model(name: str, models: dict[str, Architecture]) -> str | InlineModel:
    return InlineModel(name=name, architecture=models[name]) if name in models else name


def point_profile(point: dict[str, Any], models: dict[str, Architecture], catalogue: Catalogue) -> RunProfile:
    """The point's run, with its models resolved and its placement as published."""
    fields = dict(point["run"])
    fields["model"] = _model(fields["model"], models)
    if "reward_model" in fields:
        fields["reward_model"] = _model(fields["reward_model"], models)
    if "rollout" in fields:
        fields["rollout"] = {**fields["rollout"], "placement": point["placement"]}
    return profile_run(Run.model_validate({"name": point["id"], **fields}), catalogue)


def fewest_gpus(profile: RunProfile, gpu: Gpu, catalogue: Catalogue) -> int | None:
    """The fewest GPUs one copy fits on, any layout: within a server, else over servers of eight
    (16, 32 or 64 GPUs, FSDP or HSDP, a colocated engine); None when none fits."""
    constants = catalogue.rollout
    fitting = [s.gpus for s in rl_sizings(profile, gpu, OPTIONS, constants) if s.fits]
    if fitting:
        return min(fitting)
    net = _fabric(catalogue, gpu)
    if net is None:
        return None
    for gpus in MULTI_NODE_COUNTS:
        for strategy in MULTI_NODE_STRATEGIES:
            for optimizer in optimizer_choices(profile.run, profile.method, profile.stack):
                sizing = multinode_any_sizing(
                    CopySetup(profile, gpu, gpus, strategy, optimizer, Offload.NONE, OPTIONS), net, constants
                )
                if sizing is not None and sizing.fits:
                    return gpus
    return None


def _fabric(catalogue: Catalogue, gpu: Gpu) -> Network | None:
    """Servers of eight of the card joined by the fastest NIC a server of it has (a calibration-only
    card: the fastest a PCIe Gen5 x16 slot carries in full); None without one."""
    nics = [n for c in catalogue.chassis if c.takes(gpu) and (n := fabric_nic(catalogue, c)) is not None]
    if not nics:
        nics = [n for n in catalogue.nics if n.pcie_gbps <= PCIE_GEN5_X16_GBPS]
    if not nics:
        return None
    nic = max(nics, key=lambda n: (n.port_gbits, n.id))
    assert catalogue.speed is not None
    return node_network(gpu, NODE_GPUS, nic, NODE_GPUS, catalogue.speed)


@dataclass(frozen=True)
class StepSplit:
    """One RL step of the fastest fitting layout: its whole time and its generation, seconds."""

    step: float
    generation: float

    @property
    def share(self) -> float:
        """The share of the step spent generating."""
        return self.generation / self.step


def multinode_split(profile: RunProfile, gpu: Gpu, gpus: int, catalogue: Catalogue) -> StepSplit | None:
    """The step of the fastest fitting copy over servers of eight (FSDP or HSDP, a colocated engine on
    every GPU); None when none fits."""
    net, speed, constants = _fabric(catalogue, gpu), catalogue.speed, catalogue.rollout
    if net is None or speed is None:
        return None
    host = planning_host(catalogue, NODE_GPUS, speed)
    best: StepSplit | None = None
    for strategy in MULTI_NODE_STRATEGIES:
        for optimizer in optimizer_choices(profile.run, profile.method, profile.stack):
            setup = CopySetup(profile, gpu, gpus, strategy, optimizer, Offload.NONE, OPTIONS)
            sizing = multinode_any_sizing(setup, net, constants)
            step = (
                None
                if sizing is None or not sizing.fits
                else (multinode_any_speed(profile, sizing, gpu, host, net, speed, constants))
            )
            if sizing is None or step is None or (best and step.step_seconds >= best.step):
                continue
            update = step.step_seconds - step.rollout_seconds
            phases = rl_phases(profile, sizing, gpu, update, None, speed, constants)
            best = StepSplit(step.step_seconds, phases.generation)
    return best


def step_split(profile: RunProfile, gpu: Gpu, gpus: int, catalogue: Catalogue) -> StepSplit | None:
    """The step and its generation on the fastest fitting layout of `gpus` GPUs (over servers of eight
    beyond one server); None when none fits."""
    constants, speed = catalogue.rollout, catalogue.speed
    assert speed is not None and profile.stack is not None
    if gpus > NODE_GPUS:
        return multinode_split(profile, gpu, gpus, catalogue)
    host = planning_host(catalogue, gpus, speed)
    link = link_kind(gpu, gpus)
    best: StepSplit | None = None
    for sizing in rl_sizings(profile, gpu, OPTIONS, constants):
        if sizing.gpus != gpus or not sizing.fits:
            continue
        step = rl_speed(profile, sizing, gpu, SpeedContext(profile.stack, speed, host, link), constants)
        if best is None or step.step_seconds < best.step:
            update = step.step_seconds - step.rollout_seconds
            phases = rl_phases(profile, sizing, gpu, update, link, speed, constants)
            best = StepSplit(step.step_seconds, phases.generation)
    return best


def step_figure(kind: str, profile: RunProfile, gpu: Gpu, gpus: int, catalogue: Catalogue) -> float | None:
    """`generation_share`: the share of the step spent generating; `generation_seconds`: the
    generation's seconds; None when no layout of `gpus` GPUs fits."""
    split = step_split(profile, gpu, gpus, catalogue)
    if split is None:
        return None
    return split.share if kind == "generation_share" else split.generation


def recompute(point: dict[str, Any], data: dict[str, Any], catalogue: Catalogue) -> RlOutcome:
    """ftopt's figure for one point, or why it has none."""
    models = {name: Architecture.model_validate(arch) for name, arch in data["models"].items()}
    reason, value = point.get("reason"), None
    if reason is None:
        profile = point_profile(point, models, catalogue)
        gpu = rl_cards(data).get(point["card"]) or catalogue.gpu(point["card"])
        if point["kind"] == "min_gpus":
            count = fewest_gpus(profile, gpu, catalogue)
            value = None if count is None else float(count)
        else:
            value = step_figure(point["kind"], profile, gpu, int(point["gpus"]), catalogue)
        if value is None:
            reason = "ftopt finds no layout that fits, within one server or over up to 64 GPUs"
    return RlOutcome(
        id=point["id"],
        kind=point["kind"],
        role=point["role"],
        source=point["source"],
        card=point["card"],
        published=float(point["published"]),
        ftopt=value,
        reason=reason,
        miss_reason=point.get("miss_reason"),
        note=point.get("note"),
        engine=_engine(point),
    )


def _engine(point: dict[str, Any]) -> str | None:
    """The rollout engine a point's run names (vLLM unless it says), None for a point without a run."""
    rollout = point.get("run", {}).get("rollout")
    return None if rollout is None else str(rollout.get("engine", RolloutEngine.VLLM))


def run_rl_calibration(path: Path = POINTS) -> list[RlOutcome]:
    """Every point of the file, recomputed with the packaged catalogue."""
    data, catalogue = load_points(path), load_catalogue()
    return [recompute(point, data, catalogue) for point in data["points"]]


def _figure(o: RlOutcome, value: float) -> str:
    return {"min_gpus": f"{value:.0f}", "generation_seconds": f"{value:.1f}"}.get(o.kind, f"{value:.2f}")


def _kind_table(title: str, rows: list[RlOutcome]) -> list[str]:
    """One kind's table: each point with its role, source, card, engine and figures."""
    within = sum(1 for o in rows if o.within_goal)
    lines = [f"## {title}: {within} of {len(rows)} within goal", ""]
    lines += ["| point | role | source | card | engine | published | ftopt | ratio | within goal? |"]
    lines += ["|---|---|---|---|---|---:|---:|---:|---|"]
    for o in rows:
        assert o.ftopt is not None and o.ratio is not None
        lines.append(
            f"| {o.id} | {o.role} | {o.source} | {o.card} | {o.engine or '—'} | {_figure(o, o.published)} | "
            f"{_figure(o, o.ftopt)} | {o.ratio:.2f} | {'yes' if o.within_goal else 'no'} |"
        )
    return [*lines, ""]


def render_markdown(outcomes: list[RlOutcome], sources: dict[str, str]) -> str:
    """The table per kind, the points ftopt cannot express, and the sources."""
    lines = [
        "# Calibration of the preference/RL model against published runs",
        "",
        "Written by `python -m benchmarks.calibration.rl` from `benchmarks/calibration/rl-points.yaml`; do",
        "not edit by hand. Ratio = ftopt / published. Role: only `fit` points chose a rollout constant",
        "(`ftopt/catalogue/data/rollout.yaml`: decode_step_overhead_ms, one per engine, each on points",
        "of its engine only); `held-out` points judge the constants, by source. Goals: GPU counts at",
        f"most the published minimum (ratio ≤ 1); the generation share and time within ±{TIME_GOAL:.0%}.",
        "",
    ]
    for kind, title in (
        ("min_gpus", "Fewest GPUs per copy"),
        ("generation_share", "Generation share of a step"),
        ("generation_seconds", "Generation time of a step, seconds"),
    ):
        lines += _kind_table(title, [o for o in outcomes if o.kind == kind and o.ftopt is not None])
    lines += ["## Points outside their goal, and why", ""]
    lines += [f"- **{o.id}**: {o.miss_reason}" for o in outcomes if o.within_goal is False and o.miss_reason]
    lines += ["", "## Notes", ""]
    lines += [f"- **{o.id}**: {o.note}" for o in outcomes if o.note]
    lines += ["", "## Points ftopt cannot express", ""]
    lines += [f"- **{o.id}** ({o.kind}, {_figure(o, o.published)}): {o.reason}" for o in outcomes if o.reason]
    lines += ["", "## Sources", ""]
    lines += [f"- **{key}**: {text}" for key, text in sources.items()]
    return "\n".join(lines) + "\n"


def render_json(outcomes: list[RlOutcome]) -> str:
    """The same outcomes as JSON records."""
    records = [
        {
            "id": o.id,
            "kind": o.kind,
            "role": o.role,
            "source": o.source,
            "card": o.card,
            "published": o.published,
            "ftopt": None if o.ftopt is None else round(o.ftopt, 3),
            "ratio": None if o.ratio is None else round(o.ratio, 3),
            "within_goal": o.within_goal,
            "reason": o.reason,
            "engine": o.engine,
        }
        for o in outcomes
    ]
    return json.dumps({"points": records}, indent=2) + "\n"


def main() -> None:
    """Recompute every point and write calibration-rl.md and calibration-rl.json."""
    outcomes = run_rl_calibration()
    sources = dict(load_points()["sources"])
    MARKDOWN.write_text(render_markdown(outcomes, sources), encoding="utf-8")
    JSON.write_text(render_json(outcomes), encoding="utf-8")
    for o in outcomes:
        print(o.id, o.published, o.ftopt, o.reason or "")


if __name__ == "__main__":
    main()
