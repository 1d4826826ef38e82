"""What every rule needs, resolved once: each server's catalogue parts, its interconnect, each copy's sizing.

The verifier trusts only ids, counts and choices in the plan (which card, how many, which GPUs, which
strategy); figures are re-derived from the catalogue and the workload with the model layer's sizing
arithmetic and topology (`ftopt.model`), never with the solver's code. An id that does not resolve
leaves its part `None`: the catalogue-id rule reports it, and rules needing the part skip the server
rather than report the same fault again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import networkx as nx

from ftopt.model.fabric import Network, intra_bus_gbps, node_bus_gbps, size_multinode
from ftopt.model.hardware import Bridge, Catalogue, Chassis, Cpu, Dimm, Drive, Feed, Gpu, Nic
from ftopt.model.memory import GB, model_states
from ftopt.model.mig import slice_card
from ftopt.model.parallelism import Degrees, TrainingConfig
from ftopt.model.plan import Assignment, Plan, Server
from ftopt.model.sizing import CopySetup, RunProfile, Sizing, profile_run, size_run
from ftopt.model.topology import build_graph as topology_graph
from ftopt.model.topology import reference_topology, topology_of
from ftopt.model.workload import Algorithm, Placement, Run, Workload
from ftopt.verify.role_memory import Expected, expected_roles, role_disk_gb, role_gpus

#: Servers or copies with more GPUs than this are not rebuilt as graphs (no real server has them;
#: the count rules report them).
MAX_GRAPH_GPUS = 64


@dataclass(frozen=True)
class Parts:
    """A server with the catalogue items its ids name (None where an id does not resolve)."""

    server: Server
    chassis: Chassis | None
    gpu: Gpu | None
    cpu: Cpu | None
    dimm: Dimm | None
    data_drive: Drive | None
    boot_drive: Drive | None
    bridge: Bridge | None
    feed: Feed | None
    nic: Nic | None = None

    @property
    def subject(self) -> str:
        """How violations name the server."""
        return f"server {self.server.id}"

    @property
    def bridge_resolved(self) -> bool:
        """No bridge, or a bridge id found in the catalogue."""
        return self.server.bridge is None or self.bridge is not None


def copy_subject(assignment: Assignment) -> str:
    """How violations name a run copy."""
    return f"run {assignment.run} copy {assignment.copy_}"


def _find_bridge(catalogue: Catalogue, bridge_id: str | None) -> Bridge | None:
    return next((b for b in catalogue.bridges if b.id == bridge_id), None) if bridge_id else None


def resolve(server: Server, catalogue: Catalogue) -> Parts:
    """The catalogue items a server's ids name."""
    c = catalogue
    return Parts(
        server=server,
        chassis=c.chassis_by_id(server.chassis) if c.has("chassis", server.chassis) else None,
        gpu=c.gpu(server.gpu) if c.has("gpus", server.gpu) else None,
        cpu=c.cpu(server.cpu) if c.has("cpus", server.cpu) else None,
        dimm=c.dimm(server.dimm) if c.has("dimms", server.dimm) else None,
        data_drive=c.drive(server.data_drive) if c.has("drives", server.data_drive) else None,
        boot_drive=c.drive(server.boot_drive) if c.has("drives", server.boot_drive) else None,
        bridge=_find_bridge(c, server.bridge),
        feed=c.feed(server.feed) if c.has("feeds", server.feed) else None,
        nic=c.nic(server.nic) if server.nic and c.has("nics", server.nic) else None,
    )


def build_graph(parts: Parts) -> nx.Graph | None:
    """The server's interconnect from its chassis, card, count and bridge (the model layer's
    topology), or None when they do not resolve. An unknown chassis leaves the reference
    two-socket placement; the catalogue-id rule reports the chassis."""
    server, gpu, bridge = parts.server, parts.gpu, parts.bridge
    if gpu is None or not parts.bridge_resolved or server.gpu_count > MAX_GRAPH_GPUS:
        return None
    size = bridge.size if bridge else 0
    if parts.chassis is not None:
        return topology_graph(topology_of(parts.chassis, gpu, size, server.gpu_count))
    nvlink = gpu.nvlink.bandwidth_gbps if gpu.nvlink else 0.0
    return topology_graph(reference_topology(server.gpu_count, gpu.pcie_gbps, size, nvlink))


