"""Rules on how each copy trains: its settings are the run's, and it fits its cards' memory.

Each copy is re-sized with the model layer's arithmetic (`size_run`) from its run, its server's card,
its GPU count, strategy, optimiser and offload; the re-sizing must fit the card, and the figures the
plan reports for the copy must agree with it (to their rounding).

The planning memory margin is read here from the workload and the catalogue's margins data, not
taken from the sizing: the copy must fit with its memory raised by the margin, and the margin and the
headroom the plan states must be what this module works out. The measured error is re-derived here
from the cross-validated error margins.yaml records (a stack and method's own bucket when at least
MIN_SOURCES sources measured it, else the pooled one; the share that covers 95 % of its points while
the pooled one is at most COVER_CAP, else the median error; rounded up to the next hundredth), not read
from its margins table: unless the workload sets its own margin, every copy must leave at least that
much of its memory free.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ftopt.model.memory import GB
from ftopt.model.methods import TrainingMethod
from ftopt.model.plan import Assignment
from ftopt.model.sizing import Sizing, gpu_count_choices, offload_choices, optimizer_choices
from ftopt.model.stack import MIN_SOURCES, MemoryMargins, Stack
from ftopt.model.topology import bottleneck_gbps
from ftopt.model.traffic import transfer_seconds
from ftopt.model.workload import DEFAULT_STACK, Offload, Optimizer, Run, Strategy
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.role_memory import role_gpus
from ftopt.verify.violation import GB_TOLERANCE, Violation, at_most, close, num

TRAFFIC_TOLERANCE = 0.001  # reported to 0.001 GB
SECONDS_TOLERANCE = 0.0001  # reported to 0.0001 s
MARGIN_TOLERANCE = 0.0005  # reported to 0.001


def margin_of(ctx: Context, run: Run) -> float:
    """The planning margin of a run: the workload's sizing.memory_margin when it sets one, else the
    catalogue's margin for the run's stack and method, or the method it is calibrated as (0 where the
    catalogue has none)."""
    given = ctx.workload.sizing.memory_margin
    if given is not None:
        return float(given)
    margins = ctx.catalogue.margins
    per_method = margins.margins.get(run.stack or DEFAULT_STACK) if margins else None
    calibration = _method(ctx, run).calibration
    return float(getattr(per_method, calibration)) if per_method else 0.0


def _rounded_up(error: float) -> float:
    """A cross-validated error rounded up to the next hundredth, as margins are planned."""
    return math.ceil(round(error * 100, 6)) / 100


def derived_margin(margins: MemoryMargins, stack: str, method: str) -> float | None:
    """The measured error of a stack and method re-derived from the recorded buckets: its own when at
    least MIN_SOURCES sources measured it, else the pooled one; None where the file records neither
    (then the margins table is all there is)."""
    own = next((b for b in margins.buckets if (b.stack, b.method) == (stack, method)), None)
    bucket = own if own is not None and len(own.sources) >= MIN_SOURCES else margins.pooled
    return None if bucket is None else _rounded_up(bucket.planned(margins.covering()))


def measured_margin_of(ctx: Context, run: Run) -> tuple[float, str]:
    """The margin the calibration measured for the run's stack and method, or the method it is
    calibrated as (whatever the workload sets), re-derived from the recorded buckets, and its basis
    (MemoryMargins.basis)."""
    margins, stack = ctx.catalogue.margins, run.stack or DEFAULT_STACK
    if margins is None:
        return 0.0, "no calibration"
    per_method, method = margins.margins.get(stack), _method(ctx, run).calibration
    derived = derived_margin(margins, stack, method)
    table = float(getattr(per_method, method)) if per_method else 0.0
    return (table if derived is None else derived), margins.basis(stack, method)


def basis_of(ctx: Context, run: Run) -> str:
    """Where the run's planning margin comes from, as the plan must state it."""
    if ctx.workload.sizing.memory_margin is not None:
        return "the workload's sizing.memory_margin"
    return measured_margin_of(ctx, run)[1]


def planned_gb(total_gb: float, margin: float) -> float:
    """Memory per GPU the card must hold: the re-sized total raised by the margin."""
    return total_gb * (1 + margin)


def _how(a: Assignment, card: str) -> str:
    return f"{len(a.gpus)} × {card} ({a.strategy}, {a.optimizer}, offload {a.offload})"


def _sized_copies(ctx: Context) -> Iterator[tuple[Assignment, Sizing, Run]]:
    """Each copy the verifier could re-size, with its sizing and run: the memory rules' common walk
    (a copy it cannot re-size is another rule's finding)."""
    for a in ctx.plan.assignments:
        sizing, run = ctx.sizing(a), ctx.runs.get(a.run)
        if sizing is not None and run is not None:
            yield a, sizing, run


