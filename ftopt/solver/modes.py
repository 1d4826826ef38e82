"""Training modes: the ways one copy of a run may train, after memory filtering and dominance.

A mode is a fitting `Sizing` (card, GPU count, strategy, optimiser, offload) plus what placement
needs from a server: its GPU count, the NVLink domain size its shards must share, the host RAM it
offloads to and the NVMe its checkpoints take. Modes that need no more of any resource than a
kept mode, and are no less preferred, are dropped before the model sees them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ftopt.model.hardware import Gpu
from ftopt.model.sizing import RunProfile, Sizing, all_sizings
from ftopt.model.workload import Offload, Optimizer, SizingOptions, Strategy
from ftopt.solver.builds import Build


@dataclass(frozen=True)
class Mode:
    """One way to place one copy of one run."""

    run: int  # index into the workload's runs
    sizing: Sizing
    domain: int  # NVLink domain size the GPUs must lie in; 0 when none is needed

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
        """Lower is preferred at equal price: 32-bit Adam, no offload, DDP over sharding over PCIe."""
        sizing = self.sizing
        return (
            (sizing.optimizer == Optimizer.ADAMW_8BIT)
            + (sizing.offload == Offload.CPU)
            + (sizing.strategy == Strategy.FSDP)
            + 2 * (sizing.sharded and self.domain == 0)
        )

    @property
    def resources(self) -> tuple[float, ...]:
        """What the mode takes from a server, each smaller-is-better."""
        return (self.gpus, self.domain, self.host_ram_gb, self.nvme_gb)


def required_domain(gpu: Gpu, sizing: Sizing, largest: int | None = None) -> int:
    """Sharded runs stay in one NVLink domain when one holds them, else span full-size domains.

    `largest` is the largest NVLink domain the card's builds offer (their topology: a bridge, an
    NVSwitch baseboard); by default the card's largest bridge. Cards without NVLink shard over PCIe
    (domain 0: no requirement); replicated (DDP) and single runs need no domain.
    """
    if largest is None:
        largest = max(gpu.nvlink.bridge_sizes, default=0) if gpu.nvlink else 0
    if sizing.strategy != Strategy.FSDP or gpu.nvlink is None or largest == 0:
        return 0
    return min(sizing.gpus, largest)


def fitting_modes(
    run_index: int, profile: RunProfile, gpu: Gpu, sizing_options: SizingOptions, largest: int | None = None
) -> list[Mode]:
    """Memory per GPU: only sizings whose states, activations and overhead fit the card."""
    return [
        Mode(run_index, s, required_domain(gpu, s, largest))
        for s in all_sizings(profile, gpu, sizing_options)
        if s.fits
    ]


def _dominates(a: Mode, b: Mode) -> bool:
    return (
        a.gpu == b.gpu
        and a.preference <= b.preference
        and all(x <= y for x, y in zip(a.resources, b.resources, strict=True))
    )


def prune_dominated(modes: list[Mode]) -> list[Mode]:
    """Drop modes another mode beats on every resource and on preference (first kept on ties)."""
    kept: list[Mode] = []
    for mode in sorted(modes, key=lambda o: (o.gpu, o.resources, o.preference)):
        if not any(_dominates(k, mode) for k in kept):
            kept.append(mode)
    return kept


def run_modes(
    run_index: int,
    profile: RunProfile,
    gpus: list[Gpu],
    sizing_options: SizingOptions,
    domains: Mapping[str, int] | None = None,
) -> list[Mode]:
    """All undominated, fitting modes of one run over the allowed cards; `domains` gives each
    card's largest NVLink domain over its builds (see `largest_domains`)."""
    found = [
        o
        for gpu in gpus
        for o in fitting_modes(run_index, profile, gpu, sizing_options, (domains or {}).get(gpu.id))
    ]
    return prune_dominated(found)


def largest_domains(builds: Iterable[Build]) -> dict[str, int]:
    """Per card id, the largest NVLink domain any of its builds' topologies offers."""
    largest: dict[str, int] = {}
    for build in builds:
        largest[build.gpu.id] = max(largest.get(build.gpu.id, 0), build.largest_domain)
    return largest
