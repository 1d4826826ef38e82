"""Rules on the roles of DPO, GRPO and PPO copies: which models each copy holds, on which of its GPUs,
with how much memory, and whether the rollout engine's share holds its weights and a sequence.

The figures come from the verifier's own derivation (role_memory.py), never from the model layer's
role code, so a mistake there shows up here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace

from ftopt.model.methods import MethodRegistry
from ftopt.model.plan import Assignment
from ftopt.model.workload import Algorithm, Run
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.role_memory import (
    TRAINING_ROLES,
    Expected,
    engine_need_gb,
    engine_share_gb,
    model_arch,
    needed_roles,
    role_gpus,
)
from ftopt.verify.violation import GB_TOLERANCE, Violation, at_most, close, num


def _layout_faults(a: Assignment, run: Run, methods: MethodRegistry) -> Iterator[str]:
    """What is wrong with where the copy's roles sit, one sentence each."""
    listed = [r.role for r in a.roles]
    needed = needed_roles(methods, run)
    if sorted(listed) != sorted(needed):
        found, wanted = ", ".join(sorted(listed)) or "none", ", ".join(sorted(needed))
        yield f"roles {found}; {run.algorithm_label} needs {wanted}"
        return
    training = role_gpus(a, "policy")
    if _off_policy_gpus(a, needed, training):
        yield "the reference, reward and critic do not sit on the policy's GPUs"
    if "rollout" not in needed or run.rollout is None:
        if a.placement is not None or sorted(training) != sorted(a.gpus):
            yield "a run without rollout engine trains on all its GPUs and has no placement"
        return
    yield from _engine_faults(a, run.rollout.placement.value, training)


def _off_policy_gpus(a: Assignment, needed: set[str], training: list[int]) -> bool:
    """Whether a needed frozen model or the critic sits elsewhere than on the policy's GPUs (they
    score and learn from the policy's batches where it trains)."""
    return any(sorted(role_gpus(a, r)) != sorted(training) for r in TRAINING_ROLES if r in needed)


def _engine_faults(a: Assignment, allowed: str, training: list[int]) -> Iterator[str]:
    """The engine sits as the run allows: on the training GPUs (colocated) or on GPUs of its own
    (separate), the two together covering the copy's GPUs."""
    engine = role_gpus(a, "rollout")
    if a.placement is None or allowed not in ("auto", a.placement):
        yield f"placement {a.placement}; the run allows {allowed}"
    elif a.placement == "colocated" and sorted(engine) != sorted(training):
        yield "a colocated engine must share the training GPUs"
    elif a.placement == "separate" and (set(engine) & set(training) or not engine):
        yield "a separate engine needs GPUs of its own"
    if sorted(set(training) | set(engine)) != sorted(a.gpus):
        yield "the roles do not cover exactly the copy's GPUs"


def check_role_layout(ctx: Context) -> Iterator[Violation]:
    """Supervised copies list no roles; RL copies list the roles their algorithm needs, the frozen
    models and critic on the policy's GPUs, the engine on them (colocated) or beside them (separate)
    as the run allows, together covering the copy's GPUs."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None:
            continue
        if run.algorithm == Algorithm.SFT:
            if a.roles or a.placement is not None:
                yield Violation("roles", copy_subject(a), "roles on a supervised run", "none allowed")
            continue
        for fault in _layout_faults(a, run, ctx.catalogue.methods):
            yield Violation("roles", copy_subject(a), fault, "")


def check_role_memory(ctx: Context) -> Iterator[Violation]:
    """Each role's memory is what the verifier derives, and the roles on each GPU fit the card: their
    sum, or on a colocated copy's GPUs the larger of its training and generation phases."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        sizing = ctx.sizing(a)
        parts = ctx.parts.get(a.server)
        if run is None or run.algorithm == Algorithm.SFT or sizing is None or parts is None:
            continue
        expected = ctx.role_memory(a)
        if expected is None:
            continue
        for found, allowed in _role_memory_faults(a, expected, sizing.card_gb):
            yield Violation("role-memory", copy_subject(a), found, allowed)


def _role_memory_faults(a: Assignment, expected: Expected, card: float) -> Iterator[tuple[str, str]]:
    """Each role's stated memory against the derived figure, then each GPU's roles against the card:
    their sum, or a colocated copy's larger phase (a role the derivation lacks at its stated figure)."""
    on_gpu: dict[int, list[str]] = defaultdict(list)
    listed: dict[str, float] = {role.role: role.memory_gb for role in a.roles}
    for role in a.roles:
        want = expected.memory.get(role.role)
        if want is not None and not close(role.memory_gb, want, GB_TOLERANCE):
            yield f"{role.role} {num(role.memory_gb)} GB per GPU", f"re-computed {num(round(want, 2))} GB"
        for gpu in role.gpus:
            on_gpu[gpu].append(role.role)
    held = replace(expected, memory=listed | dict(expected.memory))
    for gpu, roles in sorted(on_gpu.items()):
        total = held.peak_gb(roles, a.placement == "colocated")
        if not at_most(total, card):
            yield f"GPU {gpu} holds {num(round(total, 2))} GB", f"card holds {num(card)} GB"


def check_rollout_memory(ctx: Context) -> Iterator[Violation]:
    """A GRPO/PPO copy's engine share holds the engine's weights shard, overhead and one sequence."""
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        parts = ctx.parts.get(a.server)
        if run is None or run.rollout is None or parts is None or parts.gpu is None:
            continue
        engine = role_gpus(a, "rollout")
        arch = model_arch(ctx.catalogue, run.model)
        if not engine or arch is None:
            continue  # the role-layout rule reports a missing engine
        share = engine_share_gb(ctx.catalogue.rollout, run, parts.gpu.memory_gb, a.placement)
        # A multi-node copy lists one server's GPUs; its colocated engine spans all of its servers.
        need = engine_need_gb(ctx.catalogue.rollout, arch, run, a.gpu_count if a.multinode else len(engine))
        if not at_most(need, share):
            yield Violation(
                "rollout-memory",
                copy_subject(a),
                f"engine needs {num(round(need, 2))} GB per GPU on {len(engine)} GPUs",
                f"its share is {num(round(share, 2))} GB",
            )
