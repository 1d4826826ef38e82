"""`ftopt.estimate`: how each run would train on each card and GPU count, without the solver.

Why a library function: the CLI's `ftopt estimate`, a notebook and a test all want the same records
(memory per GPU, host RAM, disk, traffic, step time, tokens/s, hours), and the rules that make them
belong to the model layer, not to a command. The CLI only renders these records.

Options on one server are every way the run's settings allow (`all_sizings`: GPU counts, strategies,
optimisers, offload; an RL run's layouts by role, `ftopt.model.rl.copy_sizings`). Options over
several servers are the multi-node counts (16, 32, 64 GPUs) on whole servers of each chassis that
takes the card and carries the fabric NIC, sized and timed as the solver sizes them
(`ftopt.model.fabric`). Speeds are the speed model's on a planning host with the
cards at full power; the step time is the speed model's, the one its tokens/s imply.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from ftopt.model.fabric import (
    Network,
    fabric_nic,
    multinode_copy_speed,
    multinode_strategies,
    nics_per_server,
    node_network,
)
from ftopt.model.hardware import Catalogue, Gpu, Nic
from ftopt.model.memory import trainable_params
from ftopt.model.references import allowed_gpus
from ftopt.model.rl import copy_sizings, copy_speed, multinode_any_sizings, multinode_any_speed
from ftopt.model.sizing import (
    CopySetup,
    Ranker,
    RunProfile,
    Sizing,
    gpu_count_choices,
    optimizer_choices,
    profile_run,
)
from ftopt.model.speed import Host, Speed, SpeedContext, hours_to_train, planning_host, speed_ranker
from ftopt.model.workload import MULTI_NODE_COUNTS, Offload, Run, SizingOptions, Workload


@dataclass(frozen=True)
class EstimateOption:
    """One way to train one copy of a run: its sizing, the servers it spans and its speed."""

    sizing: Sizing
    servers: int  # servers one copy takes: 1 on one server, k for a copy over k whole servers
    speed: Speed | None  # the speed model's estimate; None without a stack, speed data or a speed
    hours: float | None  # hours to train the run's train_tokens; None without them or a speed
    no_speed: str | None = None  # why the speed model gives this option no speed, where it gives none

    @property
    def node_gpus(self) -> int:
        """GPUs the copy takes on each of its servers."""
        return self.sizing.gpus // self.servers

    @property
    def tokens_per_s(self) -> float | None:
        """Tokens per second of the copy, all its GPUs together."""
        return self.speed.tokens_per_s if self.speed else None

    @property
    def step_seconds(self) -> float | None:
        """Seconds per optimiser step: the speed model's, consistent with `tokens_per_s`."""
        return self.speed.step_seconds if self.speed else None

    @property
    def bound_step_seconds(self) -> float:
        """The sizing's lower bound on a step at the workload's `sizing.mfu`, compute and transfer
        overlapped; a bound, not an estimate (the speed model's step is `step_seconds`)."""
        return self.sizing.step_seconds


@dataclass(frozen=True)
class RunEstimate:
    """One run's profile and every option it has on the allowed cards, in catalogue order."""

    profile: RunProfile
    options: tuple[EstimateOption, ...]

    @property
    def params(self) -> int:
        """Parameters of the run's model."""
        return self.profile.counts.total

    @property
    def trainable_params(self) -> int:
        """Parameters the run trains (all of them, or the adapters')."""
        run = self.profile.run
        return trainable_params(self.profile.counts, self.profile.method, run.lora_rank)


def _option(profile: RunProfile, sizing: Sizing, servers: int, speed: Speed | None) -> EstimateOption:
    why = None if speed is None else no_speed_reason(speed)
    if why is not None:  # a layout that cannot train: say why rather than divide by zero tokens/s
        return EstimateOption(sizing, servers, None, None, why)
    tokens = profile.run.train_tokens
    hours = hours_to_train(tokens, speed) if speed is not None and tokens else None
    return EstimateOption(sizing, servers, speed, hours)


def no_speed_reason(speed: Speed) -> str | None:
    """Why a speed estimate trains no tokens (an endless step), or None when it trains some.

    Why: an RL layout whose rollout engine has no room for one sequence's KV cache generates nothing,
    so its step never ends; the solver leaves such layouts out, the estimate must name them."""
    if speed.tokens_per_s > 0 and math.isfinite(speed.step_seconds):
        return None
    if not math.isfinite(speed.rollout_seconds):
        return (
            "no speed: the rollout engine cannot hold its weights and one sequence's KV cache in its "
            "share of these GPUs (rollout.memory_fraction, or more GPUs)"
        )
    return "no speed: the speed model's step for this layout does not end"


def single_server_options(
    profile: RunProfile, gpu: Gpu, catalogue: Catalogue, options: SizingOptions
) -> list[EstimateOption]:
    """Every sizing on one server, with the speed model's estimate on a planning host."""
    constants, stack = catalogue.speed, profile.stack
    result = []
    rollout = catalogue.rollout
    for sizing in copy_sizings(profile, gpu, options, rollout, speed_ranker(profile, gpu, catalogue)):
        speed = None
        if stack is not None and constants is not None:
            host = planning_host(catalogue, sizing.gpus, constants)
            speed = copy_speed(profile, sizing, gpu, SpeedContext(stack, constants, host), rollout)
        result.append(_option(profile, sizing, 1, speed))
    return result


