"""Training modes: the ways one copy of a run may train, after memory filtering and dominance.

A mode is a fitting `Sizing` (card, GPU count, strategy, optimiser, offload) plus what placement
needs from a server: its GPU count, the NVLink domain size its shards must share, the host RAM it
offloads to and the NVMe its checkpoints take. Modes that need no more of any resource than a kept
mode, and are no less preferred, are dropped before the model sees them.

A run with `train_tokens` and `deadline_hours` keeps only the modes that finish in time wherever the
model may place them, at the run's deadline confidence (its hours with failures × its stack's P50 or
P90 spread factor, `confident_hours`): each mode's speed is the speed model's estimate
(`ftopt.model.speed`) on the slowest placement its builds allow — the link kind its aligned GPU
block gets in every chassis and bridge layout of the catalogue that can hold it (NVLink inside a
domain, PCIe within or across the sockets otherwise, none for one GPU), and, for offload, the least
host any build gives (the rules' cores per GPU, the CPU with the fewest memory channels) and the
lowest power setting any of the card's builds gives its cards (a cap slows compute,
`ftopt.model.speed.at_power`). A mode that misses its deadline on PCIe but meets it inside an NVLink
domain is kept with that domain required, so a deadline can move a run to more GPUs, onto NVLink or
off offload. Without deadlines nothing here changes the modes.

Failures (`ftopt.model.failures`) count for every copy. A copy's checkpoint lands on its servers'
data drives, which are chosen after the modes, so a single-server mode is held to its deadline with
the slowest data drives any build of its card may carry (`slowest_writes`): the check is
conservative, and the plan states the overhead with the drives it chose, never more than that bound.
A copy over several servers counts its build's own drives (`ftopt.solver.problem.multinode.late`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ftopt.model.failures import failure_cost
from ftopt.model.hardware import Catalogue, Chassis, Gpu
from ftopt.model.memory import GB, checkpoint_bytes
from ftopt.model.mig import slice_card
from ftopt.model.rl import copy_sizings, copy_speed
from ftopt.model.sizing import Ranker, RunProfile, Sizing
from ftopt.model.speed import Host, Speed, SpeedContext, at_power, hours_to_train, speed_link, speed_ranker
from ftopt.model.spread import hours_at_confidence
from ftopt.model.stack import LinkKind
from ftopt.model.timing import copy_host
from ftopt.model.topology import topology_of
from ftopt.model.workload import Offload, Optimizer, Placement, SizingOptions, Strategy
from ftopt.solver.problem.builds import Build


@dataclass(frozen=True)
class Mode:
    """One way to place one copy of one run."""

    run: int  # index into the workload's runs
    sizing: Sizing
    domain: int  # NVLink domain size the GPUs must lie in; 0 when none is needed
    min_power_w: int = 0  # the least power setting its cards need to meet a deadline; 0: any
    #: 1 when another mode of the run on the same card and GPU count trains faster (`mark_slower`):
    #: at equal price the tie-break prefers the faster one, before any other preference.
    slowness: int = field(default=0, kw_only=True)
    #: the MIG profile whose instance the copy trains on (its sizing is of that slice); None: whole cards
    mig: str | None = field(default=None, kw_only=True)

    @property
    def gpu(self) -> str:
        """The card id."""
        return self.sizing.gpu

    @property
    def gpus(self) -> int:
        """GPUs per copy."""
        return self.sizing.gpus

    @property
    def host_ram_gb(self) -> float:
        """Host RAM the copy's offloaded states need."""
        return self.sizing.host_ram_gb

    @property
    def nvme_gb(self) -> float:
        """NVMe the copy's checkpoints and base model need."""
        return self.sizing.nvme_gb

    @property
    def preference(self) -> int:
        """Lower is preferred at equal price: 32-bit Adam, no offload, DDP over sharding over PCIe,
        whole cards over GPU slices."""
        sizing = self.sizing
        return (
            (sizing.optimizer == Optimizer.ADAMW_8BIT)
            + (sizing.offload == Offload.CPU)
            + (sizing.strategy == Strategy.FSDP)
            + 2 * (sizing.sharded and self.domain == 0)
            + (sizing.placement == Placement.SEPARATE)  # at equal price, keep no GPU idle half the step
            + 2 * (self.mig is not None)  # at equal price, a whole card: faster, and no slices to set up
        )

    @property
    def resources(self) -> tuple[float, ...]:
        """What the mode takes from a server, each smaller-is-better."""
        return (self.gpus, self.domain, self.host_ram_gb, self.nvme_gb, self.min_power_w)


