"""Sizing one run on one card: memory per GPU, host RAM, disk, traffic and step time together.

This is where the separate rules (memory.py, activations.py, traffic.py, topology.py) meet. The
estimate command prints these records; the solver turns the ones that fit into placement options.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from ftopt.model.activations import (
    FP32,
    SELECTIVE_LAYER,
    MicroBatch,
    logits_bytes,
    offloadable_activation_bytes,
    overhead_bytes,
    resident_activation_bytes,
    working_activation_bytes,
)
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import (
    BF16,
    GB,
    States,
    checkpoint_bytes,
    dequant_buffer_bytes,
    frozen_base_bytes,
    model_states,
    nvme_bytes,
    states_per_gpu,
    upcast_rest_bytes,
)
from ftopt.model.methods import TrainingMethod
from ftopt.model.parallelism import (
    TrainingConfig,
    bubble_factor,
    config_choices,
    default_config,
    last_stage_activations,
    split_activations,
)
from ftopt.model.profile import RunProfile as RunProfile  # where callers have long imported it
from ftopt.model.roles import RoleMemory
from ftopt.model.stack import LEGACY_ALLOCATOR_RESERVE, Stack
from ftopt.model.topology import link_profile, reference_topology, topology_profile
from ftopt.model.traffic import (
    compute_seconds,
    step_flops,
    traffic_bytes_per_step,
    transfer_seconds,
)
from ftopt.model.workload import (
    DEFAULT_STACK,
    GPU_COUNTS,
    MULTI_NODE_COUNTS,
    Offload,
    Optimizer,
    Placement,
    Recompute,
    Run,
    SizingOptions,
    Strategy,
)

#: Bytes per logit entry without a stack: the default stack's (hf-fsdp) figure.
LEGACY_LOGIT_BYTES = 12.0


def run_stack(run: Run, catalogue: Catalogue) -> Stack | None:
    """The run's stack (the workload's when loaded through a Workload), if the catalogue has stacks."""
    stack_id = run.stack or DEFAULT_STACK
    return catalogue.stack(stack_id) if catalogue.has("stacks", stack_id) else None


def stack_margin(run: Run, catalogue: Catalogue) -> float:
    """The planning memory margin of the run's stack and method (or the method it is calibrated as),
    0 without a margins file."""
    margins = catalogue.margins
    method = catalogue.methods.method(run.method).calibration
    return margins.of(run.stack or DEFAULT_STACK, method) if margins else 0.0


def stack_margin_basis(run: Run, catalogue: Catalogue) -> str:
    """Where the run's stack and method margin comes from (its own cross-validated error, pooled, or issue
    19's figures), for the method it is calibrated as."""
    margins = catalogue.margins
    method = catalogue.methods.method(run.method).calibration
    return margins.basis(run.stack or DEFAULT_STACK, method) if margins else "no calibration"


def profile_run(run: Run, catalogue: Catalogue) -> RunProfile:
    """Resolve the run's model and reward model (catalogue ids or inline architectures), its stack,
    margin (with its basis) and the allocator reserve."""
    stack, margin = run_stack(run, catalogue), stack_margin(run, catalogue)
    reward = run.reward_model
    if isinstance(reward, str):
        reward_arch: Architecture | None = catalogue.model(reward).architecture
    else:
        reward_arch = None if reward is None else reward.architecture
    method, rollout = catalogue.methods.method(run.method), catalogue.rollout
    name, arch = (
        (run.model.name, run.model.architecture)
        if not isinstance(run.model, str)
        else (catalogue.model(run.model).name, catalogue.model(run.model).architecture)
    )
    basis = stack_margin_basis(run, catalogue)
    reserve = catalogue.margins.reserve() if catalogue.margins else LEGACY_ALLOCATOR_RESERVE
    return RunProfile(
        run,
        name,
        arch,
        stack,
        margin,
        reward_arch,
        method=method,
        algorithm=catalogue.methods.algorithm(run.algorithm),
        rollout=rollout,
        margin_basis=basis,
        allocator_reserve=reserve,
    )


