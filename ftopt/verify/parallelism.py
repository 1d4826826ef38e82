"""Rules on the training configuration a plan states for each copy: it adds up and it can run.

A copy's `parallelism` {dp, tp, pp, cp} must multiply to its GPUs; tensor-parallel groups (tp
consecutive GPUs of the copy, tp being the innermost rank as Megatron and torchtitan order them)
must each lie in one NVLink domain of the server; the degrees must be ones the run's stack offers
(stacks.yaml) and the method allows; the micro-batch and recomputation must be the run's when it
fixes them; with `global_batch_tokens`, micro_batch × accumulation × dp × seq_len must equal it.

The arithmetic here is the verifier's own (products, groups, set membership on the server's graph);
memory and time of the stated configuration are re-derived through the context's sizing, which the
memory and deadline rules compare with the plan's figures.
"""

from __future__ import annotations

from collections.abc import Iterator

from ftopt.model.architecture import ParamCounts
from ftopt.model.plan import Assignment, Node
from ftopt.model.stack import Stack
from ftopt.model.topology import nvlink_domains
from ftopt.model.workload import Offload, Recompute, Run
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.role_memory import role_gpus
from ftopt.verify.violation import GB_TOLERANCE, Violation, close, num

#: Bytes per parameter of a full fine-tune's states on the GPUs, by master-weight precision and
#: optimiser (the verifier's own table of the ZeRO paper's counts: BF16 weights and gradients, FP32
#: master and moments, or BF16/8-bit moments without a master copy).
FULL_STATE_BYTES = {
    ("fp32", "adamw-32bit"): 16,
    ("fp32", "adamw-8bit"): 10,
    ("bf16", "adamw-32bit"): 8,
    ("bf16", "adamw-8bit"): 6,
}


def _degrees(a: Assignment) -> tuple[int, int, int, int] | None:
    p = a.parallelism
    return None if p is None else (p.dp, p.tp, p.pp, p.cp)


def check_parallelism_product(ctx: Context) -> Iterator[Violation]:
    """dp·tp·pp·cp equals the GPUs that train the copy: all of them on all its nodes, less those of an
    RL copy's separate rollout engine (its policy's GPUs)."""
    for a in ctx.plan.assignments:
        degrees = _degrees(a)
        if degrees is None:
            continue
        dp, tp, pp, cp = degrees
        # A multi-node RL copy lists one server's GPUs per role; its engine is always colocated.
        training = a.gpu_count if a.multinode else (len(role_gpus(a, "policy")) or a.gpu_count)
        if dp * tp * pp * cp != training:
            yield Violation(
                "parallelism",
                copy_subject(a),
                f"dp {dp} × tp {tp} × pp {pp} × cp {cp} = {dp * tp * pp * cp}",
                f"the copy trains on {training} GPUs",
            )


def _groups(gpus: list[int], size: int) -> list[list[int]]:
    ordered = sorted(gpus)
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def check_tensor_parallel_domain(ctx: Context) -> Iterator[Violation]:
    """Every tensor-parallel group of tp GPUs lies in one NVLink domain of its server."""
    for a in ctx.plan.assignments:
        degrees = _degrees(a)
        if degrees is None or degrees[1] < 2:
            continue
        for node in a.nodes or []:
            for found, allowed in _node_domain_faults(ctx, node, degrees[1]):
                yield Violation("tensor-parallel-domain", copy_subject(a), found, allowed)


def _node_domain_faults(ctx: Context, node: Node, tp: int) -> Iterator[tuple[str, str]]:
    """One node's GPUs split into whole tp groups, each inside one NVLink domain (an unknown server
    is the server rules' to report)."""
    graph = ctx.graphs.get(node.server)
    if graph is None:
        return
    if len(node.gpus) % tp:
        yield f"tp {tp} on {len(node.gpus)} GPUs of {node.server}", "whole groups"
        return
    domains = [set(d) for d in nvlink_domains(graph)]
    for group in _groups(node.gpus, tp):
        if not any(set(group) <= d for d in domains):
            yield (
                f"tensor-parallel GPUs {group} of server {node.server}",
                f"one NVLink domain (domains {[sorted(d) for d in domains] or 'none'})",
            )


def _platform_faults(ctx: Context, a: Assignment, run: Run) -> Iterator[str]:
    """The run's stack targets the platform of the card it trains on (CUDA or ROCm)."""
    profile, parts = ctx.profile(run), ctx.parts.get(a.server)
    stack = profile.stack if profile is not None else None
    gpu = parts.gpu if parts is not None else None
    if stack is not None and gpu is not None and not stack.runs_on(gpu.platform, gpu.card_class):
        yield f"stack {stack.id} on {gpu.id}: a stack that runs on {gpu.platform} {gpu.card_class} cards"


def _stack_faults(ctx: Context, a: Assignment, run: Run) -> Iterator[str]:
    """The stack offers every parallel degree above 1, and the method and offload allow model
    parallelism at all."""
    degrees = _degrees(a)
    if degrees is None:
        return
    _, tp, pp, cp = degrees
    profile = ctx.profile(run)
    yield from _offered_faults(profile.stack if profile is not None else None, tp, pp, cp)
    method = ctx.catalogue.methods.method(run.method)
    if tp * pp * cp > 1 and (not method.offers.model_parallel or a.offload == Offload.CPU):
        yield f"model parallelism with {method.label} or CPU offload, which no stack runs"


