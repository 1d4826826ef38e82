"""The roles of DPO, GRPO and PPO copies as the quote lists and draws them: which model or engine sits
on which GPUs, with its memory per GPU. Shared by the table, Markdown and SVG renderings."""

from __future__ import annotations

from ftopt.model.plan import Assignment, Plan


def gpu_span(gpus: list[int]) -> str:
    """GPU indices as a person reads them: `0-3` for a run, `0,2` otherwise."""
    if len(gpus) > 1 and gpus == list(range(gpus[0], gpus[-1] + 1)):
        return f"{gpus[0]}-{gpus[-1]}"
    return ",".join(map(str, gpus))


def gpu_roles(a: Assignment, gpu: int) -> list[str]:
    """The roles the copy keeps on one of its GPUs."""
    return [r.role for r in a.roles if gpu in r.gpus]


def role_line(a: Assignment) -> str:
    """One RL copy's roles: `run copy n (rollout colocated): policy 27.3 GB on GPUs 0-3; ...`."""
    where = f" (rollout {a.placement})" if a.placement else ""
    parts = [f"{r.role} {r.memory_gb:.1f} GB on GPUs {gpu_span(r.gpus)}" for r in a.roles]
    return f"{a.run} copy {a.copy_}{where}: " + "; ".join(parts)


def role_lines(plan: Plan) -> list[str]:
    """A line per copy that has roles (none for a purely supervised plan)."""
    return [role_line(a) for a in plan.assignments if a.roles]