def required_domain(gpu: Gpu, sizing: Sizing, largest: int | None = None) -> int:
    """Sharded runs stay in one NVLink domain when one holds them, else span full-size domains.

    `largest` is the largest NVLink domain the card's builds offer (their topology: a bridge, an
    NVSwitch baseboard); by default the card's largest bridge. Cards without NVLink shard over PCIe
    (domain 0: no requirement); replicated (DDP) and single runs need no domain.
    """
    if largest is None:
        largest = max(gpu.nvlink.bridge_sizes, default=0) if gpu.nvlink else 0
    tp = sizing.config.degrees.tp if sizing.config else 1
    if gpu.nvlink is None or largest == 0 or (sizing.strategy != Strategy.FSDP and tp < 2):
        return 0
    return min(sizing.gpus, largest) if sizing.strategy == Strategy.FSDP else tp


def fitting_modes(
    run_index: int,
    profile: RunProfile,
    gpu: Gpu,
    sizing_options: SizingOptions,
    largest: int | None = None,
    rank: Ranker | None = None,
) -> list[Mode]:
    """Memory per GPU: only sizings whose states, activations and overhead fit the card (an RL run's
    roles together, and its rollout engine in its share), each with the undominated training
    configurations `all_sizings` keeps (ranked by `rank`, the speed model's seconds per token where the
    caller has it); tensor parallelism only inside the `largest` domain."""
    domain = None if largest is None else max(largest, 1)
    return [
        Mode(run_index, s, required_domain(gpu, s, largest))
        for s in copy_sizings(profile, gpu, sizing_options, profile.rollout, rank, domain)
        if s.fits
    ]


def _dominates(a: Mode, b: Mode) -> bool:
    return (
        a.gpu == b.gpu
        and a.mig == b.mig
        and a.preference <= b.preference
        and a.slowness <= b.slowness
        and all(x <= y for x, y in zip(a.resources, b.resources, strict=True))
    )


def prune_dominated(modes: list[Mode]) -> list[Mode]:
    """Drop modes another mode beats on every resource and on preference (first kept on ties)."""
    kept: list[Mode] = []
    for mode in sorted(modes, key=lambda m: (m.gpu, m.resources, m.preference)):
        if not any(_dominates(k, mode) for k in kept):
            kept.append(mode)
    return kept


def placement_links(catalogue: Catalogue, gpu: Gpu, gpus: int, domain: int) -> set[LinkKind | None]:
    """Every link kind a copy of `gpus` cards needing an NVLink domain of `domain` (0: none) may get:
    each chassis that takes the card, each bridge layout of it (as builds.py lays bridges out), each
    aligned block (as layout.py deals copies), read off the chassis' topology."""
    bridges = [b for b in (gpu.nvlink.bridge_sizes if gpu.nvlink else ()) if catalogue.bridge_for(gpu.id, b)]
    links: set[LinkKind | None] = set()
    for chassis in catalogue.chassis:
        if chassis.gpu_slots >= gpus and chassis.takes(gpu):
            links |= _chassis_links(chassis, gpu, gpus, domain, bridges)
    return links


def _chassis_links(
    chassis: Chassis, gpu: Gpu, gpus: int, domain: int, bridges: list[int]
) -> set[LinkKind | None]:
    """The link kinds the aligned blocks of `gpus` cards get in one chassis, under each bridge layout
    whose largest domain holds `domain` (an NVSwitch board takes no bridges)."""
    n = chassis.gpu_slots
    layouts = [0] if chassis.nvswitch else [0, *(b for b in bridges if n % b == 0)]
    links: set[LinkKind | None] = set()
    for bridge in layouts:
        topology = topology_of(chassis, gpu, bridge)
        if domain and topology.largest_domain < domain:
            continue
        blocks = (tuple(range(start, start + gpus)) for start in range(0, n - gpus + 1, gpus))
        links |= {speed_link(topology, block) for block in blocks}
    return links


