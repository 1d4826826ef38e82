"""One copy of a preference or RL run (DPO, GRPO, PPO): its roles on its GPUs, and how long a step takes.

Why one Sizing per copy: the solver places copies as blocks of GPUs; an RL copy is such a block whose
training GPUs hold the policy, the frozen reference and reward models and PPO's critic, and whose
rollout engine either shares them (colocated: a share of each GPU's memory, taking turns with
training) or has GPUs of its own at the end of the block (separate). Each way is one `Sizing` with
its roles listed, so choosing colocated or separate is choosing a training mode, by price or by
deadline, like choosing a GPU count.

A step (GRPO, PPO) is synchronous, as in verl, TRL and OpenRLHF's default: generate the step's
responses, score them (the policy's old log-probabilities, the reference, the reward model, PPO's
critic values), update the policy (and critic) with the speed model of a supervised step, and send the
new weights to the engine; a colocated engine also swaps out and in. `train_tokens` counts the tokens
the policy trains on (prompt plus response per sample), so a run's hours are its steps' time.
DPO trains on chosen and rejected sequences together (twice the micro-batch) and adds the
reference's forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ftopt.model.fabric import Network, multinode_copy_speed, multinode_sizings, shard_count, size_multinode
from ftopt.model.hardware import Gpu
from ftopt.model.memory import BF16, GB, States
from ftopt.model.roles import (
    Role,
    RoleMemory,
    critic_gb,
    critic_states,
    extra_disk_gb,
    has_reference,
    reference_gb,
    reward_gb,
)
from ftopt.model.rollout import (
    Engine,
    RolloutConstants,
    Sampler,
    generation_time,
    lay_out_engine,
    switch_seconds,
)
from ftopt.model.sizing import (
    CopySetup,
    Ranker,
    RunProfile,
    Sizing,
    all_sizings,
    gpu_count_choices,
    optimizer_offload_choices,
    size_run,
    strategy_choices,
)
from ftopt.model.speed import Host, Speed, SpeedContext, bus_bandwidth_gbps, estimate_speed, matmul_params
from ftopt.model.stack import LinkKind, SpeedConstants
from ftopt.model.workload import (
    GPU_COUNTS,
    Offload,
    Optimizer,
    Placement,
    SizingOptions,
    Strategy,
)


def is_rl(profile: RunProfile) -> bool:
    """Whether the run is a preference or RL run: its algorithm holds roles beyond the policy."""
    return profile.algorithm.roles != (Role.POLICY,)


def policy_profile(profile: RunProfile) -> RunProfile:
    """The policy as a supervised run: a micro-batch holds each sample's sequences (DPO's chosen and
    rejected pair: the algorithm's `sequences_per_sample`)."""
    run, per_sample = profile.run, profile.algorithm.sequences_per_sample
    if per_sample == 1:
        return profile
    pairs = run.model_copy(update={"micro_batch": per_sample * run.micro_batch_choices[0]})
    policy = replace(profile, run=pairs)
    policy.__dict__["counts"] = profile.counts  # the same model: keep its counted parameters
    return policy