def _offered_faults(stack: Stack | None, tp: int, pp: int, cp: int) -> Iterator[str]:
    """Each degree above 1 is one the stack offers (no stack offers none)."""
    name = stack.id if stack is not None else "no stack"
    p = stack.parallelism if stack is not None else None
    offers = (p.tp, p.pp, p.cp != "none") if p is not None else (False, False, False)
    kinds = (("tp", tp, "tensor"), ("pp", pp, "pipeline"), ("cp", cp, "context"))
    for (key, degree, kind), offered in zip(kinds, offers, strict=True):
        if degree > 1 and not offered:
            yield f"{key} {degree}: {name} offers no {kind} parallelism"


def _run_faults(a: Assignment, run: Run) -> Iterator[str]:
    """The micro-batch and recomputation are the run's where it fixes them, and the step's tokens
    its global batch where it sets one."""
    yield from _micro_batch_faults(a, run)
    yield from _recompute_faults(a, run)
    degrees = _degrees(a)
    if run.global_batch_tokens is not None and degrees is not None:
        tokens = (a.micro_batch or 1) * (a.accumulation or 1) * degrees[0] * run.seq_len
        if tokens != run.global_batch_tokens:
            yield f"{tokens:,} tokens per step: global_batch_tokens is {run.global_batch_tokens:,}"


def _micro_batch_faults(a: Assignment, run: Run) -> Iterator[str]:
    # The plan counts sequences; a DPO run's micro-batch counts preference pairs, two sequences each.
    fixed_batch = (
        None if run.micro_batch == "auto" else int(run.micro_batch) * (2 if run.algorithm == "dpo" else 1)
    )
    if a.micro_batch is not None and fixed_batch is not None and a.micro_batch != fixed_batch:
        pairs = " sequences (its pairs × 2)" if run.algorithm == "dpo" else ""
        yield f"micro_batch {a.micro_batch}: the run fixes {fixed_batch}{pairs}"


def _recompute_faults(a: Assignment, run: Run) -> Iterator[str]:
    """A run that fixes gradient checkpointing (yes: full, no: selective, or a named level) fixes
    the copy's recomputation."""
    fixed = run.gradient_checkpointing
    if a.recompute is None or fixed == "auto":
        return
    wanted = (
        {True: Recompute.FULL, False: Recompute.SELECTIVE}.get(fixed) if isinstance(fixed, bool) else None
    )
    wanted = wanted or Recompute(str(fixed))
    if a.recompute != wanted:
        yield f"recompute {a.recompute}: the run fixes {wanted}"


def check_configuration(ctx: Context) -> Iterator[Violation]:
    """The stated configuration is one the run fixes or allows and the stack offers."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None:
            continue
        for fault in (*_platform_faults(ctx, a, run), *_stack_faults(ctx, a, run), *_run_faults(a, run)):
            stated, _, wanted = fault.partition(": ")
            allowed = wanted or "a configuration the run allows"
            yield Violation("training-config", copy_subject(a), stated, allowed)


def _expected_full_states_gb(ctx: Context, a: Assignment, run: Run) -> float | None:
    """States per GPU of a full fine-tune without offload, re-derived from the parameter count and the
    stated degrees: the whole copy's bytes over tp·pp, then over the dp·cp ranks FSDP shards over.
    None where this rule does not apply (adapters, offload, paged or FP32-gradient accounting)."""
    degrees = _degrees(a)
    profile = ctx.profile(run)
    if degrees is None or profile is None or not profile.method.full or a.offload != Offload.NONE:
        return None
    if ctx.workload.sizing.fp32_grad_buffer or a.multinode:
        return None
    master = profile.stack.master_weights if profile.stack is not None else "fp32"
    per_param = FULL_STATE_BYTES.get((master, str(a.optimizer)))
    if per_param is None:
        return None
    copy = (
        _projected_copy_bytes(profile.counts, str(a.optimizer), master, run.lora_rank)
        if profile.method.projected_states
        else profile.counts.total * per_param
    )
    dp, tp, pp, cp = degrees
    shards = dp * cp if str(a.strategy) in ("fsdp", "hsdp") else 1
    return copy / (tp * pp) / shards / 1e9


def _projected_copy_bytes(counts: ParamCounts, optimizer: str, master: str, rank: int) -> float:
    """A copy whose moments live in a rank-r projection (a registry entry's `projected_states`: GaLore):
    BF16 weights and gradients and, under mixed precision, FP32 master weights for every parameter;
    two moments of r rows of each linear layer's longer side and full moments for the rest; and a BF16
    projector of r rows of each layer's shorter side."""
    moment = 1 if optimizer != "adamw-32bit" else (4 if master == "fp32" else 2)
    weights = counts.total * (2 + 2 + (4 if master == "fp32" else 0))
    moments = 2 * moment * (counts.total - counts.linear + rank * counts.long_sides)
    return weights + moments + 2 * rank * (counts.lora_per_rank - counts.long_sides)


def check_state_split(ctx: Context) -> Iterator[Violation]:
    """A full fine-tune's states per GPU are what its stated degrees split them to."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        expected = _expected_full_states_gb(ctx, a, run) if run is not None else None
        if expected is None or close(a.memory_per_gpu_gb.states, expected, GB_TOLERANCE):
            continue
        dp, tp, pp, cp = _degrees(a) or (1, 1, 1, 1)
        yield Violation(
            "state-split",
            copy_subject(a),
            f"{num(a.memory_per_gpu_gb.states)} GB of states per GPU",
            f"{num(round(expected, 2))} GB: the copy's states over tp {tp} × pp {pp}, sharded over "
            f"dp {dp} × cp {cp} under {a.strategy}",
        )
