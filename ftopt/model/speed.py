"""How fast one copy of a run trains, and how long and how much energy its tokens take.

Why a model of its own: `Sizing.step_seconds` is a lower bound at one MFU for every card and
framework, with nominal link bandwidth and no CPU Adam. Published measurements are off from it in
both directions, so this module estimates a step from its parts, each with data behind it:

- compute: FLOPs per token (linear layers, causal attention, the recomputed forward pass; a frozen
  base has no weight gradients) at the card's dense BF16 peak times the stack's achievable MFU for
  the card class and method (stacks.yaml); FP8 divides by the stack's FP8 speed-up where both the
  stack and the card offer FP8;
- QLoRA dequantisation: NF4 weights expanded to BF16 on every pass, at the card's memory bandwidth;
- communication: DDP all-reduces the gradients, FSDP all-gathers the weights twice and
  reduce-scatters the gradients, at the measured nccl-tests bus bandwidth of the link kind
  (speed.yaml), of which a share hides behind compute;
- ZeRO-Offload: gradients down and weights up over PCIe, and a CPU Adam step bounded by host memory
  bandwidth and by cores;
- the optimiser step on the card (it streams the states once) and a fixed per-step overhead;
- a power cap: compute slows by a published power–performance relation per card class (`at_power`).

Pure functions; no solver, no CLI. The solver can call `estimate_speed` per placement option.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from ftopt.model.architecture import Architecture, ParamCounts, full_attention_layers
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import ADAPTER_ADAM_32BIT, BF16, GB, frozen_base_bytes
from ftopt.model.methods import TrainingMethod
from ftopt.model.parallelism import (
    TrainingConfig,
    bubble_factor,
    cp_bytes,
    default_config,
    pp_bytes,
    tp_bus_bytes,
)
from ftopt.model.sizing import RunProfile, Sizing
from ftopt.model.stack import LinkKind, SpeedConstants, Stack
from ftopt.model.topology import Topology, build_graph, gpu_node, reference_topology, topology_profile
from ftopt.model.workload import Energy, Offload, Recompute, Strategy

#: Servers in the catalogue have eight slots; unbridged cards spread four under each socket.
SERVER_SLOTS = 8
DDR_BYTES_PER_TRANSFER = 8  # one 64-bit DDR5 channel


@dataclass(frozen=True)
class Host:
    """What the CPU side offers one copy: DRAM bandwidth (GB/s) and physical cores."""

    memory_gbps: float
    cores: int


@dataclass(frozen=True)
class SpeedContext:
    """Where one copy's speed is estimated: its training stack, the speed data (speed.yaml), what the
    host's CPU side gives it, and the link kind its GPUs talk over (None: the topology rules' kind
    for its card and GPU count).

    The speed functions of this module, `ftopt.model.fabric` and `ftopt.model.rl` take this one
    record rather than the same four parameters each (issue 27); the solver, the estimate and the
    verifier each build it from what they know of the copy's placement.
    """

    stack: Stack
    constants: SpeedConstants
    host: Host
    link: LinkKind | None = None


@dataclass(frozen=True)
class Speed:
    """Estimated speed of one copy: tokens per second and the parts of one optimiser step (seconds)."""

    tokens_per_step: int
    compute_seconds: float
    dequant_seconds: float
    comm_seconds: float  # all communication of a step
    exposed_comm_seconds: float  # the part not hidden behind compute
    offload_seconds: float  # PCIe copies and CPU Adam under ZeRO-Offload
    optimizer_seconds: float  # the optimiser step on the card
    overhead_seconds: float
    link: LinkKind | None
    mfu: float
    precision: str
    power_w: float | None = None  # the cards' power setting when capped (`at_power`); None: full power
    # An RL step's other phases (ftopt.model.rl): generation, scoring, the critic, weight sync, switch.
    rollout_seconds: float = 0.0
    parallel_seconds: float = 0.0  # exposed tensor, pipeline and context parallel exchanges

    @property
    def step_seconds(self) -> float:
        """One optimiser step: the parts that do not overlap, added."""
        return (
            self.compute_seconds
            + self.dequant_seconds
            + self.exposed_comm_seconds
            + self.parallel_seconds
            + self.offload_seconds
            + self.optimizer_seconds
            + self.overhead_seconds
            + self.rollout_seconds
        )

    @property
    def tokens_per_s(self) -> float:
        """Tokens the copy trains on per second, all its GPUs together."""
        return self.tokens_per_step / self.step_seconds


def matmul_params(counts: ParamCounts, arch: Architecture) -> int:
    """Parameters a text token multiplies through: all active ones but the input embedding lookup
    (an untied head is a matrix product, a tied one is the same matrix used once) and the vision tower."""
    lookup = counts.embeddings - arch.vocab * arch.hidden
    return counts.active - lookup - counts.vision


def flops_per_token(
    counts: ParamCounts, arch: Architecture, seq_len: int, method: TrainingMethod, recompute: Recompute
) -> float:
    """Training FLOPs per token, executed (recomputation included).

    Forward: 2 FLOPs per multiplied parameter plus causal attention, 2·s·a·d per full-attention layer
    (QKᵀ and AV at 4·s·a·d, halved by the causal mask that FlashAttention skips). Backward: twice
    the forward for the weights' input gradients and attention, and another 2 per parameter for weight
    gradients unless the base is frozen (LoRA, QLoRA; the adapters' own FLOPs are negligible). Full
    recomputation runs the forward once more.
    """
    linear = 2 * matmul_params(counts, arch)
    attention = full_attention_layers(arch) * 2 * seq_len * arch.heads * arch.head_dim
    forward = linear + attention
    backward = 2 * attention + (2 * linear if method.full else linear)
    recomputed = forward if recompute == Recompute.FULL else 0.0
    return forward + backward + recomputed


def nvlink_kind(bridge_size: int) -> LinkKind:
    """The measured link kind of GPUs that share one NVLink bridge of `bridge_size` cards."""
    return "nvlink-2" if bridge_size == 2 else "nvlink-4"


@lru_cache(maxsize=1024)
def _gpu_sockets(topology: Topology) -> tuple[int, ...]:
    """The socket each GPU's PCIe path leads to (through a PCIe switch where it has one)."""
    graph = build_graph(topology)
    return tuple(int(graph.nodes[gpu_node(i)]["socket"]) for i in range(topology.gpu_count))


def speed_link(topology: Topology, gpus: tuple[int, ...]) -> LinkKind | None:
    """The measured link kind of `gpus` in a server of this topology: their NVSwitch board or bridge
    when one domain holds them all, else PCIe within one socket or across sockets; None for one GPU."""
    if len(gpus) < 2:
        return None
    kind, _ = topology_profile(topology, gpus)
    if kind == "nvlink":
        return "nvswitch" if topology.nvswitch else nvlink_kind(topology.bridge_size)
    sockets = {_gpu_sockets(topology)[i] for i in gpus}
    return "pcie-socket" if len(sockets) == 1 else "pcie-cross-socket"


@lru_cache(maxsize=256)
def link_kind(gpu: Gpu, gpus: int) -> LinkKind | None:
    """The link kind `gpus` cards of this model talk over, placed as the reference server places
    them: an SXM module's NVSwitch board, the card's largest bridge when it holds the set, else PCIe
    within a socket or across the two (`speed_link` on the reference topology). None for one GPU."""
    if gpus < 2:
        return None
    nvswitch = gpu.on_baseboard and gpus <= SERVER_SLOTS
    bridge = 0 if nvswitch or gpu.nvlink is None else max(gpu.nvlink.bridge_sizes, default=0)
    nvlink_gbps = gpu.nvlink.bandwidth_gbps if gpu.nvlink else 0.0
    slots = max(SERVER_SLOTS, gpus)
    topology = reference_topology(slots, gpu.pcie_gbps, bridge, nvlink_gbps, nvswitch=nvswitch)
    return speed_link(topology, tuple(range(gpus)))


def bus_bandwidth_gbps(kind: LinkKind, gpu: Gpu, constants: SpeedConstants) -> float:
    """Measured all-reduce bus bandwidth of a link kind; PCIe scales with the card's own PCIe rate."""
    measured = constants.bus_bandwidth_gbps.of(kind)
    if kind.startswith("pcie"):
        return measured * gpu.pcie_gbps / constants.pcie_reference_gbps
    if kind == "nvswitch" and gpu.nvlink is not None:
        return measured * gpu.nvlink.bandwidth_gbps / constants.nvswitch_reference_gbps
    return measured


def comm_bytes(profile: RunProfile, strategy: Strategy, gpus: int, accumulation: int = 1) -> float:
    """Bus bytes per step in nccl-tests' terms (time = bytes / busbw), each collective over `gpus` ranks.

    DDP: one all-reduce of the BF16 gradients, 2(N−1)/N · G. FSDP: all-gather of the weights before the
    forward and again before the backward of every micro-batch, and a reduce-scatter of the gradients,
    (N−1)/N · (2W·k + G) for k accumulated micro-batches.
    """
    if strategy == Strategy.SINGLE or gpus < 2:
        return 0.0
    run, counts, method = profile.run, profile.counts, profile.method
    grads = method.trainable(counts, run.lora_rank) * BF16
    share = (gpus - 1) / gpus
    if strategy == Strategy.DDP:
        return 2 * share * grads
    weights = frozen_base_bytes(counts, method)
    return share * (2 * weights * accumulation + grads)


def dequant_seconds(
    profile: RunProfile, gpu: Gpu, constants: SpeedConstants, recompute: Recompute | None = None
) -> float:
    """A 4-bit base's dequantisation per micro-batch: every NF4 or GPTQ weight expanded once per pass
    (forward, backward, and the recomputed forward), at the card's memory bandwidth."""
    run = profile.run
    if not profile.method.four_bit:
        return 0.0
    passes = 3 if (recompute or run.recompute) == Recompute.FULL else 2
    per_param = profile.method.dequant_bytes_per_param or constants.qlora_dequant_bytes_per_param
    traffic = passes * profile.counts.linear * per_param
    return traffic / (gpu.memory_bandwidth_gbps * 1e9 * constants.hbm_efficiency)


def optimizer_seconds(profile: RunProfile, sizing: Sizing, gpu: Gpu, constants: SpeedConstants) -> float:
    """The optimiser step on the card streams its states once in and once out (none when offloaded)."""
    if sizing.offload == Offload.CPU:
        return 0.0
    run = profile.run
    if profile.method.full:
        state_bytes = sizing.states_gb * GB
    else:
        adapters = profile.method.trainable(profile.counts, run.lora_rank) * ADAPTER_ADAM_32BIT
        state_bytes = adapters / sizing.gpus if sizing.sharded else adapters
    return 2 * state_bytes / (gpu.memory_bandwidth_gbps * 1e9 * constants.hbm_efficiency)


def offload_seconds(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, constants: SpeedConstants, host: Host
) -> float:
    """ZeRO-Offload: each GPU sends its share of the BF16 gradients to the host and receives its share
    of the updated BF16 weights, one after the other over its PCIe link; between them the host runs
    Adam over all parameters, bounded by DRAM bandwidth or by cores, whichever is slower."""
    if sizing.offload != Offload.CPU:
        return 0.0
    params = profile.counts.total
    one_way = gpu.pcie_gbps / 2 * 1e9 * constants.offload_pcie_efficiency
    copies = 2 * (params * BF16 / sizing.gpus) / one_way
    adam = constants.cpu_adam
    by_memory = params * adam.bytes_per_param / (host.memory_gbps * 1e9)
    by_cores = params / (adam.params_per_core_s * host.cores)
    return copies + max(by_memory, by_cores)


def socket_dram_gbps(memory_channels: int, constants: SpeedConstants) -> float:
    """DRAM bandwidth one socket streams: all its channels at the platform's DDR5 rate, at the
    streaming efficiency CPU Adam reaches."""
    adam = constants.cpu_adam
    return memory_channels * adam.dimm_mts * 1e6 * DDR_BYTES_PER_TRANSFER / 1e9 * adam.stream_efficiency


def planning_host(catalogue: Catalogue, gpus: int, constants: SpeedConstants) -> Host:
    """The host a copy can count on in a catalogue server: the rules' cores per GPU, and one socket's
    DRAM bandwidth."""
    channels = max((cpu.memory_channels for cpu in catalogue.cpus), default=12)
    return Host(memory_gbps=socket_dram_gbps(channels, constants), cores=catalogue.rules.cores_per_gpu * gpus)


def uses_fp8(precision: str, stack: Stack, gpu: Gpu) -> bool:
    """FP8 only where the run asks for it and both the stack and the card offer it."""
    return precision == "fp8" and stack.fp8 is not None and gpu.fp8_dense_tflops is not None


def training_config(profile: RunProfile, sizing: Sizing, accumulation: int | None = None) -> TrainingConfig:
    """The sizing's configuration (the run's own settings over its GPUs when it has none), with
    `accumulation` micro-batches per step where the caller fixes it."""
    config = sizing.config or default_config(profile.run, sizing.gpus)
    return config if accumulation is None else replace(config, accumulation=accumulation)


def tp_link(gpu: Gpu, kind: LinkKind | None) -> LinkKind | None:
    """The link a tensor-parallel group talks over: its NVLink domain (the copy's own link when that
    is one, else the card's NVSwitch board or largest bridge); None for a card without NVLink."""
    if kind in ("nvswitch", "nvlink-2", "nvlink-4"):
        return kind
    if gpu.on_baseboard:
        return "nvswitch"
    if gpu.nvlink is None or not gpu.nvlink.bridge_sizes:
        return None
    return nvlink_kind(max(gpu.nvlink.bridge_sizes))


def model_parallel_seconds(
    profile: RunProfile, config: TrainingConfig, gpu: Gpu, context: SpeedContext, attention_seconds: float
) -> float:
    """Exposed seconds per step of tensor, pipeline and context parallelism.

    TP's all-reduces sit on the critical path of every layer (not hidden) on the NVLink domain; the
    pipeline's activations go point to point over the copy's link (`context.link`, as resolved: None
    when the copy has none); ring attention's K/V exchange hides behind the attention it feeds
    (`attention_seconds`), Ulysses' all-to-alls do not.
    """
    stack, constants, kind = context.stack, context.constants, context.link
    arch, seq = profile.arch, profile.run.seq_len
    seconds = 0.0
    tp_kind = tp_link(gpu, kind)
    if config.degrees.tp > 1 and tp_kind is not None:
        seconds += tp_bus_bytes(arch, seq, config) / (bus_bandwidth_gbps(tp_kind, gpu, constants) * 1e9)
    if kind is not None:
        busbw = bus_bandwidth_gbps(kind, gpu, constants) * 1e9
        seconds += pp_bytes(arch, seq, config) / busbw
        ring = stack.parallelism.cp == "ring"
        cp = cp_bytes(arch, seq, config, stack.parallelism.cp) / busbw
        seconds += max(0.0, cp - attention_seconds) if ring else cp
    return seconds


def attention_share(profile: RunProfile, recompute: Recompute) -> float:
    """The share of a step's FLOPs spent in attention (what ring attention hides its exchange behind)."""
    run, counts, arch = profile.run, profile.counts, profile.arch
    total = flops_per_token(counts, arch, run.seq_len, profile.method, recompute)
    linear_only = flops_per_token(counts, arch, 0, profile.method, recompute)
    return (total - linear_only) / total if total else 0.0


def exposed_seconds(comm: float, compute: float, constants: SpeedConstants) -> float:
    """Seconds of the `comm` exchange not hidden behind `compute`: the share (1 − overlap) that is
    never hidden, or all of what outlasts the compute, whichever is more."""
    return max(comm * (1 - constants.overlap), comm - compute)


def estimate_speed(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, context: SpeedContext, accumulation: int | None = None
) -> Speed:
    """Tokens per second of one copy trained as `sizing` says on `gpu` with `context.stack`.

    `context.link` overrides the link kind the topology rules would give (the solver knows the
    placement).
    The sizing's configuration gives the micro-batch, recomputation, degrees and the micro-batches
    per optimiser step (`accumulation` overrides it), which share one gradient exchange, one
    optimiser step and one step overhead (FSDP still gathers the weights for every micro-batch). The
    copy trains micro_batch × accumulation × dp sequences per step; each GPU computes its 1/G share,
    stretched by the pipeline's bubble.
    """
    run, stack, constants = profile.run, context.stack, context.constants
    config = training_config(profile, sizing, accumulation)
    d, m = config.degrees, config.accumulation
    kind = context.link if context.link is not None else link_kind(gpu, sizing.gpus)
    tokens_per_step = config.tokens_per_step(run.seq_len)
    method = profile.method
    mfu = stack.method_mfu(gpu.card_class, method.calibration)
    flops = flops_per_token(profile.counts, profile.arch, run.seq_len, method, config.recompute)
    # A method's measured extra time (DoRA's norms) stretches its calibrated method's matrix work.
    compute = flops * tokens_per_step / sizing.gpus / (gpu.bf16_dense_tflops * 1e12 * mfu)
    compute *= method.step_time_factor
    fp8 = uses_fp8(run.precision, stack, gpu)
    if fp8 and stack.fp8 is not None:
        compute /= stack.fp8.speedup
    busy = compute
    compute *= bubble_factor(config)
    comm = 0.0
    if kind is not None:
        data = comm_bytes(profile, sizing.strategy, d.data_ranks, m) / d.model_parallel
        comm = data / (bus_bandwidth_gbps(kind, gpu, constants) * 1e9)
    exposed = exposed_seconds(comm, compute, constants)
    attention = busy * attention_share(profile, config.recompute)
    parallel = model_parallel_seconds(profile, config, gpu, replace(context, link=kind), attention)
    return Speed(
        tokens_per_step=tokens_per_step,
        compute_seconds=compute,
        dequant_seconds=m * dequant_seconds(profile, gpu, constants, config.recompute),
        comm_seconds=comm,
        exposed_comm_seconds=exposed,
        offload_seconds=offload_seconds(profile, sizing, gpu, constants, context.host),
        optimizer_seconds=optimizer_seconds(profile, sizing, gpu, constants),
        overhead_seconds=constants.step_overhead_s,
        link=kind,
        mfu=mfu,
        precision="fp8" if fp8 else "bf16",
        parallel_seconds=parallel,
    )


def power_factor(gpu: Gpu, power_w: float, constants: SpeedConstants) -> float:
    """The share of full-power compute speed a card keeps at `power_w`: (power_w / full) ** exponent
    of its card class (speed.yaml, `power_exponent`); 1 at full power or above, and for a class
    without a published relation."""
    exponent = constants.power_exponent.get(gpu.card_class)
    if exponent is None or power_w >= gpu.power_w:
        return 1.0
    return float((power_w / gpu.power_w) ** exponent)


def at_power(speed: Speed, gpu: Gpu, power_w: float, constants: SpeedConstants) -> Speed:
    """The copy's speed with its cards at `power_w`: a power cap lowers the clock, so the compute part
    of a step stretches by 1 / `power_factor`; memory-bound parts, communication and the host keep
    their time, and less communication hides behind the longer compute."""
    factor = power_factor(gpu, power_w, constants)
    if factor == 1.0:
        return speed
    compute = speed.compute_seconds / factor
    comm = speed.comm_seconds
    exposed = exposed_seconds(comm, compute, constants)
    return replace(speed, compute_seconds=compute, exposed_comm_seconds=exposed, power_w=power_w)


def hours_to_train(train_tokens: int, speed: Speed) -> float:
    """Wall-clock hours for one copy to train on `train_tokens` tokens at its estimated speed."""
    return train_tokens / speed.tokens_per_s / 3600


def energy_kwh(gpu_power_w: float, gpus: float, hours: float, energy: Energy, host_w_per_gpu: float) -> float:
    """Energy a run's training draws from the grid: its hours × (the GPUs at their power setting + the
    host's share per GPU) × the room's PUE. The hours are training time already, so no utilisation
    factor: that share belongs to a server's years (`ftopt.model.timing.server_energy_kwh`)."""
    it_kw = gpus * (gpu_power_w + host_w_per_gpu) / 1000
    return it_kw * hours * energy.pue


def speed_ranker(profile: RunProfile, gpu: Gpu, catalogue: Catalogue) -> Callable[[Sizing], float] | None:
    """Seconds per token by the speed model on the reference placement and the planning host: how
    `all_sizings` ranks a copy's configurations (None without a stack or speed data)."""
    stack, constants = profile.stack, catalogue.speed
    if stack is None or constants is None:
        return None

    def rank(sizing: Sizing) -> float:
        host = planning_host(catalogue, sizing.gpus, constants)
        return 1 / estimate_speed(profile, sizing, gpu, SpeedContext(stack, constants, host)).tokens_per_s

    return rank
