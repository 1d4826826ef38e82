"""Why no plan exists, in words a presales engineer can act on.

First the cheap, certain reasons: a run that fits no allowed card in any way its settings allow
(with the smallest memory it would need, and which setting to relax), a card the room's inlet or
the feed rules out. When every run fits alone but not together, the rule groups are reified with
enforcement literals and CP-SAT's assumption core names the smallest conflicting set.
"""

from __future__ import annotations

from dataclasses import replace

from ftopt.model.fabric import (
    NETWORK,
    fabric_kits,
    fabric_nic,
    node_network,
)
from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue, Gpu, Nic
from ftopt.model.methods import TrainingMethod
from ftopt.model.references import allowed_gpus
from ftopt.model.rl import copy_sizings
from ftopt.model.sizing import (
    CopySetup,
    RunProfile,
    Sizing,
    gpu_count_choices,
    optimizer_choices,
    size_run,
)
from ftopt.model.speed import hours_to_train, speed_ranker
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy
from ftopt.solver.cpsat import families
from ftopt.solver.problem.builds import Build, enumerate_builds
from ftopt.solver.problem.configs import cheapest_tier
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import (
    Mode,
    compatible,
    fitting_modes,
    held_hours,
    mode_hours,
    mode_speeds,
    nvlink_domain,
    placed_speed,
    slowest_writes,
)
from ftopt.solver.problem.multinode import network_rank, networked_build, spanning_hours, spanning_sizings


def _relaxations(run: Run, method: TrainingMethod) -> list[str]:
    hints = []
    if Optimizer.ADAMW_8BIT in method.offers.auto_optimizers and run.optimizer == "adamw-32bit":
        hints.append("optimizer adamw-8bit")
    if method.offers.cpu_offload and run.offload == "none":
        hints.append("offload cpu")
    if run.gpus != "auto":
        hints.append("gpus auto")
    if run.gradient_checkpointing is False:
        hints.append("gradient_checkpointing true")
    if run.micro_batch != "auto" and run.micro_batch > 1:
        hints.append("a smaller micro_batch")
    return hints


def _closest(run_sizings: list[Sizing]) -> Sizing:
    """The sizing nearest to fitting: an RL layout whose engine holds its weights before one whose
    engine does not, then the least excess memory (margin included), then the fewest GPUs."""
    return min(run_sizings, key=lambda s: (not s.rollout_fits, s.planned_gb - s.card_gb, s.gpus))


def _setup(s: Sizing) -> str:
    """How the closest sizing trains, with an RL copy's engine placement and whether it fits its share."""
    text = f"{s.strategy}, {s.optimizer}"
    if s.placement is not None:
        text += f", {s.placement} engine"
        text += "" if s.rollout_fits else " whose share cannot hold its weights and one sequence"
    return text


def _sizings(profile: RunProfile, gpu: Gpu, options: SizingOptions) -> list[Sizing]:
    """The run's sizings on the card; a multi-node GPU count (16-64), which `all_sizings` leaves to
    the server it runs on, is sized sharded over all its GPUs, the least memory it could take."""
    found = copy_sizings(profile, gpu, options, profile.rollout)
    if found:
        return found
    run = profile.run
    return [
        size_run(CopySetup(profile, gpu, gpus, Strategy.FSDP, optimizer, Offload.NONE, options))
        for gpus in gpu_count_choices(run)
        for optimizer in optimizer_choices(run, profile.method, profile.stack)
    ]


def _no_fit_reason(data: ProblemData, run_index: int, gpus: list[Gpu]) -> Finding:
    profile = data.profiles[run_index]
    closest = [_closest(_sizings(profile, gpu, data.workload.sizing)) for gpu in gpus]
    return finding(
        FindingKind.NO_FIT,
        profile.run.name,
        cards=[gpu.id for gpu in gpus],
        need_gb=[round(s.planned_gb, 3) for s in closest],
        margin=max((s.memory_margin for s in closest), default=0.0),
        gpus=[s.gpus for s in closest],
        setup=[_setup(s) for s in closest],
        card_gb=[gpu.memory_gb for gpu in gpus],
        relax=_relaxations(profile.run, profile.method)
        + (["a larger rollout memory_fraction"] if any(not s.rollout_fits for s in closest) else []),
    )


def _reachable(
    data: ProblemData, builds: list[Build], profile: RunProfile, mode: Mode, gpu: Gpu
) -> tuple[float, str | None] | None:
    """The hours at the run's deadline confidence (failures included) the mode can reach on the site's
    builds, and the link it assumed; None if no build holds it.

    The figure a plan of the mode would state on its fastest build and block (`_placed`: what the
    frontier draws for its fastest point); when that meets the deadline, the deadline filter refused
    the mode on its slowest placement, so that figure is named instead (`_slowest`)."""
    placed = _placed(data, builds, profile, mode, gpu)
    deadline = profile.run.deadline_hours
    if placed is not None and (deadline is None or placed[0] > deadline):
        return placed
    return _slowest(data, builds, profile, mode, gpu)