@dataclass(frozen=True)
class CopySetup:
    """What one copy is sized for: the run (with its model and stack), the card, how many of them,
    and how it trains (strategy, optimiser, offload) under the workload's sizing options.

    The sizing functions of this module, `ftopt.model.fabric` and `ftopt.model.rl` all take this one
    record rather than the same seven positional parameters each (issue 27), so that a new setting
    is added once and a caller cannot pass the optimiser where the offload belongs. A multi-node copy
    (`ftopt.model.fabric.size_multinode`) never offloads, whatever `offload` says.
    """

    profile: RunProfile
    gpu: Gpu
    gpus: int
    strategy: Strategy
    optimizer: Optimizer
    offload: Offload
    options: SizingOptions


@dataclass(frozen=True)
class Sizing:
    """One way to train one copy of a run: card, GPU count, strategy, optimiser and offload."""

    run: str
    gpu: str
    gpus: int
    strategy: Strategy
    optimizer: Optimizer
    offload: Offload
    states_gb: float
    activations_gb: float
    overhead_gb: float
    card_gb: float
    host_ram_gb: float
    checkpoint_gb: float
    nvme_gb: float
    traffic_gb_per_step: float
    link: str | None
    compute_seconds: float
    transfer_seconds: float
    memory_margin: float = 0.0
    memory_margin_basis: str = "no calibration"  # the workload's, or the calibration's (RunProfile)
    measured_margin: float = 0.0  # the stack and method's cross-validated error, whatever the workload sets
    # Preference and RL runs (ftopt.model.rl); a supervised run keeps the defaults.
    train_gpus: int = 0  # GPUs that train the policy (the rest hold a separate engine); 0: all
    roles_gb: float = 0.0  # reference, reward and critic per training GPU
    rollout_gb: float = 0.0  # the rollout engine per GPU that holds it
    engine_idle_gb: float = 0.0  # what a colocated engine keeps per GPU while the policy trains
    generation_gb: float = 0.0  # a colocated copy's memory per GPU while its engine generates
    placement: Placement | None = None  # where the rollout engine generates
    rollout_fits: bool = True  # whether the engine's weights and one sequence fit its share
    roles: tuple[RoleMemory, ...] = ()
    config: TrainingConfig | None = None  # None: the run's own settings, pure data parallelism

    @property
    def training_phase_gb(self) -> float:
        """Memory per training GPU while the policy trains: states, activations and overhead, the
        other roles of an RL copy there, and what a colocated engine keeps meanwhile."""
        engine = self.engine_idle_gb if self.placement == Placement.COLOCATED else 0.0
        return self.states_gb + self.activations_gb + self.overhead_gb + self.roles_gb + engine

    @property
    def total_gb(self) -> float:
        """Peak memory per training GPU: the training phase's, or a colocated copy's generation
        phase's where that is larger (the two take turns, so their peaks do not add)."""
        if self.placement != Placement.COLOCATED:
            return self.training_phase_gb
        return max(self.training_phase_gb, self.generation_gb)

    @property
    def planned_gb(self) -> float:
        """Memory per GPU with the planning margin: what the card must hold so that the copy runs
        even where the memory model errs low as it did on the calibration's sources (an RL copy's
        roles and colocated engine share included)."""
        return self.total_gb * (1 + self.memory_margin)

    @property
    def fits(self) -> bool:
        """Whether the card holds it, margin included (and the rollout engine its share)."""
        return self.planned_gb <= self.card_gb and self.rollout_fits

    @property
    def headroom_gb(self) -> float:
        """Card memory left after the margin (negative when it does not fit)."""
        return self.card_gb - self.planned_gb

    @property
    def free_gb(self) -> float:
        """Card memory left (negative when it does not fit)."""
        return self.card_gb - self.total_gb

    @property
    def step_seconds(self) -> float:
        """Lower bound of a step: compute and transfer overlap perfectly."""
        return max(self.compute_seconds, self.transfer_seconds)

    @property
    def sharded(self) -> bool:
        """Whether the states are split over several GPUs."""
        return self.strategy in (Strategy.FSDP, Strategy.HSDP)