#: Hours by which two scheduled jobs may touch (one ends as the next starts) without overlapping.
WINDOW_EPS = 1e-6

SizingKey = tuple[str, str, int, str, str, str, int, str | None, int, TrainingConfig | None]


def stated_config(assignment: Assignment, run: Run) -> TrainingConfig | None:
    """The training configuration the plan states for a copy, None when it states none (older plans:
    the run's own settings with pure data parallelism). A missing micro-batch, accumulation or
    recomputation beside stated degrees reads as the run's own."""
    degrees = assignment.parallelism
    if degrees is None:
        return None
    return TrainingConfig(
        assignment.micro_batch or run.micro_batch_choices[0],
        assignment.accumulation or 1,
        assignment.recompute or run.recompute,
        Degrees(degrees.dp, degrees.tp, degrees.pp, degrees.cp),
    )


def _sizing_key(a: Assignment, run: Run, card: Gpu, parts: Parts, config: TrainingConfig | None) -> SizingKey:
    """What a copy's sizing depends on, so copies alike are sized once: the run, the card (or its
    slice), the GPUs, the choices, the configuration and, over several servers, the servers' build."""
    multi = a.multinode
    return (
        run.name,
        card.id + (f"@{a.mig.profile}" if a.mig else ""),
        a.gpu_count,
        str(a.strategy),
        str(a.optimizer),
        str(a.offload),
        parts.server.gpu_count if multi else 0,
        parts.server.nic if multi else None,
        parts.server.nic_count if multi else 0,
        config,
    )