def least_host(catalogue: Catalogue, gpus: int, gpu: Gpu) -> Host | None:
    """The least host any build of `gpu` gives a copy: the rules' cores per GPU, the fewest memory
    channels of a CPU that fits a chassis taking the card."""
    fitting = [c for c in catalogue.cpus if any(ch.takes(gpu) and ch.fits(c) for ch in catalogue.chassis)]
    if catalogue.speed is None or not fitting:
        return None
    channels = min(cpu.memory_channels for cpu in fitting)
    rules = catalogue.rules
    return copy_host(channels, rules.cores_per_gpu * gpus, gpus, gpus, catalogue.speed)


def placed_speed(
    profile: RunProfile, catalogue: Catalogue, mode: Mode, build: Build, start: int
) -> Speed | None:
    """The speed model's estimate for a copy of `mode` on GPUs start… of a server of `build`: the
    link kind those GPUs get there, the host that server's CPU gives them and its cards' power setting
    (None without speed data). Decoding (the plan's figures) and the queue (each job's hours) read it."""
    constants = catalogue.speed
    if profile.stack is None or constants is None:
        return None
    link = speed_link(build.topology, tuple(range(start, start + mode.gpus))) if build.mig is None else None
    cores = build.cpu.cores * build.chassis.sockets
    host = copy_host(build.cpu.memory_channels, cores, build.gpu_count, mode.gpus, constants)
    card = copy_card(build, mode)
    context = SpeedContext(profile.stack, constants, host, link)
    speed = copy_speed(profile, mode.sizing, card, context, catalogue.rollout)
    return at_power(speed, card, build.power_cap_w, constants)


def copy_card(build: Build, mode: Mode) -> Gpu:
    """The card a copy of `mode` trains on: the build's, or the GPU slice of it a slice mode takes."""
    return slice_card(build.gpu, build.mig) if mode.mig is not None and build.mig is not None else build.gpu


def mode_speeds(
    profile: RunProfile, mode: Mode, gpu: Gpu, catalogue: Catalogue, power_w: float | None = None
) -> list[Speed]:
    """The speed model's estimate of the mode on each placement it may get (within its NVLink
    domain, `mode.domain`, where it has one), its cards at `power_w` (full power when None); empty
    without speed data."""
    host = least_host(catalogue, mode.gpus, gpu)
    constants = catalogue.speed
    if profile.stack is None or constants is None or host is None:
        return []
    watts = gpu.power_w if power_w is None else power_w
    rollout = catalogue.rollout
    return [
        at_power(
            copy_speed(
                profile, mode.sizing, gpu, SpeedContext(profile.stack, constants, host, link), rollout
            ),
            gpu,
            watts,
            constants,
        )
        for link in sorted(placement_links(catalogue, gpu, mode.gpus, mode.domain), key=str)
    ]


def mode_hours(
    profile: RunProfile, mode: Mode, gpu: Gpu, catalogue: Catalogue, power_w: float | None = None
) -> float | None:
    """Hours the mode needs on its slowest placement, its cards at `power_w`; None without
    train_tokens or speed data."""
    tokens = profile.run.train_tokens
    speeds = mode_speeds(profile, mode, gpu, catalogue, power_w)
    if tokens is None or not speeds:
        return None
    return max(hours_to_train(tokens, s) for s in speeds)


def fastest_hours(profile: RunProfile, mode: Mode, gpu: Gpu, catalogue: Catalogue) -> float | None:
    """Hours the mode needs on its fastest placement (inside an NVLink domain where one holds it)."""
    tokens = profile.run.train_tokens
    speeds = mode_speeds(profile, mode, gpu, catalogue)
    if tokens is None or not speeds:
        return None
    return min(hours_to_train(tokens, s) for s in speeds)


def nvlink_domain(gpu: Gpu, catalogue: Catalogue, gpus: int) -> int:
    """The domain size that puts a copy of `gpus` cards inside one NVLink domain, 0 when none can:
    a bridge the catalogue sells for the card, or an NVSwitch board of a chassis that takes it."""
    if gpus < 2 or gpu.nvlink is None:
        return 0
    bridged = any(b >= gpus and catalogue.bridge_for(gpu.id, b) for b in gpu.nvlink.bridge_sizes)
    return gpus if bridged or any(_board_holds(c, gpu, gpus) for c in catalogue.chassis) else 0


def _board_holds(chassis: Chassis, gpu: Gpu, gpus: int) -> bool:
    """Whether the chassis' NVSwitch board takes the card and joins at least `gpus` of them."""
    return chassis.nvswitch and chassis.takes(gpu) and chassis.gpu_slots >= gpus