def optimizer_choices(run: Run, method: TrainingMethod, stack: Stack | None = None) -> tuple[Optimizer, ...]:
    """`auto` chooses among what the method offers (a full fine-tune 32- or 8-bit Adam, adapters
    32-bit moments) and the stack offers. Paged optimisers are only used when asked for by name."""
    if run.optimizer != "auto":
        return (Optimizer(run.optimizer),)
    offered = stack.optimizers if stack else (Optimizer.ADAMW_32BIT, Optimizer.ADAMW_8BIT)
    wanted = method.offers.auto_optimizers
    return tuple(o for o in wanted if o in offered) or (Optimizer(offered[0]),)


def offload_choices(run: Run, method: TrainingMethod, stack: Stack | None = None) -> tuple[Offload, ...]:
    """`auto` offloads where both the method (a full fine-tune, not an adapter) and the stack offer it."""
    if run.offload != "auto":
        return (Offload(run.offload),)
    can_offload = stack.cpu_offload if stack else True
    return (Offload.NONE, Offload.CPU) if method.offers.cpu_offload and can_offload else (Offload.NONE,)


def optimizer_offload_choices(profile: RunProfile) -> list[tuple[Optimizer, Offload]]:
    """The (optimiser, offload) pairs the run may train with: CPU offload runs DeepSpeed's 32-bit CPU
    Adam, so it pairs with adamw-32bit only."""
    run, method, stack = profile.run, profile.method, profile.stack
    return [
        (optimizer, offload)
        for optimizer in optimizer_choices(run, method, stack)
        for offload in offload_choices(run, method, stack)
        if not (offload == Offload.CPU and optimizer != Optimizer.ADAMW_32BIT)
    ]


def gpu_count_choices(run: Run) -> tuple[int, ...]:
    """The GPU counts a copy may use: on one server (1-8) or, under `auto` or when asked, over several
    (16, 32, 64; sized by `ftopt.model.fabric.size_multinode`)."""
    return GPU_COUNTS + MULTI_NODE_COUNTS if run.gpus == "auto" else (int(run.gpus),)


def strategy_choices(gpus: int, sharded: bool = True) -> tuple[Strategy, ...]:
    """One GPU trains alone; several either replicate (DDP) or shard (FSDP), when the method's
    weights can be sharded (`Offers.sharded`)."""
    if gpus == 1:
        return (Strategy.SINGLE,)
    return (Strategy.DDP, Strategy.FSDP) if sharded else (Strategy.DDP,)


@lru_cache(maxsize=1024)  # pure in its (frozen) card and count; RL layouts ask it hundreds of times
def intended_link(gpu: Gpu, gpus: int) -> tuple[str | None, float | None]:
    """Link kind and bottleneck bandwidth of `gpus` cards placed as the rules place them.

    A set that fits the card's largest bridge shares one NVLink domain; a larger set spans domains
    over PCIe; cards without NVLink talk over PCIe. An SXM module sits on an NVSwitch baseboard
    of eight, which holds every copy (at most eight GPUs) in one domain.
    """
    nvlink = gpu.nvlink.bandwidth_gbps if gpu.nvlink else 0.0
    if gpu.on_baseboard:
        topology = reference_topology(max(8, gpus), gpu.pcie_gbps, 0, nvlink, nvswitch=True)
        return topology_profile(topology, tuple(range(gpus)))
    bridge = max(gpu.nvlink.bridge_sizes, default=0) if gpu.nvlink else 0
    return link_profile(max(8, gpus), gpu.pcie_gbps, bridge, nvlink, tuple(range(gpus)))


def upcasts_qlora(profile: RunProfile) -> bool:
    """Whether the run is QLoRA on a stack that casts the non-quantised parameters to FP32 (PEFT's
    prepare_model_for_kbit_training; `Stack.qlora_fp32_upcast`). NF4 only: the same function leaves a
    GPTQ-quantised model's parameters as they are."""
    stack = profile.stack
    return bool(stack and stack.qlora_fp32_upcast and profile.method.base == "nf4")