@dataclass
class Context:
    """The plan, the workload and the catalogue, with lookups every rule shares."""

    plan: Plan
    workload: Workload
    catalogue: Catalogue
    parts: dict[str, Parts] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    graphs: dict[str, nx.Graph | None] = field(default_factory=dict)
    windows: dict[tuple[str, int], tuple[float, float]] = field(default_factory=dict)
    _profiles: dict[str, RunProfile | None] = field(default_factory=dict)
    _sizings: dict[SizingKey, Sizing | None] = field(default_factory=dict)

    @classmethod
    def build(cls, plan: Plan, workload: Workload, catalogue: Catalogue) -> Context:
        """Resolve every server (the first of duplicate ids) and index the runs by name."""
        ctx = cls(plan, workload, catalogue)
        for server in plan.servers:
            if server.id not in ctx.parts:
                parts = resolve(server, catalogue)
                ctx.parts[server.id] = parts
                ctx.graphs[server.id] = build_graph(parts)
        ctx.runs = {run.name: run for run in workload.runs}
        for job in plan.schedule if workload.queue is not None else ():
            ctx.windows.setdefault((job.run, job.job), (job.start_hours, job.end_hours))
        return ctx

    @property
    def queued(self) -> bool:
        """Whether the workload is a queue bid: each assignment is one job, its hours in `windows`."""
        return self.workload.queue is not None

    def expected_copies(self, run: Run) -> int:
        """Copies a plan places of a run: its jobs in queue mode, else its concurrent copies."""
        return run.job_count if self.queued else run.concurrent

    def overlap(self, a: Assignment, b: Assignment) -> bool:
        """Whether two copies train at the same time: always outside queue mode, and in it when their
        scheduled hours intersect (a job without an entry is taken to overlap everything)."""
        if not self.queued:
            return True
        wa, wb = self.windows.get((a.run, a.copy_)), self.windows.get((b.run, b.copy_))
        if wa is None or wb is None:
            return True
        return wa[0] < wb[1] - WINDOW_EPS and wb[0] < wa[1] - WINDOW_EPS

    def busiest(
        self, copies: list[tuple[Assignment, Sizing | None]], weight: Callable[[Sizing], float]
    ) -> list[tuple[Assignment, Sizing | None]]:
        """The copies of one server that run together with the largest total `weight`: all of them
        outside queue mode; in it, those running when some job starts (a sum over time peaks at a start)."""
        if not self.queued:
            return copies
        best: list[tuple[Assignment, Sizing | None]] = []
        best_weight = -1.0
        for a, _ in copies:
            together = [(b, s) for b, s in copies if b is a or self._starts_within(a, b)]
            total = sum(weight(s) for _, s in together if s is not None)
            if total > best_weight:
                best, best_weight = together, total
        return best

    def _starts_within(self, a: Assignment, b: Assignment) -> bool:
        """Whether `b` is running at the moment `a` starts."""
        wa, wb = self.windows.get((a.run, a.copy_)), self.windows.get((b.run, b.copy_))
        if wa is None or wb is None:
            return True
        return wb[0] <= wa[0] + WINDOW_EPS and wa[0] < wb[1] - WINDOW_EPS

    def servers(self) -> Iterator[Parts]:
        """Each distinct server with its parts."""
        yield from self.parts.values()

    def confidence(self, run: Run) -> float | None:
        """The confidence the run's deadline holds at, and a queue's jobs are scheduled at (a loaded
        workload gives every run one); None: its bare hours."""
        return run.deadline_confidence

    def profile(self, run: Run) -> RunProfile | None:
        """The run with its model resolved (None if the model is not in the catalogue)."""
        if run.name not in self._profiles:
            try:
                self._profiles[run.name] = profile_run(run, self.catalogue)
            except KeyError:
                self._profiles[run.name] = None
        return self._profiles[run.name]

    def sizing(self, assignment: Assignment) -> Sizing | None:
        """The copy re-sized from its run, its server's card and its GPU count and choices.

        None when the run, the server or its card is unknown, or the copy has no GPUs (or absurdly
        many): other rules report those.
        """
        run = self.runs.get(assignment.run)
        parts = self.parts.get(assignment.server)
        gpus = assignment.gpu_count
        card = self.card(assignment)
        if run is None or parts is None or card is None or not 1 <= gpus <= MAX_GRAPH_GPUS:
            return None
        if run.algorithm != Algorithm.SFT:  # its roles, at the run's own settings (RL: not configured)
            return self._rl_sizing(assignment, run, card)
        config = stated_config(assignment, run)
        if config is not None and config.degrees.gpus != gpus:
            return None  # the parallelism rule reports it
        key = _sizing_key(assignment, run, card, parts, config)
        if key not in self._sizings:
            self._sizings[key] = (
                self._multinode_sizing(assignment, run, parts)
                if assignment.multinode
                else self._server_sizing(assignment, run, card, config)
            )
        return self._sizings[key]

    def _server_sizing(
        self, a: Assignment, run: Run, card: Gpu, config: TrainingConfig | None
    ) -> Sizing | None:
        """A one-server copy sized by the model layer at its stated choices and configuration."""
        profile = self.profile(run)
        if profile is None:
            return None
        setup = CopySetup(
            profile, card, a.gpu_count, a.strategy, a.optimizer, a.offload, self.workload.sizing
        )
        return size_run(setup, config=config)

    def _policy_sizing(self, a: Assignment, run: Run, gpu: Gpu) -> Sizing | None:
        """An RL copy's policy re-sized as a supervised run on the GPUs the copy lists for it, or over
        all its servers for a multi-node copy (a micro-batch holds each sample's sequences: DPO's
        chosen and rejected pair, the registry's `sequences_per_sample`)."""
        profile = self.profile(run)
        train = len(role_gpus(a, "policy")) or a.gpu_count
        if profile is None or not 1 <= train <= MAX_GRAPH_GPUS:
            return None
        per_sample = self.catalogue.methods.algorithm(run.algorithm).sequences_per_sample
        if per_sample > 1:
            micro_batch = per_sample * run.micro_batch_choices[0]
            profile = replace(profile, run=run.model_copy(update={"micro_batch": micro_batch}))
        if a.multinode:
            parts = self.parts.get(a.server)
            return None if parts is None else self._multinode_sizing(a, run, parts, profile)
        return size_run(
            CopySetup(profile, gpu, train, a.strategy, a.optimizer, a.offload, self.workload.sizing)
        )

    def card(self, a: Assignment) -> Gpu | None:
        """The card a copy trains on: its server's, or the GPU slice of it the copy names (with the
        slice's memory, compute and bandwidth shares); None when either is unknown (other rules say so)."""
        parts = self.parts.get(a.server)
        if parts is None or parts.gpu is None or a.mig is None:
            return None if parts is None else parts.gpu
        profile = parts.gpu.mig.profile(a.mig.profile) if parts.gpu.mig else None
        return slice_card(parts.gpu, profile) if profile else None

    def role_memory(self, a: Assignment) -> Expected | None:
        """Each role's memory per GPU for an RL copy, as the verifier derives it."""
        run, parts = self.runs.get(a.run), self.parts.get(a.server)
        if run is None or parts is None or parts.gpu is None:
            return None
        policy = self._policy_sizing(a, run, parts.gpu)
        return None if policy is None else self._roles(a, run, parts.gpu, policy)

    def _roles(self, a: Assignment, run: Run, gpu: Gpu, policy: Sizing) -> Expected:
        """Each role's memory per GPU, from the policy's sizing."""
        return expected_roles(
            self.catalogue, a, run, gpu.memory_gb, policy.states_gb, policy.total_gb, policy.overhead_gb
        )

    def _rl_sizing(self, a: Assignment, run: Run, gpu: Gpu) -> Sizing | None:
        """An RL copy: its policy's sizing with the other roles on the training GPUs and the engine's
        share (what the card must hold, free memory and host RAM include them)."""
        policy = self._policy_sizing(a, run, gpu)  # once: the roles are derived from it too
        profile = self.profile(run)
        if policy is None or profile is None:
            return None
        expected = self._roles(a, run, gpu, policy)
        others = sum(gb for role, gb in expected.memory.items() if role not in ("policy", "rollout"))
        critic_host = 0.0
        if "critic" in expected.memory:
            master = profile.stack.master_weights if profile.stack else "fp32"
            states = model_states(
                profile.counts, profile.method, a.optimizer, a.offload, run.lora_rank, master_weights=master
            )
            critic_host = states.host_bytes / GB
        return replace(
            policy,
            gpus=a.gpu_count,
            train_gpus=a.gpu_count if a.multinode else policy.gpus,
            roles_gb=others,
            rollout_gb=expected.memory.get("rollout", 0.0),
            engine_idle_gb=expected.engine_idle_gb,
            generation_gb=expected.generation_gb,
            placement=Placement(a.placement) if a.placement else None,
            host_ram_gb=policy.host_ram_gb + critic_host,
            nvme_gb=policy.nvme_gb + role_disk_gb(self.catalogue, run, a.optimizer, profile.counts),
        )

    def _multinode_sizing(
        self, a: Assignment, run: Run, parts: Parts, profile: RunProfile | None = None
    ) -> Sizing | None:
        """A copy over several servers, sized at its shard count with its first node's network (the
        multinode rules check that every node is the same build with the same NICs)."""
        profile, gpu, nic = profile or self.profile(run), parts.gpu, parts.nic
        n, nics = parts.server.gpu_count, parts.server.nic_count
        if profile is None or gpu is None or nic is None or nics < 1 or n < 1 or a.gpu_count % n:
            return None
        speed = self.catalogue.speed
        net = Network(n, intra_bus_gbps(gpu, n, speed), node_bus_gbps(nic, nics, speed))
        config = stated_config(a, run)
        setup = CopySetup(profile, gpu, a.gpu_count, a.strategy, a.optimizer, a.offload, self.workload.sizing)
        return size_multinode(setup, net, config)

    def copies_by_server(self) -> dict[str, list[tuple[Assignment, Sizing | None]]]:
        """Each server id's copies with their re-sizings; a multi-node copy appears on each of its
        servers with that server's share of its host RAM and NVMe."""
        grouped: dict[str, list[tuple[Assignment, Sizing | None]]] = defaultdict(list)
        for assignment in self.plan.assignments:
            sizing = self.sizing(assignment)
            if not assignment.multinode:
                grouped[assignment.server].append((assignment, sizing))
                continue
            k = len(assignment.nodes)
            share = (
                replace(sizing, host_ram_gb=sizing.host_ram_gb / k, nvme_gb=sizing.nvme_gb / k)
                if sizing is not None
                else None
            )
            for server in dict.fromkeys(node.server for node in assignment.nodes):
                grouped[server].append((assignment, share))
        return grouped
