"""Problem data: the runs, the builds, the modes, and which mode may go where as what.

Why counts and not named servers: most copies are *light* on a build — their offloaded host RAM and
their NVMe fit within their GPUs' share of the build's base RAM and disk — so any set of them that
fits the GPUs fits the server. GPU counts of 1, 2, 4 and 8 in servers of 2, 4 or 8 have the buddy
property (sizes divide each other), so for each block size t, "GPUs of light copies of at least t
cards ≤ GPUs in free blocks of at least t cards" is exact for a whole population of servers: the
model only counts servers per build and copies per (mode, build). *Heavy* copies, whose RAM or
disk one server must hold alone, come in enumerated configurations (configs.py), counted too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ftopt.model.findings import Finding
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.mig import MigProfile
from ftopt.model.references import allowed_gpus
from ftopt.model.sizing import RunProfile, profile_run
from ftopt.model.workload import Workload
from ftopt.solver.problem.builds import Build, enumerate_builds
from ftopt.solver.problem.configs import (
    HeavyClass,
    HeavyConfig,
    HeavyShape,
    LightBudget,
    enumerate_configs,
    enumerate_sized_configs,
)
from ftopt.solver.problem.modes import (
    Mode,
    compatible,
    largest_domains,
    lowest_caps,
    run_modes,
    slowest_writes,
)
from ftopt.solver.problem.multinode import MultiNodeOption, multinode_options
from ftopt.solver.problem.owned import owned_builds
from ftopt.solver.problem.slices import offered_slices, slice_modes


def light(mode: Mode, build: Build, reserve_gb: float) -> bool:
    """Whether the copy's host RAM and NVMe fit its GPUs' share of the build's base RAM and disk."""
    share = mode.gpus / build.slots
    return mode.host_ram_gb <= share * (build.ram.gb - reserve_gb) and mode.nvme_gb <= share * build.disk.gb