def meets_deadline(
    profile: RunProfile,
    mode: Mode,
    gpu: Gpu,
    catalogue: Catalogue,
    power_w: float | None = None,
    write_gbps: float | None = None,
) -> list[Mode]:
    """The ways the mode finishes by the run's deadline on every placement it may get: as it is, its
    cards at `power_w` (the lowest setting the card's builds give; full power when None); else
    confined to an NVLink domain, to builds whose cards run at a higher power setting, or both. Only
    the least demanding variants that meet it are kept (none when no variant does). Its hours count
    failures with checkpoints written at `write_gbps` (the slowest drives its card's builds carry;
    none counted when None)."""
    deadline = profile.run.deadline_hours
    if deadline is None:
        return [mode]
    lowest = gpu.power_w if power_w is None else power_w
    settings = sorted(w for w in gpu.power_settings_w if w >= lowest)
    domains = sorted({mode.domain, max(mode.domain, nvlink_domain(gpu, catalogue, mode.gpus))})
    met: list[Mode] = []
    for domain in domains:
        for watts in settings:
            if _covered(met, domain, _floor(watts, lowest)):
                continue
            hours = mode_hours(profile, replace(mode, domain=domain), gpu, catalogue, watts)
            if hours is None or held_hours(profile, mode.sizing, catalogue, hours, write_gbps) <= deadline:
                met.append(replace(mode, domain=domain, min_power_w=_floor(watts, lowest)))
    return met


def _covered(met: list[Mode], domain: int, floor: int) -> bool:
    """Whether a variant already kept needs no larger domain and no higher power setting."""
    return any(m.domain <= domain and m.min_power_w <= floor for m in met)


def confident_hours(
    profile: RunProfile, catalogue: Catalogue, hours: float, failure_overhead: float | None = None
) -> float:
    """The hours a deadline is held to: `hours` × (1 + `failure_overhead`) × the run's stack's spread
    factor at its deadline confidence (ftopt.model.spread); with failures only without spread data."""
    spread, confidence = catalogue.spread, profile.run.deadline_confidence
    if spread is None or confidence is None:
        return hours * (1 + (failure_overhead or 0.0))
    factors = spread.of(profile.stack.id if profile.stack else None)
    return hours_at_confidence(hours, failure_overhead, factors, confidence)


def failure_overhead(
    profile: RunProfile, sizing: Sizing, catalogue: Catalogue, hours: float, write_gbps: float | None
) -> float | None:
    """Hours added per training hour by checkpoints, lost work and restarts (ftopt.model.failures) for
    a copy so sized writing its checkpoint at `write_gbps` (all its servers' data drives at once);
    None without reliability data or drives."""
    reliability = catalogue.reliability
    if reliability is None or not write_gbps:
        return None
    run = profile.run
    checkpoint = checkpoint_bytes(profile.counts, profile.method, sizing.optimizer, run.lora_rank) / GB
    return failure_cost(hours, sizing.gpus, checkpoint, write_gbps, reliability).overhead


def held_hours(
    profile: RunProfile, sizing: Sizing, catalogue: Catalogue, hours: float, write_gbps: float | None
) -> float:
    """A copy's `hours` as its deadline holds them: with failures at `write_gbps`, at its run's
    deadline confidence."""
    overhead = failure_overhead(profile, sizing, catalogue, hours, write_gbps)
    return confident_hours(profile, catalogue, hours, overhead)


def _floor(watts: int, lowest: float) -> int:
    """The power setting a mode must require: none (0) when the lowest setting the builds give will do."""
    return 0 if watts <= lowest else watts


def deadline_modes(
    profile: RunProfile,
    modes: list[Mode],
    gpus: list[Gpu],
    catalogue: Catalogue,
    caps: Mapping[str, int] | None = None,
    writes: Mapping[str, float] | None = None,
) -> list[Mode]:
    """The modes that meet the run's deadline, some confined to NVLink or to uncapped cards (all of
    them without a deadline); `caps` gives each card's lowest power setting over its builds (see
    `lowest_caps`), `writes` its slowest data-drive write bandwidth (see `slowest_writes`)."""
    if profile.run.deadline_hours is None or profile.run.train_tokens is None:
        return modes
    by_id = {gpu.id: gpu for gpu in gpus}
    caps, writes = caps or {}, writes or {}
    return [
        kept
        for mode in modes
        for kept in meets_deadline(
            profile, mode, by_id[mode.gpu], catalogue, caps.get(mode.gpu), writes.get(mode.gpu)
        )
    ]


