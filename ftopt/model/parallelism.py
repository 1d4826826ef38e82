"""The training configuration of one copy: micro-batch, accumulation, recomputation and the degrees
of data, tensor, pipeline and context parallelism, with what each degree does to memory and time.

Why a module of its own: the same copy on the same cards trains twice as fast, or fits at all, with
another configuration (a 70B full fine-tune on PCIe cards is bound by FSDP's gathers at micro-batch
1 and not at 2; a 131,072-token sequence fits eight cards only when context parallelism splits it).
So ftopt chooses the configuration (`ftopt.model.sizing.all_sizings`) within what the run fixes and
the stack offers (`stacks.yaml`, `parallelism`), and the plan states it so it can be reproduced.

A copy of G GPUs runs dp·tp·pp·cp = G ranks:

- tp (tensor parallelism, with sequence parallelism) splits every layer's weights, gradients,
  optimiser states and activations over tp GPUs, which all-reduce b·s·h activations twice in the
  forward and twice in the backward pass of every layer (Megatron-LM, Shoeybi et al. 2019;
  Korthikanti et al. 2022): it needs one NVLink/NVSwitch domain (`tp` ≤ the card's largest domain);
- pp (pipeline parallelism, 1F1B) splits the layers over pp stages; the first stage keeps pp
  micro-batches in flight, so it holds a whole model's worth of one micro-batch's activations, and
  a step of m micro-batches idles a share (pp−1)/(m+pp−1) of its time (the bubble);
- cp (context parallelism) splits each sequence over cp GPUs: activations and logits divide by cp,
  weights are replicated; ring attention passes K/V blocks round the ring, hidden behind attention,
  DeepSpeed-Ulysses exchanges Q, K, V and the output by all-to-all, not hidden;
- dp (data parallelism) replicates (DDP) or shards (FSDP/ZeRO-3) the states over its dp·cp ranks
  (context-parallel ranks hold the same weights and reduce the same gradients).

Pure arithmetic on bytes and seconds; `sizing.py` and `speed.py` apply it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.architecture import Architecture
from ftopt.model.profile import RunProfile
from ftopt.model.stack import Parallelism
from ftopt.model.workload import Offload, Recompute, Run

BF16 = 2

#: Degrees of model parallelism ftopt tries (powers of two, as the GPU counts are).
DEGREES = (1, 2, 4, 8)

#: Sequences at least this long may be split by context parallelism; shorter ones gain nothing a
#: larger micro-batch or tensor parallelism would not give, and their blocks are too short to hide
#: the K/V exchange.
LONG_SEQUENCE = 16_384

#: Without `global_batch_tokens`, a pipeline of pp stages runs this many micro-batches per stage per
#: step: 4(pp−1) keeps the bubble (pp−1)/(m+pp−1) at 20 % (Narayanan et al. 2021 advise m ≫ pp).
BUBBLE_MICRO_BATCHES_PER_STAGE = 4


@dataclass(frozen=True, order=True)
class Degrees:
    """Data, tensor, pipeline and context parallel degrees; their product is the copy's GPUs."""

    dp: int = 1
    tp: int = 1
    pp: int = 1
    cp: int = 1

    @property
    def gpus(self) -> int:
        """GPUs the degrees take: dp·tp·pp·cp."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def model_parallel(self) -> int:
        """GPUs one copy of the weights is split over: tp·pp."""
        return self.tp * self.pp

    @property
    def data_ranks(self) -> int:
        """Ranks holding the same weights, which reduce the same gradients and shard the states: dp·cp."""
        return self.dp * self.cp


@dataclass(frozen=True, order=True)
class TrainingConfig:
    """How one copy trains: sequences per forward pass, micro-batches per step, recomputation, degrees."""

    micro_batch: int
    accumulation: int
    recompute: Recompute
    degrees: Degrees

    def tokens_per_step(self, seq_len: int) -> int:
        """Tokens per optimiser step over the copy: micro_batch × accumulation × dp × seq_len."""
        return self.micro_batch * self.accumulation * self.degrees.dp * seq_len


def default_config(run: Run, gpus: int) -> TrainingConfig:
    """The configuration ftopt assumed before it chose one: the run's fixed settings (micro-batch 1
    and full recomputation under `auto`), no accumulation, pure data parallelism."""
    return TrainingConfig(run.micro_batch_choices[0], 1, run.recompute, Degrees(dp=gpus))


def _powers(limit: int) -> tuple[int, ...]:
    return tuple(d for d in DEGREES if d <= limit)


def degree_choices(profile: RunProfile, gpus: int, domain: int) -> list[Degrees]:
    """Every split of `gpus` the run's stack offers and its model and method allow.

    tp only inside one NVLink domain of `domain` GPUs (0 or 1: none) and dividing the KV heads (each
    rank keeps whole groups); pp across domains (at most gpus / domain stages) and no deeper than
    the layers; cp only for long sequences, dividing the heads under Ulysses. No model parallelism
    for a method that does not offer it (QLoRA: no stack shards NF4 weights by tensor; methods.yaml)
    or under CPU offload (ZeRO-Offload runs one model-parallel rank).
    """
    run, method, arch = profile.run, profile.method, profile.arch
    offered = profile.stack.parallelism if profile.stack else None
    plain = [Degrees(dp=gpus)]
    if offered is None or not method.offers.model_parallel or run.offload == Offload.CPU:
        return plain
    return [
        d
        for d in _splits(gpus, *_offered_degrees(run, arch, offered, gpus, domain))
        if arch.kv_heads % d.tp == 0 and _heads_split(offered, arch, d.tp * d.cp)
    ]


def _offered_degrees(
    run: Run, arch: Architecture, offered: Parallelism, gpus: int, domain: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The tp, pp and cp degrees worth trying: tp within one NVLink domain, pp no deeper than the
    layers, cp only for long sequences; (1,) for what the stack does not offer."""
    tps = _powers(min(gpus, domain)) if offered.tp else (1,)
    # Pipeline stages go where the links are slow: across NVLink domains, sockets or servers, so no
    # deeper than the copy's GPUs over one domain (any depth for cards without NVLink).
    pps = _powers(min(gpus // max(domain, 1), arch.layers)) if offered.pp else (1,)
    cps = _powers(gpus) if offered.cp != "none" and run.seq_len >= LONG_SEQUENCE else (1,)
    return tps, pps, cps


def _splits(gpus: int, tps: tuple[int, ...], pps: tuple[int, ...], cps: tuple[int, ...]) -> list[Degrees]:
    """Every tp × pp × cp of the offered degrees that divides `gpus`, the rest data-parallel, in
    tp, pp, cp order (the order the search meets them)."""
    return [
        Degrees(gpus // (tp * pp * cp), tp, pp, cp)
        for tp in tps
        for pp in pps
        for cp in cps
        if gpus % (tp * pp * cp) == 0
    ]


def _heads_split(offered: Parallelism, arch: Architecture, ways: int) -> bool:
    """Ulysses context parallelism hands each rank whole attention heads, so the heads must divide
    over tensor × context ranks; ring attention splits the sequence instead and needs no such thing."""
    return offered.cp != "ulysses" or arch.heads % ways == 0


def accumulation_for(run: Run, micro_batch: int, degrees: Degrees) -> int | None:
    """Micro-batches per step: what `global_batch_tokens` leaves (None when it is not a whole number),
    else one, or 4(pp−1) under a pipeline to keep its bubble small."""
    if run.global_batch_tokens is not None:
        per_pass = micro_batch * degrees.dp * run.seq_len
        whole, rest = divmod(run.global_batch_tokens, per_pass)
        return whole if whole >= 1 and rest == 0 else None
    return max(1, BUBBLE_MICRO_BATCHES_PER_STAGE * (degrees.pp - 1))


def config_choices(profile: RunProfile, gpus: int, domain: int) -> list[TrainingConfig]:
    """Every configuration of a copy of `gpus` GPUs the run, its method and the stack allow, in a
    fixed order."""
    run, found = profile.run, list[TrainingConfig]()
    for degrees in degree_choices(profile, gpus, domain):
        for micro_batch in run.micro_batch_choices:
            accumulation = accumulation_for(run, micro_batch, degrees)
            if accumulation is None:
                continue
            for recompute in run.recompute_choices:
                found.append(TrainingConfig(micro_batch, accumulation, recompute, degrees))
    return found


# --- Memory per degree -----------------------------------------------------------------------------


def in_flight(config: TrainingConfig) -> int:
    """Micro-batches whose activations the first pipeline stage holds under 1F1B: min(pp, m)."""
    return min(config.degrees.pp, config.accumulation)


def split_activations(per_copy: float, config: TrainingConfig) -> float:
    """One micro-batch's activations of all layers, as one GPU of the first pipeline stage holds them:
    its 1/pp of the layers for `in_flight` micro-batches, tensor- and context-split."""
    d = config.degrees
    return per_copy * in_flight(config) / d.pp / (d.tp * d.cp)


def last_stage_activations(per_copy: float, config: TrainingConfig) -> float:
    """What the last stage holds of the same: one micro-batch of its 1/pp of the layers."""
    d = config.degrees
    return per_copy / d.pp / (d.tp * d.cp)


# --- Time per degree -------------------------------------------------------------------------------


def bubble_factor(config: TrainingConfig) -> float:
    """Step time over the pipeline's busy time: (m + pp − 1) / m for m micro-batches."""
    m, pp = config.accumulation, config.degrees.pp
    return (m + pp - 1) / m


def tp_bus_bytes(arch: Architecture, seq_len: int, config: TrainingConfig) -> float:
    """Bus bytes per GPU per step of tensor parallelism: per layer of its stage and micro-batch, two
    all-reduces forward and two backward of b·(s/cp)·h BF16 activations (two more when full
    recomputation reruns the forward), each 2(t−1)/t of its size on the bus."""
    d = config.degrees
    if d.tp < 2:
        return 0.0
    reduces = 6 if config.recompute == Recompute.FULL else 4
    activation = config.micro_batch * (seq_len / d.cp) * arch.hidden * BF16
    layers = arch.layers / d.pp
    return layers * config.accumulation * reduces * 2 * (d.tp - 1) / d.tp * activation


def pp_bytes(arch: Architecture, seq_len: int, config: TrainingConfig) -> float:
    """Bytes a stage sends per step: each micro-batch's b·(s/cp)·h/tp activations forward and their
    gradient back, once each."""
    d = config.degrees
    if d.pp < 2:
        return 0.0
    return 2 * config.accumulation * config.micro_batch * (seq_len / d.cp) * arch.hidden * BF16 / d.tp


def cp_bytes(arch: Architecture, seq_len: int, config: TrainingConfig, kind: str) -> float:
    """Bytes a GPU receives per step for context parallelism.

    Ring: per layer and micro-batch, K and V blocks of the cp−1 other ranks (b·(s/cp)·k·2 bytes each)
    in the forward pass, K/V again and their gradients in the backward: three times the forward's.
    Ulysses: all-to-alls of Q, K, V and the output forward and of their gradients backward, each
    moving (cp−1)/cp of the local b·(s/cp)·width.
    """
    d = config.degrees
    if d.cp < 2:
        return 0.0
    local = config.micro_batch * (seq_len / d.cp) * BF16
    q = arch.heads * arch.head_dim
    k = arch.kv_heads * arch.head_dim
    layers = arch.layers / d.pp / d.tp
    if kind == "ulysses":
        per_layer = 2 * (d.cp - 1) / d.cp * local * (2 * q + 2 * k)
    else:
        per_layer = 3 * (d.cp - 1) * local * 2 * k
    return layers * config.accumulation * per_layer


# --- How a plan states it ----------------------------------------------------------------------------


def config_record(config: TrainingConfig) -> dict[str, object]:
    """The configuration as plans and estimate options state it, so a run can be reproduced."""
    d = config.degrees
    return {
        "micro_batch": config.micro_batch,
        "accumulation": config.accumulation,
        "recompute": config.recompute.value,
        "parallelism": {"dp": d.dp, "tp": d.tp, "pp": d.pp, "cp": d.cp},
    }


def config_label(config: TrainingConfig) -> str:
    """A short cell for tables: `mb 2, full`, `mb 1×12, selective, tp 2 pp 4` (accumulation and
    degrees only where they are not 1; dp is the GPUs the others leave)."""
    d = config.degrees
    batch = f"mb {config.micro_batch}" + (f"×{config.accumulation}" if config.accumulation > 1 else "")
    split = " ".join(
        f"{name} {value}" for name, value in (("tp", d.tp), ("pp", d.pp), ("cp", d.cp)) if value > 1
    )
    return ", ".join(part for part in (batch, config.recompute.value, split) if part)