def check_gpu_memory(ctx: Context) -> Iterator[Violation]:
    """States, activations and overhead per GPU, re-sized and raised by the planning margin, fit the card."""
    for a, sizing, run in _sized_copies(ctx):
        margin = margin_of(ctx, run)
        need = planned_gb(sizing.total_gb, margin)
        if not at_most(need, sizing.card_gb):
            yield Violation(
                "gpu-memory",
                copy_subject(a),
                f"{num(round(sizing.total_gb, 2))} GB per GPU × (1 + margin {margin:g}) = "
                f"{num(round(need, 2))} GB on {_how(a, sizing.gpu)}",
                f"card holds {num(sizing.card_gb)} GB",
            )


def check_measured_headroom(ctx: Context) -> Iterator[Violation]:
    """Unless the workload sets its own margin, each copy leaves at least the error measured for its
    stack and method free: its memory raised by the re-derived error fits the card."""
    if ctx.workload.sizing.memory_margin is not None:
        return  # forced: check_gpu_memory holds it to the workload's, check_tight_margin_note says so
    for a, sizing, run in _sized_copies(ctx):
        measured, basis = measured_margin_of(ctx, run)
        need = planned_gb(sizing.total_gb, measured)
        if not at_most(need, sizing.card_gb):
            yield Violation(
                "memory-margin",
                copy_subject(a),
                f"{num(round(sizing.total_gb, 2))} GB per GPU leaves {num(round(sizing.free_gb, 2))} GB free "
                f"on {_how(a, sizing.gpu)}",
                f"at least the measured {measured:.0%} ({basis}): {num(round(need, 2))} GB within "
                f"{num(sizing.card_gb)} GB",
            )


def check_margin_report(ctx: Context) -> Iterator[Violation]:
    """The margin and headroom a plan states for a copy are the run's margin and the card's memory
    left after it (plans written before margins state neither and are not held to them)."""
    for a, sizing, run in _sized_copies(ctx):
        margin = margin_of(ctx, run)
        if a.memory_margin is not None and not close(a.memory_margin, margin, MARGIN_TOLERANCE):
            yield Violation(
                "memory-margin",
                copy_subject(a),
                f"memory_margin {a.memory_margin}",
                f"the run's margin is {margin:g}",
            )
        basis = basis_of(ctx, run)
        if a.memory_margin_basis is not None and a.memory_margin_basis != basis:
            yield Violation(
                "memory-margin", copy_subject(a), f"memory_margin_basis {a.memory_margin_basis!r}", basis
            )
        headroom = sizing.card_gb - planned_gb(sizing.total_gb, margin)
        if a.headroom_gb is not None and not close(a.headroom_gb, headroom, GB_TOLERANCE):
            yield Violation(
                "memory-margin",
                copy_subject(a),
                f"headroom_gb {a.headroom_gb}",
                f"re-computed {round(headroom, 2)} (± {GB_TOLERANCE:g})",
            )


def _step_seconds(ctx: Context, a: Assignment, sizing: Sizing) -> float | None:
    """Step time on the server's actual interconnect, or None if its GPUs cannot be placed on it."""
    if a.multinode:  # over the network: the sizing's own transfer time (ftopt.model.fabric)
        return max(sizing.compute_seconds, sizing.transfer_seconds)
    graph = ctx.graphs.get(a.server)
    if graph is None or len(set(a.gpus)) != len(a.gpus):
        return None
    if not all(0 <= i < ctx.parts[a.server].server.gpu_count for i in a.gpus):
        return None
    gbps = bottleneck_gbps(graph, a.gpus)
    transfer = transfer_seconds(sizing.traffic_gb_per_step * GB, gbps) if gbps else 0.0
    return max(sizing.compute_seconds, transfer)


def _reported(ctx: Context, a: Assignment, sizing: Sizing) -> Iterator[tuple[str, float, float, float]]:
    """(name, reported, re-computed, tolerance) of every figure the plan states for a copy."""
    memory = a.memory_per_gpu_gb
    yield "memory_per_gpu_gb.states", memory.states, sizing.states_gb, GB_TOLERANCE
    yield "memory_per_gpu_gb.activations", memory.activations, sizing.activations_gb, GB_TOLERANCE
    yield "memory_per_gpu_gb.overhead", memory.overhead, sizing.overhead_gb, GB_TOLERANCE
    yield "memory_per_gpu_gb.total", memory.total, sizing.total_gb, GB_TOLERANCE
    yield "free_gb", a.free_gb, sizing.free_gb, GB_TOLERANCE
    yield "host_ram_gb", a.host_ram_gb, sizing.host_ram_gb, GB_TOLERANCE
    yield "nvme_gb", a.nvme_gb, sizing.nvme_gb, GB_TOLERANCE
    yield "traffic_gb_per_step", a.traffic_gb_per_step, sizing.traffic_gb_per_step, TRAFFIC_TOLERANCE
    step = _step_seconds(ctx, a, sizing)
    if step is not None:
        yield "step_seconds", a.step_seconds, step, SECONDS_TOLERANCE