def _variants(data: ProblemData, builds: list[Build], mode: Mode, gpu: Gpu) -> list[tuple[Mode, list[Build]]]:
    """The mode as placed, or confined to an NVLink domain, each with the site's builds that hold it."""
    found = []
    for domain in sorted({mode.domain, nvlink_domain(gpu, data.catalogue, mode.gpus)}):
        variant = replace(mode, domain=max(domain, mode.domain))
        holding = [f for f in builds if compatible(variant, f)]
        if holding:
            found.append((variant, holding))
    return found


def _placed(
    data: ProblemData, builds: list[Build], profile: RunProfile, mode: Mode, gpu: Gpu
) -> tuple[float, str | None] | None:
    """The least hours at the run's deadline confidence a plan of the mode would state: on each build
    that holds it, each aligned block of its GPUs, with failures on the build's base data drives."""
    tokens, catalogue = profile.run.train_tokens, data.catalogue
    found = []
    for variant, holding in _variants(data, builds, mode, gpu):
        for build in holding:
            write_gbps = build.disk.drive.write_gbps * build.disk.count
            for start in range(0, build.gpu_count - variant.gpus + 1, variant.gpus):
                speed = placed_speed(profile, catalogue, variant, build, start)
                if tokens is None or speed is None:
                    continue
                held = held_hours(profile, mode.sizing, catalogue, hours_to_train(tokens, speed), write_gbps)
                found.append((held, speed.link))
    return min(found, key=lambda h: h[0]) if found else None


def _slowest(
    data: ProblemData, builds: list[Build], profile: RunProfile, mode: Mode, gpu: Gpu
) -> tuple[float, str | None] | None:
    """The hours the deadline filter credits the mode with: on its slowest placement (as placed, or
    confined to an NVLink domain; its cards at the highest power setting a build holding it gives),
    with failures at the slowest data drives its card's builds carry, and the slowest link."""
    found = []
    write_gbps = slowest_writes(builds).get(gpu.id)
    for variant, holding in _variants(data, builds, mode, gpu):
        cap = max(f.power_cap_w for f in holding)
        speeds = mode_speeds(profile, variant, gpu, data.catalogue, cap)
        hours = mode_hours(profile, variant, gpu, data.catalogue, cap)
        if hours is not None and speeds:
            held = held_hours(profile, mode.sizing, data.catalogue, hours, write_gbps)
            found.append((held, min(speeds, key=lambda s: s.tokens_per_s).link))
    return min(found, key=lambda h: h[0]) if found else None


#: (hours, GPUs, finding) of the fastest way found so far.
_Best = tuple[float, int, Finding]


def _late(run: Run, fastest: tuple[float, str | None], gpu: str, sizing: Sizing, servers: int = 1) -> Finding:
    """The deadline reason: the run's fastest way (`fastest`: its hours and slowest link) on `gpu`
    cards as `sizing` trains it, over `servers` servers."""
    hours, link = fastest
    return finding(
        FindingKind.DEADLINE,
        run.name,
        deadline_hours=run.deadline_hours,
        fastest_hours=round(hours, 3),
        confidence=run.deadline_confidence,
        gpu=gpu,
        gpus=sizing.gpus,
        servers=servers,
        strategy=sizing.strategy.value,
        optimizer=sizing.optimizer.value,
        offload=sizing.offload.value,
        link=link,
    )


def _fastest_single_server(
    data: ProblemData, run_index: int, gpus: list[Gpu], builds: list[Build]
) -> _Best | None:
    """The fastest way to train the run on one server of the site's builds."""
    profile = data.profiles[run_index]
    best: _Best | None = None
    for gpu in gpus:
        rank = speed_ranker(profile, gpu, data.catalogue)
        for mode in fitting_modes(run_index, profile, gpu, data.workload.sizing, None, rank):
            reached = _reachable(data, builds, profile, mode, gpu)
            if reached is not None and (best is None or (reached[0], mode.gpus) < best[:2]):
                reason = _late(profile.run, reached, gpu.id, mode.sizing)
                best = (reached[0], mode.gpus, reason)
    return best


def _fastest_multi_server(data: ProblemData, run_index: int, builds: list[Build]) -> _Best | None:
    """The fastest copy over several whole servers of one build, as the multi-node options size and
    time it (on the build's own host, NICs and power setting), within the site's server limit."""
    profile = data.profiles[run_index]
    if profile.run.train_tokens is None or profile.run.offload == Offload.CPU:
        return None
    best: _Best | None = None
    for build in builds:
        found = _fastest_on_servers_of(data, profile, build)
        if found is not None and (best is None or found[:2] < best[:2]):
            best = found
    return best


def _networked(catalogue: Catalogue, build: Build) -> tuple[Nic, Build] | None:
    """The build's fabric NIC and the build carrying it, None when it has no NIC with fabric kits."""
    nic = fabric_nic(catalogue, build.chassis)
    if nic is None or not fabric_kits(catalogue, nic):
        return None
    networked = networked_build(catalogue, build, nic)
    return None if networked is None else (nic, networked)