def server_shapes(catalogue: Catalogue, gpu: Gpu) -> list[tuple[int, int, Nic]]:
    """(GPUs per server, fabric NICs per server, their NIC) of each chassis that takes the card and a
    NIC, by GPU count; of chassis with the same GPU count, the one with the most, then fastest, NICs."""
    shapes: dict[int, tuple[int, int, Nic]] = {}
    for chassis in catalogue.chassis:
        nics, nic = nics_per_server(chassis, chassis.gpu_slots), fabric_nic(catalogue, chassis)
        if not chassis.takes(gpu) or not nics or nic is None:
            continue
        shape = (chassis.gpu_slots, nics, nic)
        known = shapes.get(chassis.gpu_slots)
        if known is None or (nics, nic.port_gbits) > (known[1], known[2].port_gbits):
            shapes[chassis.gpu_slots] = shape
    return [shapes[n] for n in sorted(shapes)]


def _network_ranker(
    profile: RunProfile, gpu: Gpu, host: Host | None, net: Network, catalogue: Catalogue
) -> Ranker | None:
    """Seconds per token of a multi-node configuration by the speed model (None without speed data)."""
    constants = catalogue.speed
    if host is None or constants is None or profile.stack is None:
        return None

    def rank(sizing: Sizing) -> float:
        speed = multinode_copy_speed(profile, sizing, gpu, host, net, constants)
        return 1 / speed.tokens_per_s if speed is not None else float("inf")

    return rank


def multi_server_options(
    profile: RunProfile,
    gpu: Gpu,
    catalogue: Catalogue,
    options: SizingOptions,
    shapes: list[tuple[int, int, Nic]] | None = None,
) -> list[EstimateOption]:
    """Copies over several whole servers (16, 32 or 64 GPUs), as the solver sizes them: FSDP or HSDP,
    no CPU offload, the fabric NIC's measured bus bandwidth between servers. `shapes` are the card's
    `server_shapes`, when the caller has them (they depend on the card alone: worked out once per
    run and card, they took a tenth of `ftopt estimate` on 300 runs)."""
    if profile.run.offload == Offload.CPU:
        return []
    result = []
    for node_gpus, nics, nic in server_shapes(catalogue, gpu) if shapes is None else shapes:
        net = node_network(gpu, node_gpus, nic, nics, catalogue.speed)
        host = planning_host(catalogue, node_gpus, catalogue.speed) if catalogue.speed else None
        for gpus in _multi_node_counts(profile.run, node_gpus):
            result += _spread_options(profile, gpu, catalogue, options, gpus, node_gpus, host, net)
    return result


def _multi_node_counts(run: Run, node_gpus: int) -> list[int]:
    """The run's GPU counts that fill two or more whole servers of `node_gpus` (the solver's sizes)."""
    return [
        gpus
        for gpus in gpu_count_choices(run)
        if gpus in MULTI_NODE_COUNTS and gpus % node_gpus == 0 and gpus // node_gpus >= 2
    ]


def _spread_options(
    profile: RunProfile, gpu: Gpu, catalogue: Catalogue, options: SizingOptions, gpus: int,
    node_gpus: int, host: Host | None, net: Network,
) -> list[EstimateOption]:  # fmt: skip
    """Every sizing of a copy on `gpus` GPUs over servers of `node_gpus`, by strategy and optimizer,
    each with its speed where the catalogue has speed data."""
    rank = _network_ranker(profile, gpu, host, net, catalogue)
    found = []
    for strategy in multinode_strategies(profile.method):
        for optimizer in optimizer_choices(profile.run, profile.method, profile.stack):
            setup = CopySetup(profile, gpu, gpus, strategy, optimizer, Offload.NONE, options)
            for sizing in multinode_any_sizings(setup, net, catalogue.rollout, rank):
                speed = None
                if host is not None and catalogue.speed is not None:
                    speed = multinode_any_speed(
                        profile, sizing, gpu, host, net, catalogue.speed, catalogue.rollout
                    )
                found.append(_option(profile, sizing, gpus // node_gpus, speed))
    return found


def estimate(workload: Workload, catalogue: Catalogue, states_only: bool = False) -> list[RunEstimate]:
    """Every run of the workload on every allowed card (the workload's `hardware.gpus`, else the whole
    catalogue) and every GPU count, on one server and over several; `states_only` counts model states
    only, as published sizing tables do."""
    return list(iter_estimates(workload, catalogue, states_only))


def iter_estimates(
    workload: Workload, catalogue: Catalogue, states_only: bool = False
) -> Iterator[RunEstimate]:
    """`estimate`, one run at a time: each run's options are made only when it is asked for.

    Why: a workload of thousands of runs has millions of options; `ftopt estimate` renders each run
    and lets it go, so memory holds one run's options, not the whole workload's."""
    # States only is the articles' accounting: no planning margin either, unless the workload sets one.
    articles = {"states_only": True, "memory_margin": workload.sizing.memory_margin or 0.0}
    options = workload.sizing.model_copy(update=articles) if states_only else workload.sizing
    cards = allowed_gpus(catalogue, workload)
    shapes = {gpu.id: server_shapes(catalogue, gpu) for gpu in cards}  # per card, not per run and card
    for run in workload.runs:
        profile = profile_run(run, catalogue)
        found: list[EstimateOption] = []
        for gpu in cards:
            found += single_server_options(profile, gpu, catalogue, options)
            found += multi_server_options(profile, gpu, catalogue, options, shapes[gpu.id])
        yield RunEstimate(profile, tuple(found))
