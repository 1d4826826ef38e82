"""What failures cost each copy: checkpoint interval, expected interruptions, hours with failures.

Why a module of its own, with a typed input: a copy's failure figures depend only on its hours, its
GPUs, its run's checkpoint size and the write speed of its servers' data drives, so `FailureInput`
carries exactly those lookups, by id (servers) and by name (runs): the builder looked both up by a
scan per copy, quadratic on bids of thousands of copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.failures import failure_cost
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import GB, checkpoint_bytes
from ftopt.model.plan import Assignment, Node, Server
from ftopt.model.sizing import RunProfile
from ftopt.solver.decode.spread import SpreadInput, p90_without_spares


@dataclass(frozen=True)
class FailureInput:
    """The catalogue (reliability, drives, methods), the plan's servers by id, each run's profile by
    name, and the spread (for the P90 a copy with spares would have without them)."""

    catalogue: Catalogue
    servers: dict[str, Server]
    profiles: dict[str, RunProfile]
    spread: SpreadInput

    def write_gbps(self, nodes: list[Node]) -> float:
        """How fast a checkpoint lands on the data drives of all the copy's servers at once."""
        total = 0.0
        for n in nodes:
            server = self.servers[n.server]
            total += self.catalogue.drive(server.data_drive).write_gbps * server.data_drive_count
        return total


def with_failures(inp: FailureInput, a: Assignment) -> Assignment:
    """The copy with its checkpoint interval, expected interruptions and hours with failures
    (ftopt.model.failures): its checkpoint lands on the data drives of all its servers at once."""
    reliability = inp.catalogue.reliability
    if a.hours is None or reliability is None:
        return a
    nodes = a.nodes or [Node(server=a.server, gpus=a.gpus)]
    run = inp.profiles[a.run]
    method = inp.catalogue.methods.method(run.run.method)
    checkpoint = checkpoint_bytes(run.counts, method, a.optimizer, run.run.lora_rank) / GB
    gpus = sum(len(n.gpus) for n in nodes)
    write = inp.write_gbps(nodes)
    cost = failure_cost(a.hours, gpus, checkpoint, write, reliability, len(a.spares))
    bare = failure_cost(a.hours, gpus, checkpoint, write, reliability)
    return a.model_copy(
        update={
            "checkpoint_write_s": round(cost.write_h * 3600, 3),
            "checkpoint_interval_h": round(cost.interval_h, 3),
            "expected_interruptions": round(cost.interruptions, 3),
            "restart_hours": round(cost.restart_h, 6),
            "failure_overhead": round(cost.overhead, 6),
            "hours_with_failures": round(a.hours * (1 + cost.overhead), 6),
            "hours_p90_without_spares": p90_without_spares(inp.spread, a, bare.overhead),
        }
    )