def activation_upcast(profile: RunProfile) -> float:
    """How much wider the stored activations are than BF16: 2 when the upcast makes the residual stream,
    the norms' and the 4-bit layers' outputs FP32 (bitsandbytes returns its input's dtype), else 1.
    The loss's logits are FP32 either way and are not widened."""
    return FP32 / BF16 if upcasts_qlora(profile) else 1.0


def activations_per_gpu(
    profile: RunProfile, config: TrainingConfig, options: SizingOptions, peak_allocated: bool
) -> tuple[float, float]:
    """(bytes on the card, bytes offloaded to host RAM) of the activations and the loss's logits.

    Per micro-batch the model's activations are counted whole (activations.py) and then split as the
    degrees split them (parallelism.py): the first pipeline stage holds `in_flight` micro-batches of
    its layers, the last stage one micro-batch of its layers and the logits; the larger is the peak.
    The loss's logits and the layer at work in the backward pass are counted together: what the card
    must hold (nvidia-smi) was found to match that sum on the LLaMA-Factory measurements, the caching
    allocator not reusing every freed logit block. `peak_allocated` counts only the larger of the two,
    as PyTorch's peak allocated memory sees it.
    """
    run, arch, stack = profile.run, profile.arch, profile.stack
    seq, batch, flash, recompute = run.seq_len, config.micro_batch, options.flash_attention, config.recompute
    selective = stack.selective_keeps if stack else SELECTIVE_LAYER
    widen = activation_upcast(profile)
    mb = MicroBatch(arch, seq, batch, recompute, flash, selective)
    resident = resident_activation_bytes(mb) * widen
    host = 0.0
    if stack and stack.offloads_activations(run.activation_offload) and recompute == Recompute.FULL:
        # Offloaded checkpointing keeps the layer inputs in host RAM, one layer's worth on the card.
        host = offloadable_activation_bytes(arch, seq, batch) * widen
        resident -= host
    d = config.degrees
    working = working_activation_bytes(mb) * widen / (d.tp * d.cp)
    logit_bytes = stack.loss.logit_bytes if stack else LEGACY_LOGIT_BYTES
    loss = logits_bytes(arch, seq, batch, logit_bytes) / (d.tp * d.cp)
    first = split_activations(resident, config) + working
    last = last_stage_activations(resident, config) + (
        max(working, loss) if peak_allocated else working + loss
    )
    card = last if d.pp == 1 else max(first, last)
    return card, split_activations(host, config)


#: The basis a plan states for a margin the workload sets.
WORKLOAD_MARGIN = "the workload's sizing.memory_margin"


def planning_margin(profile: RunProfile, options: SizingOptions) -> float:
    """The workload's `sizing.memory_margin` when given, else the stack and method's."""
    return profile.memory_margin if options.memory_margin is None else options.memory_margin


def margin_basis(profile: RunProfile, options: SizingOptions) -> str:
    """Where the planning margin comes from: the workload, or the calibration (RunProfile)."""
    return profile.margin_basis if options.memory_margin is None else WORKLOAD_MARGIN


def allocator_reserve(profile: RunProfile, options: SizingOptions) -> float:
    """The workload's `sizing.allocator_reserve` when given, else the calibration's fitted share."""
    return profile.allocator_reserve if options.allocator_reserve is None else options.allocator_reserve