@dataclass
class ProblemData:
    """Everything the CP-SAT model is built from, precomputed and validated."""

    workload: Workload
    catalogue: Catalogue
    profiles: list[RunProfile]
    builds: list[Build]
    modes: list[Mode]
    excluded: list[Finding]
    pool: list[tuple[int, int]] = field(default_factory=list)  # (mode, build): light pairs
    heavy_classes: list[HeavyClass] = field(default_factory=list)
    configs: list[HeavyConfig] = field(default_factory=list)  # what the model is built from
    safe_configs: list[HeavyConfig] = field(default_factory=list)  # with light copies budgeted
    multinode: list[MultiNodeOption] = field(default_factory=list)  # copies over whole servers
    # Whether `configs` are the sized list: light copies on heavy servers then draw on the rooms
    # their configurations leave (configs.py), a constraint of the model's own.
    light_room: bool = False

    @property
    def exact(self) -> bool:
        """Whether budgeting light copies changes no configuration: then the model is exact."""
        return [(c.heavy, c.price, c.free_blocks) for c in self.configs] == [
            (c.heavy, c.price, c.free_blocks) for c in self.safe_configs
        ]

    def limit(self, item: str) -> int | None:
        """Most units of a part (its stock) or servers of an inventory entry (its count) a plan may
        use; None when unlimited."""
        if item.startswith("owned:"):
            return self.workload.inventory[int(item.split(":", 1)[1])].count
        return self.catalogue.stock(item)

    def with_safe_configs(self) -> ProblemData:
        """The same problem whose heavy configurations budget for the light copies they may take."""
        return replace(self, configs=self.safe_configs)

    def with_sized_configs(self) -> ProblemData:
        """The same problem whose heavy configurations come at every tier worth buying, with the
        room each leaves for light copies: the tighter relaxation (configs.py), enumerated only
        when a plan of the optimistic one needed more than its configurations bought."""
        reserve = self.catalogue.rules.host_ram_reserve_gb
        shapes: dict[int, list[tuple[int, HeavyShape]]] = {}
        for k, heavy_class in enumerate(self.heavy_classes):
            shapes.setdefault(heavy_class.build, []).append((k, heavy_class.shape))
        configs = []
        for f, on_build in sorted(shapes.items()):
            budget = _budget(self, f)
            configs += _usable(self, enumerate_sized_configs(f, self.builds[f], on_build, budget, reserve))
        return replace(self, configs=configs, light_room=True)

    def __post_init__(self) -> None:
        self._copies = [p.run.concurrent for p in self.profiles]
        self._class_copies: dict[int, int] = {}
        self.index_modes()

    def index_modes(self) -> None:
        """Index the modes by run; again whenever modes are added (multi-node modes come last)."""
        self._modes_of: dict[int, list[int]] = {}
        for i, mode in enumerate(self.modes):
            self._modes_of.setdefault(mode.run, []).append(i)

    @property
    def copies(self) -> list[int]:
        """Copies of each run (computed once: callers index it per mode, so thousands of runs made
        every call a pass over all runs, quadratic in all)."""
        return self._copies

    def has_multinode(self, run: int) -> bool:
        """Whether a run has a multi-node option."""
        return any(self.modes[o.mode].run == run for o in self.multinode)

    def modes_of(self, run: int) -> list[int]:
        """Indices of the modes of one run."""
        return list(self._modes_of.get(run, ()))

    def pool_bound(self, build: int) -> int:
        """Most plain servers of one build any plan could need: every light copy on it.

        Not capped by `site.max_servers`: that limit is a constraint of its own, so that an
        infeasible bid's assumption core can name it.
        """
        gpus = sum(self.modes[m].gpus * self.copies[self.modes[m].run] for m, f in self.pool if f == build)
        return math.ceil(gpus / self.builds[build].slots)

    def class_copies(self, heavy_class: int) -> int:
        """Copies of all runs that may take one heavy class."""
        if heavy_class not in self._class_copies:
            modes = self.heavy_classes[heavy_class].modes
            self._class_copies[heavy_class] = sum(self._copies[self.modes[m].run] for m in modes)
        return self._class_copies[heavy_class]

    def config_bound(self, config: HeavyConfig) -> int:
        """Most servers of one configuration any plan could use: until one of its classes is exhausted."""
        return min(self.class_copies(k) // count for k, count in config.heavy)


def _budget(data: ProblemData, build: int) -> LightBudget:
    light_modes = [data.modes[m] for m, f in data.pool if f == build]
    return LightBudget(
        host_ram_gb=max((m.host_ram_gb / m.gpus for m in light_modes), default=0.0),
        nvme_gb=max((m.nvme_gb / m.gpus for m in light_modes), default=0.0),
    )


def _needs(mode: Mode, is_light: bool) -> tuple[float, ...]:
    """What a mode takes from a server of one build: GPUs only when light."""
    return (mode.gpus, 0.0, 0.0) if is_light else (mode.gpus, mode.host_ram_gb, mode.nvme_gb)


def _undominated(candidates: list[tuple[int, Mode, bool]]) -> list[tuple[int, Mode, bool]]:
    """Per run and build: drop a mode when a kept one needs no more, is no slower and is no less
    preferred.

    On one build a light copy needs only its GPUs, so two light modes of one GPU count are
    interchangeable for the price; keeping the preferred one (then the one with more free memory)
    removes that symmetry without touching the optimum or the tie-breaks.
    """
    ordered = sorted(
        candidates, key=lambda c: (_needs(c[1], c[2]), c[1].slowness, c[1].preference, c[1].sizing.total_gb)
    )
    kept: list[tuple[int, Mode, bool]] = []
    for m, mode, is_light in ordered:
        needs = _needs(mode, is_light)
        if not any(
            k.slowness <= mode.slowness
            and k.preference <= mode.preference
            and all(a <= b for a, b in zip(_needs(k, kl), needs, strict=True))
            for _, k, kl in kept
        ):
            kept.append((m, mode, is_light))
    return kept


def _shape(mode: Mode) -> HeavyShape:
    return HeavyShape(mode.gpus, round(mode.host_ram_gb, 6), round(mode.nvme_gb, 6))


def _classify(data: ProblemData) -> None:
    reserve = data.catalogue.rules.host_ram_reserve_gb
    heavy: dict[int, dict[HeavyShape, list[int]]] = {}
    # Per card and slice, per run, its modes (in their order): `compatible` needs the card first, and
    # scanning every mode of every run for every build took 4 s of the build of 5,000 runs.
    on_card: dict[tuple[str, str | None], dict[int, list[int]]] = {}
    for run in range(len(data.profiles)):
        for m in data.modes_of(run):
            mode = data.modes[m]
            on_card.setdefault((mode.gpu, mode.mig), {}).setdefault(run, []).append(m)
    outpriced = light_dominated(data, on_card)
    for f, build in enumerate(data.builds):
        if f in outpriced:
            continue
        for modes in on_card.get(_card(build), {}).values():
            candidates = [
                (m, data.modes[m], light(data.modes[m], build, reserve))
                for m in modes
                if compatible(data.modes[m], build)
            ]
            for m, mode, is_light in _undominated(candidates):
                if is_light:
                    data.pool.append((m, f))
                elif build.mig is None:  # a copy too heavy for its slice's share of RAM or disk: no slice
                    heavy.setdefault(f, {}).setdefault(_shape(mode), []).append(m)
    data.pool.sort()
    for f, by_shape in sorted(heavy.items()):
        shapes = []
        for shape, modes in sorted(by_shape.items(), key=lambda item: item[1]):
            shapes.append((len(data.heavy_classes), shape))
            data.heavy_classes.append(HeavyClass(f, shape, tuple(modes)))
        build = data.builds[f]
        data.configs += _usable(data, enumerate_configs(f, build, shapes, LightBudget(0.0, 0.0), reserve))
        data.safe_configs += _usable(data, enumerate_configs(f, build, shapes, _budget(data, f), reserve))


def _card(build: Build) -> tuple[str, str | None]:
    return build.gpu.id, build.mig.name if build.mig else None


def _dominance_safe(data: ProblemData) -> bool:
    """Whether every rule of the bid treats two servers of one card and GPU count alike but for their
    price: no racks (units, circuits), no part in limited stock, no servers owned, no queue."""
    workload = data.workload
    return (
        workload.site.racks is None
        and not workload.inventory
        and workload.queue is None
        and not any(p.stock is not None for p in data.catalogue.prices)
    )


def light_dominated(
    data: ProblemData, on_card: dict[tuple[str, str | None], dict[int, list[int]]]
) -> set[int]:
    """Builds no cheapest plan buys as a plain server: another build of the same card, slice and GPU
    count costs less and holds every mode this one holds, each as a light copy (its GPUs alone).

    Why: a chassis that costs more for the same cards (more RAM, another CPU) only pays where RAM or
    disk decides; where it does not, every server of it in a plan can be swapped for the cheaper one,
    copies and all. Keeping it gave CP-SAT a dearer twin of every server to rule out: on 500 copies
    of 40 runs, 11 of 54 builds, and the proof took about 2.5 times the CPU. The builds stay in the
    problem (multi-node options and the plan's layout read them); only their light pairs and heavy
    configurations go. `_dominance_safe` says when no site rule could prefer the dearer one."""
    if not _dominance_safe(data):
        return set()
    reserve = data.catalogue.rules.host_ram_reserve_gb
    holds = [
        frozenset(m for ms in on_card.get(_card(b), {}).values() for m in ms if compatible(data.modes[m], b))
        for b in data.builds
    ]
    cost = [b.price + b.energy_cost for b in data.builds]
    group: dict[tuple[str, str | None, int, int], list[int]] = {}
    for f, build in enumerate(data.builds):
        group.setdefault((*_card(build), build.gpu_count, build.slots), []).append(f)
    return {
        b
        for twins in group.values()
        for b in twins
        if any(
            cost[a] < cost[b]
            and holds[b] <= holds[a]
            and all(light(data.modes[m], data.builds[a], reserve) for m in holds[b])
            for a in twins
        )
    }


def _usable(data: ProblemData, configs: list[HeavyConfig]) -> list[HeavyConfig]:
    """Configurations the bid has enough heavy copies to fill once.

    Configurations follow the server, not the bid: one holding three copies of a class is listed even
    when the bid has one. Such a configuration can never be bought; on a bid with few copies per run
    they were most of the list (xl-02 at a twentieth of its copies: 539 of 744), and CP-SAT's search
    still paid for them.
    """
    return [c for c in configs if data.config_bound(c) > 0]


def _same_but_bridges(a: Build, b: Build) -> bool:
    return (a.chassis.id, a.gpu.id, a.gpu_count, a.power_cap_w, a.cpu.id, a.mig, a.mig_count) == (
        b.chassis.id,
        b.gpu.id,
        b.gpu_count,
        b.power_cap_w,
        b.cpu.id,
        b.mig,
        b.mig_count,
    )


def undominated_builds(builds: list[Build], modes: list[Mode]) -> list[Build]:
    """Drop a build when another bridge layout of the same server costs no more and holds every
    mode it holds.

    Bridges only matter to sharded runs; when no run of the bid shards on a card, its bridged
    builds cost more for nothing, and each would otherwise repeat every heavy configuration. Two
    layouts of one price (two 2-way bridges or one 4-way) are the same server to every run that
    fits both: keeping both only hands CP-SAT a symmetry to search through, so the one that holds
    more modes stays (the first, when they hold the same). Ranking by (price, fewer modes held,
    index) is a strict order, so of every set of equivalent builds one survives.
    """
    by_card: dict[tuple[str, str | None], list[int]] = {}  # `compatible` needs the card and slice first
    for m, mode in enumerate(modes):
        by_card.setdefault((mode.gpu, mode.mig), []).append(m)
    holds = [
        frozenset(
            m for m in by_card.get((f.gpu.id, f.mig.name if f.mig else None), ()) if compatible(modes[m], f)
        )
        for f in builds
    ]
    rank = [(f.fixed_price, -len(holds[i]), i) for i, f in enumerate(builds)]

    def dominated(b: int) -> bool:
        return any(
            a != b and _same_but_bridges(builds[a], builds[b]) and rank[a] < rank[b] and holds[b] <= holds[a]
            for a in range(len(builds))
        )

    return [build for b, build in enumerate(builds) if not dominated(b)]


def _add_multinode(data: ProblemData) -> None:
    """Append the multi-node modes to `data.modes` and their options to `data.multinode`; after the
    light pool and heavy classes are made, which multi-node modes never join."""
    singles = list(data.modes)
    for mode, option in multinode_options(data.workload, data.catalogue, data.profiles, data.builds, singles):
        data.modes.append(mode)
        data.multinode.append(replace(option, mode=len(data.modes) - 1))


def _slice_modes(
    run: int,
    profile: RunProfile,
    whole: list[Mode],
    slices: list[tuple[Gpu, MigProfile]],
    workload: Workload,
    catalogue: Catalogue,
    caps: dict[str, int],
    writes: dict[str, float],
) -> list[Mode]:
    """The run's slice modes, sized only where a slice may hold a copy: on cards where the run has a
    one-GPU mode on the whole card (a slice has less memory and compute than its card, so a copy no
    whole card holds alone, or holds too slowly, no slice of it holds), and only at one GPU.

    Why: a slice takes single-GPU copies only, yet the run was sized at every GPU count on every
    slice profile and the rest thrown away; on 5,000 distinct runs that was a third of the build."""
    cards = {m.gpu for m in whole if m.gpus == 1 and m.mig is None}
    usable = [(gpu, mig) for gpu, mig in slices if gpu.id in cards]
    if not usable:
        return []
    one_gpu = replace(profile, run=profile.run.model_copy(update={"gpus": 1}))
    return slice_modes(run, one_gpu, usable, workload.sizing, catalogue, caps, writes)


def build_problem(workload: Workload, catalogue: Catalogue) -> ProblemData:
    """Builds, modes, the light pool and the heavy configurations for a workload."""
    build_set = enumerate_builds(catalogue, workload)
    gpus = [g for g in allowed_gpus(catalogue, workload) if any(f.gpu.id == g.id for f in build_set.builds)]
    profiles = [profile_run(run, catalogue) for run in workload.runs]
    domains, caps = largest_domains(build_set.builds), lowest_caps(build_set.builds)
    owned, unusable = owned_builds(workload, build_set.builds)
    writes = slowest_writes([*build_set.builds, *owned])
    slices = offered_slices([*build_set.builds, *owned])
    modes = []
    for i, p in enumerate(profiles):
        whole = run_modes(i, p, gpus, workload.sizing, domains, catalogue, caps, writes)
        modes += whole + _slice_modes(i, p, whole, slices, workload, catalogue, caps, writes)
    builds = undominated_builds(build_set.builds, modes) + owned
    data = ProblemData(workload, catalogue, profiles, builds, modes, [*build_set.excluded, *unusable])
    _classify(data)
    _add_multinode(data)
    data.index_modes()
    return data