def run_modes(
    run_index: int,
    profile: RunProfile,
    gpus: list[Gpu],
    sizing_options: SizingOptions,
    domains: Mapping[str, int] | None = None,
    catalogue: Catalogue | None = None,
    caps: Mapping[str, int] | None = None,
    writes: Mapping[str, float] | None = None,
) -> list[Mode]:
    """All undominated, fitting modes of one run over the allowed cards; `domains` gives each
    card's largest NVLink domain over its builds (see `largest_domains`); with the catalogue, only
    the modes that meet the run's deadline with the cards at their lowest power setting (`caps`,
    see `lowest_caps`) and failures at their slowest drives (`writes`, see `slowest_writes`)."""
    found = [
        m
        for gpu in gpus
        for m in fitting_modes(
            run_index,
            profile,
            gpu,
            sizing_options,
            (domains or {}).get(gpu.id),
            speed_ranker(profile, gpu, catalogue) if catalogue is not None else None,
        )
    ]
    if catalogue is not None:
        found = mark_slower(deadline_modes(profile, found, gpus, catalogue, caps, writes), profile, catalogue)
    return prune_dominated(found)


def mark_slower(
    modes: list[Mode], profile: RunProfile, catalogue: Catalogue, card: Gpu | None = None
) -> list[Mode]:
    """Among a run's modes on one card and GPU count (its configurations, strategies, optimisers),
    all but the fastest by the speed model are marked slower, so that at equal price the objective's
    tie-break takes the fastest (nothing is marked without speed data); `card` ranks them on a slice
    instead of the catalogue's card."""
    groups: dict[tuple[str, int, str | None], list[int]] = {}
    for i, mode in enumerate(modes):
        groups.setdefault((mode.gpu, mode.gpus, mode.mig), []).append(i)
    marked = list(modes)
    for (gpu_id, _, _), members in groups.items():
        rank = speed_ranker(profile, card or catalogue.gpu(gpu_id), catalogue)
        if rank is None or len(members) < 2:
            continue
        seconds = {i: rank(modes[i].sizing) for i in members}
        fastest = min(seconds.values())
        for i in members:
            if seconds[i] > fastest * (1 + 1e-9):
                marked[i] = replace(modes[i], slowness=1)
    return marked


def largest_domains(builds: Iterable[Build]) -> dict[str, int]:
    """Per card id, the largest NVLink domain any of its builds' topologies offers."""
    largest: dict[str, int] = {}
    for build in builds:
        largest[build.gpu.id] = max(largest.get(build.gpu.id, 0), build.largest_domain)
    return largest


def compatible(mode: Mode, build: Build) -> bool:
    """Same card (and the same slice profile, or whole cards on both), the copy's GPUs fit the server,
    its cards run at the power setting a deadline needs, and its shards find an NVLink domain large
    enough."""
    if mode.gpu != build.gpu.id or mode.gpus > build.slots or build.power_cap_w < mode.min_power_w:
        return False
    if mode.mig != (build.mig.name if build.mig else None):
        return False
    return mode.domain == 0 or build.domain_size >= mode.domain


def lowest_caps(builds: Iterable[Build]) -> dict[str, int]:
    """Per card id, the lowest power setting any of its builds gives its cards (the feed decides it)."""
    lowest: dict[str, int] = {}
    for build in builds:
        lowest[build.gpu.id] = min(lowest.get(build.gpu.id, build.power_cap_w), build.power_cap_w)
    return lowest


def build_write_gbps(build: Build) -> float:
    """The slowest data-drive write bandwidth the build may carry (GB/s, all its drives at once): of
    its base tier and its upgrades, whichever a plan may give it."""
    return min(t.drive.write_gbps * t.count for t in (build.disk, *build.disk_upgrades))


def slowest_writes(builds: Iterable[Build]) -> dict[str, float]:
    """Per card id, the slowest data-drive write bandwidth any of its builds may carry (GB/s): what a
    single-server mode's checkpoints are timed at before its server's drives are chosen."""
    slowest: dict[str, float] = {}
    for build in builds:
        write = build_write_gbps(build)
        if not write:  # a build without data drives states no failures (the plan cannot time them)
            continue
        slowest[build.gpu.id] = min(slowest.get(build.gpu.id, write), write)
    return slowest