def size_run(setup: CopySetup, peak_allocated: bool = False, config: TrainingConfig | None = None) -> Sizing:
    """Memory, disk, traffic and time of one copy of `setup.profile.run` trained as `setup` says.

    `config` is the training configuration (micro-batch, recomputation, degrees); by default the
    run's own settings with pure data parallelism over `setup.gpus`. Tensor and pipeline parallelism
    split the states over tp·pp GPUs; FSDP then shards them over the dp·cp ranks that hold the same
    weights.
    """
    profile, gpu, gpus, options = setup.profile, setup.gpu, setup.gpus, setup.options
    strategy, optimizer, offload = setup.strategy, setup.optimizer, setup.offload
    run, counts = profile.run, profile.counts
    config = config or default_config(run, gpus)
    d = config.degrees
    master = profile.stack.master_weights if profile.stack else "fp32"
    method = profile.method
    states = model_states(counts, method, optimizer, offload, run.lora_rank, options.fp32_grad_buffer, master)
    upcast = upcast_rest_bytes(counts) if upcasts_qlora(profile) else 0.0
    split = States((states.gpu_bytes + upcast) / d.model_parallel, states.host_bytes, states.trainable)
    per_gpu_states = states_per_gpu(split, strategy, d.data_ranks)
    host_activations = 0.0
    if options.states_only:
        activations = overhead = 0.0
    else:
        activations, host_activations = activations_per_gpu(profile, config, options, peak_allocated)
        gather = 2 * counts.largest_layer * BF16 / d.tp if strategy == Strategy.FSDP else 0.0
        buffers = gather + dequant_buffer_bytes(profile.arch, method)
        overhead = overhead_bytes(
            per_gpu_states, activations, options.cuda_context_gb, allocator_reserve(profile, options), buffers
        )
    weights = frozen_base_bytes(counts, method)
    traffic = traffic_bytes_per_step(
        strategy, d.data_ranks, method, states.trainable // d.model_parallel, weights / d.model_parallel
    )
    link, gbps = intended_link(gpu, gpus)
    tokens = run.seq_len * config.micro_batch * config.accumulation * d.dp / gpus
    flops = step_flops(counts.active, round(tokens), method, config.recompute)
    checkpoint = checkpoint_bytes(counts, method, optimizer, run.lora_rank)
    return Sizing(
        run=run.name,
        gpu=gpu.id,
        gpus=gpus,
        strategy=strategy,
        optimizer=optimizer,
        offload=offload,
        states_gb=per_gpu_states / GB,
        activations_gb=activations / GB,
        overhead_gb=overhead / GB,
        card_gb=gpu.memory_gb,
        host_ram_gb=(states.host_bytes + host_activations) / GB,
        checkpoint_gb=checkpoint / GB,
        nvme_gb=nvme_bytes(checkpoint, run.keep_checkpoints, counts) / GB,
        traffic_gb_per_step=traffic / GB,
        link=link,
        compute_seconds=compute_seconds(flops, gpu.bf16_dense_tflops, options.mfu),
        transfer_seconds=transfer_seconds(traffic, gbps) if gbps else 0.0,
        memory_margin=planning_margin(profile, options),
        memory_margin_basis=margin_basis(profile, options),
        measured_margin=profile.memory_margin,
        config=config,
    )


#: Ranks configurations of one copy: seconds per trained token, smaller is better.
Ranker = Callable[[Sizing], float]


def bound_seconds_per_token(sizing: Sizing) -> float:
    """The sizing's own lower bound per token (compute and transfer overlapping perfectly, stretched
    by a pipeline's bubble): the ranking without speed data."""
    config = sizing.config
    if config is None:
        return sizing.step_seconds
    tokens = config.micro_batch * config.accumulation * config.degrees.dp
    return sizing.step_seconds * bubble_factor(config) / tokens


def card_domain(gpu: Gpu) -> int:
    """The largest NVLink domain the card may sit in: an SXM module's board of eight, else its largest
    bridge (1 without NVLink: no tensor parallelism)."""
    if gpu.on_baseboard:
        return GPU_COUNTS[-1]
    return max(gpu.nvlink.bridge_sizes, default=1) if gpu.nvlink else 1


