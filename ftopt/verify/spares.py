"""Rule on hot spare servers: a run's `spares` stand beside each of its copies over several servers.

- spares: a copy over several servers lists exactly its run's `spares` servers as `spares`; each is a
  server of the plan, listed once in the whole plan, holding no copy, and of the copy's build (chassis,
  card, CPU, bridge, power setting, fabric NICs) with its nodes' RAM and data drives, so that it can
  take a broken node's place on the same fabric. A copy on one server lists none. That the spares
  are priced, powered within their feed and circuit at full draw and cabled to the fabric follows
  from the price, power, rack and fabric rules, which count every server of the plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ftopt.model.plan import Assignment, Server
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.violation import Violation


def _build(server: Server) -> tuple[object, ...]:
    """What a spare must share with the nodes it stands in for."""
    s = server
    return (
        s.chassis, s.gpu, s.gpu_count, s.cpu, s.cpu_count, s.bridge, s.gpu_power_cap_w, s.nic, s.nic_count,
        s.ram_gb, s.data_drive, s.data_drive_count,
    )  # fmt: skip


def _holding(ctx: Context) -> set[str]:
    """Every server some copy trains on."""
    return {n.server for a in ctx.plan.assignments for n in a.nodes} | {
        a.server for a in ctx.plan.assignments
    }


def _count_faults(ctx: Context, a: Assignment) -> Iterator[tuple[str, str]]:
    """The copy lists as many spares as its run asks for (none on one server)."""
    run = ctx.runs.get(a.run)
    wanted = (run.spares if run else 0) if a.multinode else 0
    if len(a.spares) != wanted:
        where = "over several servers" if a.multinode else "on one server"
        yield f"{len(a.spares)} spares", f"{wanted}: its run's spares for a copy {where}"


def _server_faults(
    ctx: Context, a: Assignment, holding: set[str], listed: Counter[str]
) -> Iterator[tuple[str, str]]:
    """Each spare is a server of the plan, listed once, idle, of the nodes' build and parts."""
    node = ctx.parts.get(a.nodes[0].server) if a.nodes else None
    for spare in a.spares:
        parts = ctx.parts.get(spare)
        if parts is None:
            yield f"spare {spare!r}", "a server of the plan"
        elif listed[spare] > 1:
            yield f"spare {spare} listed {listed[spare]} times", "each spare stands beside one copy"
        elif spare in holding:
            yield f"spare {spare} holds a copy", "a spare trains nothing until a node breaks"
        elif node is not None and _build(parts.server) != _build(node.server):
            yield (
                f"spare {spare} of another build or parts",
                f"the build, RAM, drives and NICs of {node.server.id}",
            )


def check_spares(ctx: Context) -> Iterator[Violation]:
    """Each copy lists its run's spares, each an idle server of its nodes' build on the fabric."""
    holding = _holding(ctx)
    listed = Counter(s for a in ctx.plan.assignments for s in a.spares)
    for a in ctx.plan.assignments:
        for found, allowed in (*_count_faults(ctx, a), *_server_faults(ctx, a, holding, listed)):
            yield Violation("spares", copy_subject(a), found, allowed)
