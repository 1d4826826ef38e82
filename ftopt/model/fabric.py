"""Copies bigger than one server: their sizing, their traffic over the NICs, and the fabric's switches.

A *multi-node* copy takes k whole servers of one build, n GPUs each, N = k·n GPUs in all (N of 16,
32 or 64, `ftopt.model.workload.MULTI_NODE_COUNTS`). It trains with one of two strategies:

- `fsdp` (FSDP FULL_SHARD, ZeRO-3 over all N GPUs): states divided by N; every all-gather and
  reduce-scatter runs over all N ranks, so its ring crosses the network;
- `hsdp` (FSDP HYBRID_SHARD): states divided by the node's n GPUs, shards gathered inside the server
  over NVLink; only the gradient shards are all-reduced across the k servers, each GPU over its own
  rail.

Network time uses measured bus bandwidth (nccl-tests `busbw`, NCCL_ALGO=RING): about 47 GB/s per
400G NIC port and 24 GB/s per 200G one (`speed.yaml`, `network_bus_bandwidth_gbps`, with sources); a
node's ring runs at its NICs times that, and never faster than its own NVLink ring.

The fabric: servers that hold a multi-node copy carry NICs, one per GPU (rail-optimised, the HGX
default) or as many as the chassis' NIC slots allow, of the fastest model their slots carry in full
(an HGX B300 baseboard's PCIe Gen6 positions take an 800G ConnectX-8; Gen5 slots a 400G ConnectX-7).
A plan has one fabric: its switches take one NIC model's ports. Their ports go to one leaf switch while they
fit its ports; beyond that to a non-blocking two-level leaf–spine: leaves with half their ports down
and half up, spines enough for every uplink. Each link is one end-to-end cable unit's share (a DAC
splitter carries two NIC links; a twin-port DAC two leaf–spine links). Pure arithmetic, shared by the
solver and the verifier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ftopt.model.hardware import Cable, Catalogue, Chassis, Gpu, Nic, Switch
from ftopt.model.memory import BF16, GB
from ftopt.model.methods import TrainingMethod
from ftopt.model.parallelism import (
    DEGREES,
    LONG_SEQUENCE,
    Degrees,
    TrainingConfig,
    accumulation_for,
    default_config,
)
from ftopt.model.sizing import (
    CopySetup,
    Ranker,
    RunProfile,
    Sizing,
    size_run,
    undominated_configs,
)
from ftopt.model.speed import (
    Host,
    Speed,
    SpeedContext,
    bus_bandwidth_gbps,
    comm_bytes,
    estimate_speed,
    exposed_seconds,
    link_kind,
)
from ftopt.model.stack import SpeedConstants
from ftopt.model.workload import Offload, Strategy

#: How a multi-node copy may train (DDP would hold the whole states on every GPU: never needed).
MULTI_NODE_STRATEGIES = (Strategy.FSDP, Strategy.HSDP)


def multinode_strategies(method: TrainingMethod) -> tuple[Strategy, ...]:
    """How a copy of `method` may span servers: none when its weights cannot be sharded (DDP over
    servers would hold every state on every GPU, which one server's copy already does better)."""
    return MULTI_NODE_STRATEGIES if method.offers.sharded else ()


#: The link kind plans report for a copy that spans servers.
NETWORK = "network"


def nics_per_server(chassis: Chassis, gpu_count: int) -> int:
    """One NIC per GPU (rail-optimised), or as many as the chassis has NIC slots; 0: none fit."""
    return min(gpu_count, len(chassis.nic_slots))


def port_bus_gbps(nic: Nic, constants: SpeedConstants | None) -> float:
    """Measured ring bus bandwidth of one NIC port, GB/s: the speed data's figure for its line rate,
    else the data's share of the line rate (`network_line_rate_share`), else the line rate itself."""
    if constants is None:
        return nic.port_gbits / 8
    measured = constants.network_bus_bandwidth_gbps.get(nic.port_gbits)
    return measured if measured is not None else nic.port_gbits / 8 * constants.network_line_rate_share


def node_bus_gbps(nic: Nic, nics: int, constants: SpeedConstants | None) -> float:
    """A server's network bus bandwidth: its NIC ports times the measured figure per port."""
    return nics * nic.ports * port_bus_gbps(nic, constants)


def intra_bus_gbps(gpu: Gpu, node_gpus: int, constants: SpeedConstants | None) -> float:
    """Bus bandwidth of a ring inside one server: the measured figure of its link kind (speed.yaml),
    or without constants half the card's NVLink (else PCIe) bandwidth."""
    kind = link_kind(gpu, node_gpus)
    if constants is not None and kind is not None:
        return bus_bandwidth_gbps(kind, gpu, constants)
    both_ways = gpu.nvlink.bandwidth_gbps if gpu.nvlink else gpu.pcie_gbps
    return both_ways / 2


@dataclass(frozen=True)
class Network:
    """What the servers of a multi-node copy offer it: GPUs per server and the two rings' busbw."""

    node_gpus: int
    intra_gbps: float  # inside a server (NVLink/NVSwitch or PCIe)
    node_gbps: float  # across servers: the server's NICs


def multinode_comm(profile: RunProfile, strategy: Strategy, gpus: int, net: Network) -> tuple[float, float]:
    """(bus bytes per GPU per step, seconds) of one step's collectives.

    FSDP over N ranks: (N−1)/N · (2W + G) in one ring that crosses the network, at the slower of the
    server's NVLink ring and its NICs. HSDP: the same over the node's n GPUs inside the server, plus an
    all-reduce of each GPU's gradient shard G/n over the k servers, 2(k−1)/k · G/n, each GPU over its
    share of the node's NICs.
    """
    if strategy == Strategy.FSDP:
        data = comm_bytes(profile, Strategy.FSDP, gpus)
        return data, data / (min(net.intra_gbps, net.node_gbps) * 1e9)
    n, k = net.node_gpus, gpus // net.node_gpus
    inside = comm_bytes(profile, Strategy.FSDP, n)
    trainable = profile.method.trainable(profile.counts, profile.run.lora_rank)
    across = 2 * (k - 1) / k * trainable * BF16 / n
    seconds = inside / (net.intra_gbps * 1e9) + across / (net.node_gbps / n * 1e9)
    return inside + across, seconds


def shard_count(strategy: Strategy, gpus: int, node_gpus: int) -> int:
    """The GPUs a multi-node copy's states are divided over: all N under FSDP, the node's n under HSDP."""
    return node_gpus if strategy == Strategy.HSDP else gpus


def local_degrees(config: TrainingConfig, shard: int) -> Degrees:
    """The degrees of the `shard` GPUs a multi-node copy is sized and timed on: its context-parallel
    groups (inside one server) and the data-parallel ranks that fill the shard."""
    cp = config.degrees.cp
    return Degrees(dp=shard // cp, cp=cp)


def size_multinode(setup: CopySetup, net: Network, config: TrainingConfig | None = None) -> Sizing:
    """One copy over `setup.gpus` GPUs on servers of `net.node_gpus`: memory per GPU at its shard
    count, host RAM and NVMe of the whole copy (its servers share them), traffic and step time over
    the network. No CPU offload (`setup.offload` is not read): ZeRO-Offload across servers is not
    modelled. `config` (pure data parallelism over all the GPUs) gives the micro-batch and
    recomputation; by default the run's own."""
    profile, gpus, strategy = setup.profile, setup.gpus, setup.strategy
    shard = shard_count(strategy, gpus, net.node_gpus)
    whole = config or default_config(profile.run, gpus)
    local = replace(whole, degrees=local_degrees(whole, shard))
    on_shard = replace(setup, gpus=shard, strategy=Strategy.FSDP, offload=Offload.NONE)
    base = size_run(on_shard, config=local)
    data, seconds = multinode_comm(profile, strategy, gpus, net)
    return replace(
        base,
        gpus=gpus,
        strategy=strategy,
        traffic_gb_per_step=data / GB,
        link=NETWORK,
        transfer_seconds=seconds,
        config=whole,
    )


def multinode_speed(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, context: SpeedContext, net: Network
) -> Speed:
    """Tokens per second of a multi-node copy: the speed model's compute, optimiser and overhead of one
    GPU's shard (`estimate_speed`), with the communication of `multinode_comm` in place of one
    server's, a share of it hidden behind compute as the speed model hides it. The shard talks over
    its servers' own link kind (`context.link` is not read)."""
    shard = shard_count(sizing.strategy, sizing.gpus, net.node_gpus)
    whole = sizing.config or default_config(profile.run, sizing.gpus)
    local = replace(
        sizing, gpus=shard, strategy=Strategy.FSDP, config=replace(whole, degrees=local_degrees(whole, shard))
    )
    one = estimate_speed(profile, local, gpu, replace(context, link=link_kind(gpu, net.node_gpus)))
    _, comm = multinode_comm(profile, sizing.strategy, sizing.gpus, net)
    exposed = exposed_seconds(comm, one.compute_seconds, context.constants)
    per_gpu = one.tokens_per_step // shard
    return replace(
        one, tokens_per_step=per_gpu * sizing.gpus, comm_seconds=comm, exposed_comm_seconds=exposed, link=None
    )


# --- The fabric ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FabricKit:
    """One way to build the fabric: a switch model, the NIC its ports take, and the cable units."""

    switch: Switch
    nic: Nic
    nic_cable: Cable  # NIC to leaf
    link_cable: Cable  # leaf to spine


@dataclass(frozen=True)
class FabricSize:
    """The switches and cables `nic_ports` NIC ports need with one kit."""

    kit: FabricKit
    nic_ports: int
    leaves: int
    spines: int

    @property
    def uplinks(self) -> int:
        """Leaf–spine links: half of every leaf's ports when there are spines."""
        return self.leaves * (self.kit.switch.ports // 2) if self.spines else 0

    @property
    def nic_cables(self) -> int:
        """Cable units for the NIC links."""
        return math.ceil(self.nic_ports / self.kit.nic_cable.links)

    @property
    def link_cables(self) -> int:
        """Cable units for the leaf–spine links."""
        return math.ceil(self.uplinks / self.kit.link_cable.links)

    def quantities(self) -> list[tuple[str, str, int]]:
        """(item id, role, units) of every part, in bill order."""
        parts = [
            (self.kit.switch.id, "leaf", self.leaves),
            (self.kit.switch.id, "spine", self.spines),
            (self.kit.nic_cable.id, "switch-nic", self.nic_cables),
            (self.kit.link_cable.id, "switch-switch", self.link_cables),
        ]
        return [p for p in parts if p[2]]

    def price(self, catalogue: Catalogue) -> float:
        """What the switches and cables cost."""
        return sum(catalogue.price(item).amount * units for item, _, units in self.quantities())


def size_fabric(kit: FabricKit, nic_ports: int) -> FabricSize | None:
    """One leaf while the ports fit it; else leaves ≥ ports / (R/2) and spines ≥ uplinks / R with radix
    R; None beyond a two-level non-blocking tree (R²/2 ports) or with no ports."""
    radix = kit.switch.ports
    if nic_ports <= 0:
        return None
    if nic_ports <= radix:
        return FabricSize(kit, nic_ports, 1, 0)
    if nic_ports > radix * radix // 2:
        return None
    leaves = math.ceil(nic_ports / (radix // 2))
    return FabricSize(kit, nic_ports, leaves, math.ceil(leaves * (radix // 2) / radix))


def fabric_nic(catalogue: Catalogue, chassis: Chassis) -> Nic | None:
    """The NIC a multi-node server of `chassis` carries: of the NICs its slots carry in full
    (`Chassis.carries`), the fastest ports, then the cheapest, then by id."""
    return min(
        (n for n in catalogue.nics if chassis.carries(n)),
        key=lambda n: (-n.port_gbits, catalogue.price(n.id).amount, n.id),
        default=None,
    )


def _cheapest_cable(catalogue: Catalogue, joins: str, gbits: int) -> Cable | None:
    fitting = [c for c in catalogue.cables if c.joins == joins and c.gbits == gbits]
    return min(fitting, key=lambda c: (catalogue.price(c.id).amount / c.links, c.id), default=None)


def fabric_kits(catalogue: Catalogue, nic: Nic) -> list[FabricKit]:
    """Every switch model that takes `nic`'s ports at their rate, with its cheapest cables per link;
    in switch id order."""
    kits = []
    for switch in sorted(catalogue.switches, key=lambda s: s.id):
        if switch.port_gbits != nic.port_gbits or switch.fabric not in nic.fabrics:
            continue
        down = _cheapest_cable(catalogue, "switch-nic", switch.port_gbits)
        up = _cheapest_cable(catalogue, "switch-switch", switch.port_gbits)
        if down is not None and up is not None:
            kits.append(FabricKit(switch, nic, down, up))
    return kits


def cheapest_fabric(catalogue: Catalogue, nic: Nic, nic_ports: int) -> FabricSize | None:
    """The least-priced fabric for `nic_ports` ports of `nic` over every kit (first by switch id on ties)."""
    sized = [f for kit in fabric_kits(catalogue, nic) if (f := size_fabric(kit, nic_ports)) is not None]
    return min(sized, key=lambda f: (round(f.price(catalogue), 2), f.kit.switch.id), default=None)


# --- Time to train over the network ---------------------------------------------------------------


def node_network(gpu: Gpu, node_gpus: int, nic: Nic, nics: int, constants: SpeedConstants | None) -> Network:
    """What servers of `node_gpus` cards, each with `nics` × `nic`, offer a multi-node copy."""
    return Network(node_gpus, intra_bus_gbps(gpu, node_gpus, constants), node_bus_gbps(nic, nics, constants))


def multinode_copy_speed(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, host: Host, net: Network, constants: SpeedConstants
) -> Speed | None:
    """The speed model's tokens per second of a multi-node copy (None without a stack): the solver's
    deadline filter, the plan's figures and the verifier's re-check all ask this one function."""
    if profile.stack is None:
        return None
    return multinode_speed(profile, sizing, gpu, SpeedContext(profile.stack, constants, host), net)


def multinode_sizings(setup: CopySetup, net: Network, rank: Ranker | None = None) -> list[Sizing]:
    """The undominated configurations of one multi-node copy: data parallelism over all its GPUs,
    with context parallelism inside each server where the stack offers it and the sequence is long
    (tensor and pipeline parallelism across servers are not planned), at each micro-batch and
    recomputation the run allows; the largest micro-batch that fits per family, ranked by `rank`
    (seconds per token)."""
    profile, gpus = setup.profile, setup.gpus
    run = profile.run
    offered = profile.stack.parallelism.cp if profile.stack else "none"
    long = offered != "none" and run.seq_len >= LONG_SEQUENCE and profile.method.offers.model_parallel
    cps = [cp for cp in DEGREES if cp <= net.node_gpus and (cp == 1 or long)]
    if offered == "ulysses":
        cps = [cp for cp in cps if profile.arch.heads % cp == 0]
    configs: list[TrainingConfig] = []
    for cp in cps:
        for recompute in run.recompute_choices:
            for micro_batch in run.micro_batch_choices:
                degrees = Degrees(dp=gpus // cp, cp=cp)
                accumulation = accumulation_for(run, micro_batch, degrees)
                if accumulation is not None:
                    configs.append(TrainingConfig(micro_batch, accumulation, recompute, degrees))

    def size(config: TrainingConfig) -> Sizing:
        return size_multinode(setup, net, config)

    return undominated_configs(configs, size, rank)