def check_sizing_report(ctx: Context) -> Iterator[Violation]:
    """Memory per GPU, free memory, host RAM, NVMe, traffic and step time agree with the re-sizing."""
    for a in ctx.plan.assignments:
        sizing = ctx.sizing(a)
        if sizing is None:
            continue
        for name, reported, computed, tolerance in _reported(ctx, a, sizing):
            if not close(reported, computed, tolerance):
                digits = 4 if tolerance < GB_TOLERANCE else 2
                yield Violation(
                    "sizing-report",
                    copy_subject(a),
                    f"{name} {reported}",
                    f"re-computed {round(computed, digits)} (± {tolerance:g})",
                )


def check_strategy(ctx: Context) -> Iterator[Violation]:
    """A single GPU trains alone (single); several replicate (ddp) or shard (fsdp, hsdp), sharding
    only a method whose weights can be sharded (GPTQ's packed base cannot). An RL copy's strategy is
    its policy's, on the GPUs that train it (a separate engine has GPUs of its own)."""
    for a in ctx.plan.assignments:
        training = role_gpus(a, "policy") or a.gpus
        if training and (a.strategy == Strategy.SINGLE) != (len(training) == 1):
            allowed = "single on one GPU" if len(training) == 1 else "ddp or fsdp on several GPUs"
            yield Violation("strategy", copy_subject(a), f"{a.strategy} on {len(training)} GPUs", allowed)
        run = ctx.runs.get(a.run)
        sharding = a.strategy in (Strategy.FSDP, Strategy.HSDP)
        if run is not None and sharding and not _method(ctx, run).offers.sharded:
            yield Violation(
                "strategy",
                copy_subject(a),
                f"{a.strategy} for {run.method}",
                "ddp only (its weights cannot be sharded)",
            )


def _stack(ctx: Context, run: Run) -> Stack | None:
    """The run's stack, as the solver reads it: what `auto` may choose depends on what it offers."""
    profile = ctx.profile(run)
    return profile.stack if profile is not None else None


def _method(ctx: Context, run: Run) -> TrainingMethod:
    """The run's method entry: what `auto` may choose depends on what it offers too."""
    return ctx.catalogue.methods.method(run.method)


def check_optimizer(ctx: Context) -> Iterator[Violation]:
    """The optimiser is one the run allows (its setting, or what `auto` means for its method)."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None:
            continue
        choices = optimizer_choices(run, _method(ctx, run), _stack(ctx, run))
        if a.optimizer not in choices:
            yield Violation(
                "optimizer",
                copy_subject(a),
                f"{a.optimizer}",
                f"run ({run.method}, optimizer {run.optimizer}) allows {', '.join(choices)}",
            )


def check_offload(ctx: Context) -> Iterator[Violation]:
    """Offload is one the run allows, and CPU offload only for full fine-tuning with 32-bit AdamW."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None:
            continue
        choices = offload_choices(run, _method(ctx, run), _stack(ctx, run))
        if a.offload not in choices:
            yield Violation(
                "offload",
                copy_subject(a),
                f"offload {a.offload}",
                f"run ({run.method}, offload {run.offload}) allows {', '.join(choices)}",
            )
        elif a.offload == Offload.CPU and (
            a.optimizer != Optimizer.ADAMW_32BIT or not _method(ctx, run).offers.cpu_offload
        ):
            yield Violation(
                "offload",
                copy_subject(a),
                f"offload cpu with {run.method}, {a.optimizer}",
                "CPU offload needs method full and adamw-32bit",
            )


def check_gpu_count(ctx: Context) -> Iterator[Violation]:
    """A copy uses the run's GPU count when fixed, else 1, 2, 4, 8, 16, 32 or 64 (all its nodes')."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None:
            continue
        choices = gpu_count_choices(run)
        if a.gpu_count not in choices:
            yield Violation(
                "gpu-count",
                copy_subject(a),
                f"{a.gpu_count} GPUs",
                f"run (gpus {run.gpus}) allows {', '.join(map(str, choices))}",
            )


def check_tight_margin_note(ctx: Context) -> Iterator[Violation]:
    """A run the workload plans with a margin below its measured error carries a tight-margin note,
    so that no format can hide that the plan is tighter than the calibration says is safe."""
    given = ctx.workload.sizing.memory_margin
    if given is None:
        return
    noted = {n.subject for n in ctx.plan.notes if n.kind == "tight-margin"}
    for run in ctx.workload.runs:
        measured, basis = measured_margin_of(ctx, run)
        if given < measured and run.name not in noted:
            yield Violation(
                "memory-margin",
                f"run {run.name}",
                f"no tight-margin note for the workload's margin {given:g}",
                f"at least the measured {measured:g} ({basis}), or a note saying it is not",
            )