def _fastest_on_servers_of(data: ProblemData, profile: RunProfile, build: Build) -> _Best | None:
    """The fastest multi-node copy of the run on servers of one build, None when the build takes no
    fabric NICs or no such copy has hours."""
    catalogue, tokens = data.catalogue, profile.run.train_tokens
    pair = _networked(catalogue, build)
    if pair is None or tokens is None:
        return None
    nic, networked = pair
    net = node_network(build.gpu, build.gpu_count, nic, networked.nic_count, catalogue.speed)
    rank = network_rank(profile, networked, net, catalogue)
    limit = data.workload.site.max_servers
    best: _Best | None = None
    for servers, sizing in spanning_sizings(profile, build, net, data.workload.sizing, limit, rank):
        disk = cheapest_tier(build.disk_upgrades, sizing.nvme_gb / servers)
        hours = spanning_hours(profile, sizing, networked, net, catalogue, disk)
        if hours is not None and (best is None or (hours, sizing.gpus) < best[:2]):
            best = (hours, sizing.gpus, _late(profile.run, (hours, NETWORK), build.gpu.id, sizing, servers))
    return best


def _deadline_reason(data: ProblemData, run_index: int, gpus: list[Gpu]) -> Finding | None:
    """When the run fits but every way of training it misses its deadline: the fastest way, on one
    server or over several, and its hours (the figure the frontier's fastest point reaches)."""
    run = data.profiles[run_index].run
    if run.deadline_hours is None or run.train_tokens is None:
        return None
    builds = enumerate_builds(data.catalogue, data.workload).builds  # bridged ones included
    found = [
        b
        for b in (
            _fastest_single_server(data, run_index, gpus, builds),
            _fastest_multi_server(data, run_index, builds),
        )
        if b is not None
    ]
    if not found:
        return None
    hours, _, reason = min(found, key=lambda b: b[:2])
    return reason if hours > run.deadline_hours else None


def _no_server_reason(data: ProblemData, run_index: int) -> Finding:
    run = data.profiles[run_index].run
    modes = [data.modes[m] for m in data.modes_of(run_index)]
    needs = sorted(
        {f"{m.gpus} × {m.gpu}" + (f" in one NVLink domain of {m.domain}" if m.domain else "") for m in modes}
    )
    return finding(FindingKind.NO_SERVER, run.name, needs=needs)


def precheck(data: ProblemData) -> list[Finding]:
    """Reasons that rule the bid out before any search: per run, then per card."""
    gpus = allowed_gpus(data.catalogue, data.workload)
    buildable = [g for g in gpus if any(f.gpu.id == g.id for f in data.builds)]
    found = (_run_reason(data, run_index, buildable) for run_index in range(len(data.profiles)))
    reasons = [reason for reason in found if reason is not None]
    if not buildable:
        reasons = list(data.excluded) or [finding(FindingKind.NO_CARD, "hardware.gpus")]
    elif reasons:
        reasons += data.excluded
    return reasons


def _run_reason(data: ProblemData, run_index: int, buildable: list[Gpu]) -> Finding | None:
    """Why one run has no place before any search: no way of training it fits a buildable card,
    or no build takes any of its ways and it has no multi-node option; a missed deadline first."""
    modes = data.modes_of(run_index)
    if not modes and buildable:
        late = _deadline_reason(data, run_index, buildable)
        return late if late is not None else _no_fit_reason(data, run_index, buildable)
    if modes and not _placeable(data, run_index, modes):
        late = _deadline_reason(data, run_index, buildable)
        return late if late is not None else _no_server_reason(data, run_index)
    return None


def _placeable(data: ProblemData, run_index: int, modes: list[int]) -> bool:
    """Whether some build takes one of the run's modes, or the run has a multi-node option."""
    fits = any(compatible(data.modes[m], f) for m in modes for f in data.builds)
    return fits or data.has_multinode(run_index)


def _families_reasons(data: ProblemData, limit_in_core: bool) -> list[Finding]:
    """The families' own reasons, when the site's literal is in the core: their constraints share it,
    so each family that can tell why says so."""
    return families.impossible(data) if limit_in_core else []


def describe_core(data: ProblemData, core_runs: list[int], limit_in_core: bool) -> list[Finding]:
    """An assumption core as findings: which runs cannot run together under which limit, after any
    rule family's own reason (a liquid loop too small for any server) when the site's rules are in
    the core."""
    names = [data.profiles[r].run.name for r in core_runs]
    copies = sum(data.copies[r] for r in core_runs)
    site = data.workload.site
    limit = site.max_servers if limit_in_core else None
    own = _families_reasons(data, limit_in_core)
    if limit_in_core and site.racks is not None:  # the racks share the server limit's literal
        units = sum(rack.units for rack in site.racks)
        circuits = sum(len(rack.feeds) for rack in site.racks)
        loops = [rack.liquid_kw for rack in site.racks if rack.liquid_kw is not None]
        racks = f"{len(site.racks)} racks, {units} U, {circuits} circuits"
        racks += f", {sum(loops):g} kW of liquid loops" if loops else ""
        conflict = finding(
            FindingKind.CONFLICT, "runs", runs=names, copies=copies, max_servers=limit, racks=racks
        )
        return [*own, conflict]
    return [*own, finding(FindingKind.CONFLICT, "runs", runs=names, copies=copies, max_servers=limit)]
