"""Problem data: the runs, the frames and the options, with which option may go where.

Why two kinds of servers: most copies are *light* on a frame — their offloaded host RAM and their
NVMe fit within their GPUs' share of the frame's base RAM and disk — so any set of them that fits
the GPUs fits the server, and servers holding only light copies can be counted rather than named.
GPU counts of 1, 2, 4 and 8 in servers of 2, 4 or 8 have the buddy property (sizes divide each
other), so Σ GPUs ≤ servers × cards is exact for a pool of identical servers. A *heavy* copy (big
offload or checkpoints on few GPUs) needs its server's RAM and disk checked alone: it goes to an
explicit server slot, of which there are at most as many as heavy copies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ftopt.model.hardware import Catalogue
from ftopt.model.sizing import RunProfile, profile_run
from ftopt.model.workload import Workload
from ftopt.solver.builds import Frame, enumerate_frames
from ftopt.solver.options import Option, allowed_gpus, run_options


def compatible(option: Option, frame: Frame) -> bool:
    """Same card, the copy's GPUs fit the server, and its shards find an NVLink domain large enough."""
    if option.gpu != frame.gpu.id or option.gpus > frame.gpu_count:
        return False
    return option.domain == 0 or frame.domain_size >= option.domain


def light(option: Option, frame: Frame, reserve_gb: float) -> bool:
    """Whether the copy's host RAM and NVMe fit its GPUs' share of the frame's base RAM and disk."""
    share = option.gpus / frame.gpu_count
    return (
        option.host_ram_gb <= share * (frame.ram.gb - reserve_gb) and option.nvme_gb <= share * frame.disk.gb
    )


@dataclass
class ProblemData:
    """Everything the CP-SAT model is built from, precomputed and validated."""

    workload: Workload
    catalogue: Catalogue
    profiles: list[RunProfile]
    frames: list[Frame]
    options: list[Option]
    excluded: list[str]
    pool: list[tuple[int, int]] = field(default_factory=list)  # (option, frame) light pairs
    slot_pairs: list[tuple[int, int]] = field(default_factory=list)  # (option, frame), any weight
    slots: dict[int, int] = field(default_factory=dict)  # frame → number of explicit slots

    @property
    def copies(self) -> list[int]:
        """Copies of each run."""
        return [p.run.concurrent for p in self.profiles]

    def options_of(self, run: int) -> list[int]:
        """Indices of the options of one run."""
        return [i for i, o in enumerate(self.options) if o.run == run]

    def pool_bound(self, frame: int) -> int:
        """Most pool servers of one frame any plan could need: every light copy on it.

        Not capped by `site.max_servers`: that limit is a constraint of its own, so that an
        infeasible bid's assumption core can name it.
        """
        gpus = sum(
            self.options[o].gpus * self.copies[self.options[o].run] for o, f in self.pool if f == frame
        )
        return math.ceil(gpus / self.frames[frame].gpu_count)


def _classify(data: ProblemData) -> None:
    reserve = data.catalogue.rules.host_ram_reserve_gb
    heavy_copies: dict[int, set[int]] = {}
    for o, option in enumerate(data.options):
        for f, frame in enumerate(data.frames):
            if not compatible(option, frame):
                continue
            if light(option, frame, reserve):
                data.pool.append((o, f))
            else:
                heavy_copies.setdefault(f, set()).add(option.run)
    for f, runs in sorted(heavy_copies.items()):
        data.slots[f] = sum(data.copies[r] for r in runs)
    data.slot_pairs = [
        (o, f)
        for o, option in enumerate(data.options)
        for f in data.slots
        if compatible(option, data.frames[f])
    ]


def build_problem(workload: Workload, catalogue: Catalogue) -> ProblemData:
    """Frames, options and the pool/slot split for a workload."""
    frame_set = enumerate_frames(catalogue, workload)
    gpus = [g for g in allowed_gpus(catalogue, workload) if any(f.gpu.id == g.id for f in frame_set.frames)]
    profiles = [profile_run(run, catalogue) for run in workload.runs]
    options = [o for i, p in enumerate(profiles) for o in run_options(i, p, gpus, workload.sizing)]
    data = ProblemData(workload, catalogue, profiles, frame_set.frames, options, frame_set.excluded)
    _classify(data)
    return data