def placement_choices(profile: RunProfile, total: int) -> list[tuple[Placement | None, int]]:
    """Where the engine may go on a copy of `total` GPUs, with the GPUs a separate one takes: half, a
    quarter or an eighth of the block (the training GPUs keep the rest). None: no engine (DPO)."""
    rollout = profile.run.rollout
    if not profile.algorithm.generates or rollout is None:
        return [(None, 0)]
    choices: list[tuple[Placement | None, int]] = []
    if rollout.placement in (Placement.COLOCATED, Placement.AUTO):
        choices.append((Placement.COLOCATED, 0))
    if rollout.placement in (Placement.SEPARATE, Placement.AUTO):
        splits = sorted({total // d for d in (2, 4, 8) if total >= d})
        choices += [(Placement.SEPARATE, engine) for engine in splits]
    return choices


def lay_out_copy_engine(
    profile: RunProfile,
    gpu: Gpu,
    placement: Placement | None,
    total: int,
    train: int,
    constants: RolloutConstants,
) -> Engine | None:
    """The rollout engine of a copy of `total` GPUs, `train` of which train (None without one): on all
    of them at the run's share when colocated, on the rest at the separate share otherwise."""
    rollout = profile.run.rollout
    if placement is None or rollout is None:
        return None
    colocated = placement == Placement.COLOCATED
    gpus = total if colocated else total - train
    if gpus < 1:
        return None  # a separate engine without GPUs of its own: no engine to lay out
    fraction = rollout.memory_fraction if colocated else constants.separate_memory_fraction
    sampler = Sampler(profile.counts, profile.arch, rollout, constants)
    return lay_out_engine(sampler, gpu, gpus, fraction * gpu.memory_gb)


def copy_engine(profile: RunProfile, gpu: Gpu, sizing: Sizing, constants: RolloutConstants) -> Engine | None:
    """The rollout engine of an RL sizing, laid out as `size_rl` laid it out (None without one)."""
    train = sizing.train_gpus or sizing.gpus
    return lay_out_copy_engine(profile, gpu, sizing.placement, sizing.gpus, train, constants)


@dataclass(frozen=True)
class Layout:
    """How one RL copy is laid out: total GPUs, where its engine goes and how the policy trains."""

    total: int
    placement: Placement | None
    engine_gpus: int
    strategy: Strategy
    optimizer: Optimizer
    offload: Offload


def role_shares(
    profile: RunProfile, optimizer: Optimizer, offload: Offload, strategy: Strategy, gpus: int
) -> tuple[States | None, dict[Role, float]]:
    """PPO's critic states (None without a critic) and GB per training GPU of the reference, reward
    model and critic, held beside the policy as `strategy` holds them over `gpus`."""
    critic = critic_states(profile, optimizer, offload)
    return critic, {
        Role.REFERENCE: reference_gb(profile, strategy, gpus),
        Role.REWARD: reward_gb(profile.reward_counts, strategy, gpus),
        Role.CRITIC: critic_gb(critic, strategy, gpus),
    }


def training_roles(policy: Sizing, shares: dict[Role, float], gpus: int) -> list[RoleMemory]:
    """The roles on the `gpus` training GPUs: the policy, and each other role that takes memory."""
    roles = [RoleMemory(Role.POLICY, gpus, 0, policy.total_gb)]
    return roles + [RoleMemory(role, gpus, 0, gb) for role, gb in shares.items() if gb > 0]


def size_rl(
    profile: RunProfile,
    gpu: Gpu,
    layout: Layout,
    options: SizingOptions,
    constants: RolloutConstants,
    policy: Sizing | None = None,
) -> Sizing:
    """Memory of one RL copy laid out this way: the policy's sizing on the training GPUs (`policy`,
    when the caller has it already), with the reference, reward model and critic beside it there,
    and the rollout engine's share."""
    train = layout.total - layout.engine_gpus
    if policy is None:
        args = (layout.strategy, layout.optimizer, layout.offload, options)
        policy = size_run(CopySetup(policy_profile(profile), gpu, train, *args))
    critic, shares = role_shares(profile, layout.optimizer, layout.offload, layout.strategy, train)
    roles = training_roles(policy, shares, train)
    engine = lay_out_copy_engine(profile, gpu, layout.placement, layout.total, train, constants)
    if engine is not None:
        first = 0 if layout.placement == Placement.COLOCATED else train
        roles.append(RoleMemory(Role.ROLLOUT, engine.gpus, first, engine.budget_gb))
    idle, generation = phase_memory(policy, sum(shares.values()), engine, layout.placement, constants)
    disk = extra_disk_gb(profile, layout.optimizer)
    return replace(
        policy,
        gpus=layout.total,
        train_gpus=train,
        roles_gb=sum(shares.values()),
        host_ram_gb=policy.host_ram_gb + (critic.host_bytes / GB if critic else 0.0),
        nvme_gb=policy.nvme_gb + disk,
        placement=layout.placement,
        engine_idle_gb=idle,
        generation_gb=generation,
        rollout_gb=engine.budget_gb if engine else 0.0,
        rollout_fits=engine.fits if engine else True,
        roles=tuple(roles),
    )


def phase_memory(
    policy: Sizing,
    roles_gb: float,
    engine: Engine | None,
    placement: Placement | None,
    constants: RolloutConstants,
) -> tuple[float, float]:
    """A colocated copy's two phases per training GPU: what its engine keeps while the policy trains
    (nothing when it sleeps, its weights, or its whole share), and the memory while the engine
    generates (its share, the overhead, and the model states and frozen models unless the stack
    offloads them; activations are freed). Both 0 without a colocated engine."""
    if engine is None or placement != Placement.COLOCATED:
        return 0.0, 0.0
    idle = {"nothing": 0.0, "weights": engine.weights_gb, "everything": engine.budget_gb}
    kept = policy.states_gb + roles_gb if constants.training_in_generation == "states" else 0.0
    return idle[constants.engine_in_training], engine.budget_gb + policy.overhead_gb + kept


def rl_layouts(profile: RunProfile, total: int) -> list[Layout]:
    """Every layout of a copy of `total` GPUs the run's settings allow."""
    return [
        Layout(total, placement, engine, strategy, optimizer, offload)
        for placement, engine in placement_choices(profile, total)
        for strategy in strategy_choices(total - engine, profile.method.offers.sharded)
        for optimizer, offload in optimizer_offload_choices(profile)
    ]


def rl_sizings(
    profile: RunProfile,
    gpu: Gpu,
    options: SizingOptions,
    constants: RolloutConstants,
) -> list[Sizing]:
    """Every layout of the run on `gpu` within one server, fitting or not (copies over several
    servers: `size_rl_multinode`). A colocated copy of 4 GPUs and a separate one of 8 with 4 training
    share the policy's sizing.
    """
    policies: dict[tuple[int, Strategy, Optimizer, Offload], Sizing] = {}
    sizings = []
    for total in gpu_count_choices(profile.run):
        if total not in GPU_COUNTS:
            continue
        for layout in rl_layouts(profile, total):
            train = total - layout.engine_gpus
            key = (train, layout.strategy, layout.optimizer, layout.offload)
            if key not in policies:
                policies[key] = size_run(CopySetup(policy_profile(profile), gpu, train, *key[1:], options))
            sizings.append(size_rl(profile, gpu, layout, options, constants, policies[key]))
    return sizings


def copy_sizings(
    profile: RunProfile,
    gpu: Gpu,
    options: SizingOptions,
    constants: RolloutConstants,
    rank: Ranker | None = None,
    domain: int | None = None,
) -> list[Sizing]:
    """A copy's sizings whatever its algorithm: supervised runs as `all_sizings` (with their chosen
    training configurations), RL runs by role (at the run's own settings: RL layouts are not searched
    over configurations). None on a card whose platform the run's stack does not target."""
    if not runs_on(profile, gpu):
        return []
    if not is_rl(profile):
        return all_sizings(profile, gpu, options, rank, domain)
    return rl_sizings(profile, gpu, options, constants)


def runs_on(profile: RunProfile, gpu: Gpu) -> bool:
    """Whether the run's stack targets the card's platform (CUDA stacks on NVIDIA cards, ROCm stacks on
    AMD Instinct) with an MFU for its class; a run without stack data runs anywhere."""
    return profile.stack is None or profile.stack.runs_on(gpu.platform, gpu.card_class)


def policy_sizing(sizing: Sizing) -> Sizing:
    """The policy's own sizing on the training GPUs, as the speed model of a supervised step reads it."""
    train = sizing.train_gpus or sizing.gpus
    return replace(sizing, gpus=train, roles_gb=0.0, rollout_gb=0.0, placement=None, roles=())


def forward_seconds(params: int, tokens: float, gpu: Gpu, gpus: int, constants: RolloutConstants) -> float:
    """A forward pass of `params` multiplied parameters over `tokens`, spread over `gpus`, as compute."""
    return 2 * params * tokens / (gpus * gpu.bf16_dense_tflops * 1e12 * constants.prefill_mfu)


@dataclass(frozen=True)
class RlPhases:
    """One RL step's phases beyond the policy's update, seconds (what `Speed.rollout_seconds` sums)."""

    generation: float
    scoring: float
    critic: float
    sync: float
    switch: float

    @property
    def seconds(self) -> float:
        """The phases run one after the other."""
        return self.generation + self.scoring + self.critic + self.sync + self.switch


def sync_seconds(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, link: LinkKind | None, speed: SpeedConstants
) -> float:
    """Sending the new policy weights (BF16, the whole model: an adapter is merged first) to the
    engine: a copy in each GPU's memory when colocated, over the copy's link when separate."""
    weights = profile.counts.total * BF16
    if sizing.placement == Placement.COLOCATED or link is None:
        return 2 * weights / sizing.gpus / (gpu.memory_bandwidth_gbps * 1e9 * speed.hbm_efficiency)
    return weights / (bus_bandwidth_gbps(link, gpu, speed) * 1e9)


def rl_phases(
    profile: RunProfile,
    sizing: Sizing,
    gpu: Gpu,
    update_seconds: float,
    link: LinkKind | None,
    speed: SpeedConstants,
    constants: RolloutConstants,
) -> RlPhases:
    """Generation, scoring, critic, sync and switch of one GRPO/PPO step (`update_seconds`: the
    policy's update, which PPO's critic repeats)."""
    run, counts, arch = profile.run, profile.counts, profile.arch
    rollout = run.rollout
    engine = copy_engine(profile, gpu, sizing, constants)
    if rollout is None or engine is None:
        return RlPhases(0.0, 0.0, 0.0, 0.0, 0.0)
    tokens = rollout.sequences * run.seq_len
    train = sizing.train_gpus or sizing.gpus
    passes = (
        2 if has_reference(run, profile.method, profile.algorithm) else 1
    )  # the policy's own, the reference's
    scored = [matmul_params(counts, arch)] * passes
    if profile.reward_counts is not None:
        scored.append(profile.reward_counts.active)
    scoring = sum(forward_seconds(p, tokens, gpu, train, constants) for p in scored)
    critic = 0.0
    if Role.CRITIC in profile.algorithm.roles:
        critic = update_seconds + forward_seconds(matmul_params(counts, arch), tokens, gpu, train, constants)
    colocated = sizing.placement == Placement.COLOCATED
    return RlPhases(
        generation=generation_time(Sampler(counts, arch, rollout, constants), gpu, engine).seconds,
        scoring=scoring,
        critic=critic,
        sync=sync_seconds(profile, sizing, gpu, link, speed),
        switch=switch_seconds(engine, gpu, constants) if colocated else 0.0,
    )


def rl_speed(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, context: SpeedContext, constants: RolloutConstants
) -> Speed:
    """Policy tokens per second of one RL copy, as a `Speed` whose `rollout_seconds` holds the phases
    beyond the policy's update.

    The update trains the step's samples in micro-batches over the training GPUs with one optimiser
    step (compute, dequantisation and communication scale with the micro-batches, the optimiser step,
    offload and overhead do not). DPO's step is the policy's, plus the reference's forward pass.
    """
    base = estimate_speed(policy_profile(profile), policy_sizing(sizing), gpu, context)
    return rl_step(profile, sizing, gpu, base, context.link, context.constants, constants)


def rl_step(
    profile: RunProfile,
    sizing: Sizing,
    gpu: Gpu,
    base: Speed,
    link: LinkKind | None,
    speed: SpeedConstants,
    constants: RolloutConstants,
) -> Speed:
    """An RL step from the policy's supervised step `base` (one micro-batch per training GPU)."""
    run = profile.run
    train = sizing.train_gpus or sizing.gpus
    if not profile.algorithm.generates:  # a preference step: the reference scores the same pairs
        scoring = 0.0
        if has_reference(run, profile.method, profile.algorithm):
            params = matmul_params(profile.counts, profile.arch)
            scoring = forward_seconds(params, base.tokens_per_step, gpu, train, constants)
        return replace(base, rollout_seconds=scoring)
    rollout = run.rollout
    assert rollout is not None  # a generating run always has one (Run's validator)
    tokens = rollout.sequences * run.seq_len
    scale = tokens / base.tokens_per_step
    compute, dequant = base.compute_seconds * scale, base.dequant_seconds * scale
    exposed = base.exposed_comm_seconds * scale
    once = base.offload_seconds + base.optimizer_seconds + base.overhead_seconds
    phases = rl_phases(profile, sizing, gpu, compute + dequant + exposed + once, link, speed, constants)
    return replace(
        base,
        tokens_per_step=tokens,
        compute_seconds=compute,
        dequant_seconds=dequant,
        comm_seconds=base.comm_seconds * scale,
        exposed_comm_seconds=exposed,
        rollout_seconds=phases.seconds,
    )


def size_rl_multinode(setup: CopySetup, net: Network, constants: RolloutConstants) -> Sizing | None:
    """An RL copy over several servers (16-64 GPUs): the policy sized as a multi-node supervised copy,
    the frozen models and critic sharded like its states, and a colocated engine on every GPU
    (replicas within a server). None where the run asks for a separate engine, which multi-node
    copies do not model (`setup.offload` is not read: multi-node copies never offload)."""
    profile, gpu, gpus, strategy = setup.profile, setup.gpu, setup.gpus, setup.strategy
    optimizer = setup.optimizer
    run = profile.run
    rollout = run.rollout
    placement: Placement | None = None
    if profile.algorithm.generates and rollout is not None:
        if rollout.placement == Placement.SEPARATE:
            return None
        placement = Placement.COLOCATED
    policy = size_multinode(replace(setup, profile=policy_profile(profile)), net)
    shard = shard_count(strategy, gpus, net.node_gpus)
    _, shares = role_shares(profile, optimizer, Offload.NONE, Strategy.FSDP, shard)
    node = net.node_gpus  # roles list one server's GPUs: every server of the copy holds the same
    roles = training_roles(policy, shares, node)
    engine = lay_out_copy_engine(profile, gpu, placement, gpus, gpus, constants)
    if engine is not None:
        roles.append(RoleMemory(Role.ROLLOUT, node, 0, engine.budget_gb))
    idle, generation = phase_memory(policy, sum(shares.values()), engine, placement, constants)
    disk = extra_disk_gb(profile, optimizer)
    return replace(
        policy,
        train_gpus=gpus,
        roles_gb=sum(shares.values()),
        nvme_gb=policy.nvme_gb + disk,
        placement=placement,
        engine_idle_gb=idle,
        generation_gb=generation,
        rollout_gb=engine.budget_gb if engine else 0.0,
        rollout_fits=engine.fits if engine else True,
        roles=tuple(roles),
    )


def multinode_any_sizing(setup: CopySetup, net: Network, constants: RolloutConstants) -> Sizing | None:
    """A multi-node sizing whatever the run's algorithm: an RL copy with its roles (None for one
    whose separate engine multi-node copies do not model), else `size_multinode`'s."""
    if is_rl(setup.profile):
        return size_rl_multinode(setup, net, constants)
    return size_multinode(setup, net)


def multinode_any_sizings(
    setup: CopySetup, net: Network, constants: RolloutConstants, rank: Ranker | None = None
) -> list[Sizing]:
    """A multi-node copy's sizings whatever its algorithm: a supervised copy's undominated training
    configurations (`multinode_sizings`), or an RL copy's one sizing with its roles (none when its
    separate engine is not modelled over several servers); none where the stack does not run."""
    if not runs_on(setup.profile, setup.gpu):
        return []
    if is_rl(setup.profile):
        sizing = size_rl_multinode(setup, net, constants)
        return [] if sizing is None else [sizing]
    return multinode_sizings(setup, net, rank)


def multinode_any_speed(
    profile: RunProfile,
    sizing: Sizing,
    gpu: Gpu,
    host: Host,
    net: Network,
    speed: SpeedConstants,
    constants: RolloutConstants,
) -> Speed | None:
    """A multi-node copy's speed whatever its algorithm (None without a stack): the supervised
    estimate, or an RL step built on the policy's multi-node step."""
    if not is_rl(profile):
        return multinode_copy_speed(profile, sizing, gpu, host, net, speed)
    base = multinode_copy_speed(policy_profile(profile), policy_sizing(sizing), gpu, host, net, speed)
    return None if base is None else rl_step(profile, sizing, gpu, base, None, speed, constants)


def copy_speed(
    profile: RunProfile, sizing: Sizing, gpu: Gpu, context: SpeedContext, constants: RolloutConstants
) -> Speed:
    """A copy's speed whatever its algorithm: the speed model's for supervised runs, an RL step's else."""
    if not is_rl(profile):
        return estimate_speed(profile, sizing, gpu, context)
    return rl_speed(profile, sizing, gpu, context, constants)