def undominated(sizings: list[Sizing], rank: Ranker) -> list[Sizing]:
    """Of the fitting sizings, those no other beats on NVLink need (tensor parallelism), host RAM and
    speed at once; with none fitting, the one needing the least memory (what a refusal quotes)."""
    fitting = [s for s in sizings if s.fits]
    if not fitting:
        return [min(sizings, key=lambda s: s.total_gb)]
    if len(fitting) == 1:
        return fitting
    keyed = sorted(
        (
            (s.config is not None and s.config.degrees.tp > 1, s.host_ram_gb, rank(s), i)
            for i, s in enumerate(fitting)
        )
    )
    kept: list[tuple[bool, float, float, int]] = []
    for key in keyed:
        if not any(k[0] <= key[0] and k[1] <= key[1] and k[2] <= key[2] for k in kept):
            kept.append(key)
    return [fitting[k[3]] for k in kept]


def family_candidates(size: Callable[[TrainingConfig], Sizing], family: list[TrainingConfig]) -> list[Sizing]:
    """Of one family of configurations (same degrees, recomputation and accumulation; micro-batch
    ascending), the sizings that can be undominated: a larger micro-batch is never slower per token
    (each step's exchanges, optimiser step and overhead are shared by more tokens) and never needs
    less memory, so only the largest that fits (found by bisection), and the smallest where it needs
    less host RAM (offloaded activations grow with it); with none fitting, the smallest (what a
    refusal quotes)."""
    smallest = size(family[0])
    if not smallest.fits or len(family) == 1:
        return [smallest]
    low, high, largest = 0, len(family) - 1, smallest
    top = size(family[high])  # most often the largest fits too: two sizings, no bisection
    if top.fits:
        low, largest = high, top
    else:
        high -= 1
    while low < high:  # invariant: family[low] fits (as `largest`), family[high + 1:] do not
        middle = (low + high + 1) // 2
        sized = size(family[middle])
        if sized.fits:
            low, largest = middle, sized
        else:
            high = middle - 1
    return [largest] if smallest.host_ram_gb >= largest.host_ram_gb else [smallest, largest]


def undominated_configs(
    configs: Iterable[TrainingConfig], size: Callable[[TrainingConfig], Sizing], rank: Ranker | None
) -> list[Sizing]:
    """The undominated sizings of `configs` (micro-batch ascending within each family of the same
    degrees, recomputation and accumulation): each family's candidates (`family_candidates`), ranked
    by `rank` (by default the sizing's own bound, `bound_seconds_per_token`)."""
    families: dict[tuple[object, ...], list[TrainingConfig]] = {}
    for config in configs:
        families.setdefault((config.degrees, config.recompute, config.accumulation), []).append(config)
    sized = [s for family in families.values() for s in family_candidates(size, family)]
    return undominated(sized, rank or bound_seconds_per_token) if sized else []


def chosen_sizings(setup: CopySetup, rank: Ranker | None = None, domain: int | None = None) -> list[Sizing]:
    """The configurations worth planning for one copy trained as `setup` says: every one the run and
    the stack allow (`parallelism.config_choices`) is sized, and only the undominated ones are kept,
    so the solver sees one or two modes where there were dozens of configurations."""
    profile = setup.profile
    domain = card_domain(setup.gpu) if domain is None else domain
    configs = config_choices(profile, setup.gpus, domain)

    def size(config: TrainingConfig) -> Sizing:
        return size_run(setup, config=config)

    return undominated_configs(configs, size, rank)


def all_sizings(
    profile: RunProfile,
    gpu: Gpu,
    options: SizingOptions,
    rank: Ranker | None = None,
    domain: int | None = None,
) -> list[Sizing]:
    """Every way the run's settings allow on `gpu` with its chosen configurations, fitting or not
    (the estimate table). `rank` orders configurations by speed (the speed model's where the caller
    has it); `domain` is the largest NVLink domain tensor parallelism may use (the card's own)."""
    run = profile.run
    return [
        sizing
        for gpus in gpu_count_choices(run)
        if gpus in GPU_COUNTS  # multi-node counts depend on the server: ftopt.model.fabric
        for strategy in strategy_choices(gpus, profile.method.offers.sharded)
        for optimizer, offload in optimizer_offload_choices(profile)
        for sizing in chosen_sizings(
            CopySetup(profile, gpu, gpus, strategy, optimizer, offload, options), rank, domain
        )
    ]
