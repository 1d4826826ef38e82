"""Rules on time and money over time: every copy finishes by its run's deadline, and the TCO adds up.

- deadline: each copy's hours are recomputed with the model layer's speed estimate
  (`ftopt.model.speed`) for the plan's own placement: the link kind read off the server's
  interconnect graph (one NVLink domain: that bridge's measured kind; otherwise PCIe within one
  socket or across the two), the host of the server's CPU (one socket's memory channels, its GPUs'
  share of the cores), and the server's GPU power setting (its compute slowed by the card class's
  power exponent, re-derived here). The copy's hours at its run's deadline confidence (0.5 or 0.9:
  the spread rule's P50 or P90, with failures over several servers) must be within its run's
  `deadline_hours`, and
  the hours, tokens per second and makespan the plan reports must be these: present wherever the
  model gives them (version 3 plans).
- energy: each copy's training energy is its re-derived hours × its GPUs × (the server's GPU power
  setting + the host's watts per GPU) × PUE, with no utilisation (the hours are training time), and
  the plan's `energy_kwh` is their sum.
- tco: the energy settings are the workload's, each server's energy over the years is its stated
  full-load draw × utilisation × years × 8,760 h × PUE (the draw itself is the power-estimate rule's),
  and purchase + energy cost = the total.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

from ftopt.model.fabric import node_network
from ftopt.model.hardware import Gpu
from ftopt.model.plan import COMPLETE_SINCE, Assignment, Tco
from ftopt.model.rl import copy_speed, multinode_any_speed
from ftopt.model.sizing import RunProfile, Sizing
from ftopt.model.speed import Speed, SpeedContext, hours_to_train
from ftopt.model.stack import LinkKind, SpeedConstants
from ftopt.model.timing import copy_host
from ftopt.model.topology import gpu_node, interconnect
from ftopt.verify.context import Context, Parts, copy_subject
from ftopt.verify.spread import confident_hours
from ftopt.verify.violation import Violation, close, money, num

#: Reported hours and tokens per second are rounded (hours to 1e-6, tokens/s to 0.1): both are
#: compared within 0.1 % or that rounding, whichever is larger.
RELATIVE = 1e-3
HOURS_PER_YEAR = 8760
#: A sum of figures each rounded to the cent, against the rounded sum: a cent apart at most.
SUM_TOLERANCE = 0.01
#: Training energy is stored to the hundredth of a kWh, each copy's and the plan's.
ENERGY_PRECISION = 0.01


def _link(ctx: Context, assignment: Assignment) -> LinkKind | None:
    """The measured link kind of the copy's GPUs in its server's graph."""
    graph = ctx.graphs.get(assignment.server)
    parts = ctx.parts[assignment.server]
    if graph is None or len(assignment.gpus) < 2:
        return None
    if interconnect(graph, assignment.gpus) == "nvlink":
        if parts.chassis is not None and parts.chassis.nvswitch:
            return "nvswitch"
        return "nvlink-2" if parts.bridge is not None and parts.bridge.size == 2 else "nvlink-4"
    sockets = {graph.nodes[gpu_node(i)]["socket"] for i in assignment.gpus}
    return "pcie-socket" if len(sockets) == 1 else "pcie-cross-socket"


def _at_cap(speed: Speed, gpu: Gpu, cap_w: float, constants: SpeedConstants) -> Speed:
    """The speed with the server's cards at `cap_w`, re-derived here: the compute part of a step takes
    (full W / cap)^e longer, e the card class's exponent in the speed data; the rest keeps its time,
    and the communication hidden behind compute is recomputed."""
    exponent = constants.power_exponent.get(gpu.card_class)
    if exponent is None or cap_w >= gpu.power_w:
        return speed
    compute = speed.compute_seconds * (gpu.power_w / cap_w) ** exponent
    hidden_at_most = min(speed.comm_seconds * constants.overlap, compute)
    return replace(speed, compute_seconds=compute, exposed_comm_seconds=speed.comm_seconds - hidden_at_most)


def assignment_speed(ctx: Context, assignment: Assignment) -> Speed | None:
    """The speed model's estimate for the copy as placed, its cards at the server's power setting;
    None where it cannot be re-derived."""
    speed = _uncapped_speed(ctx, assignment)
    parts, constants = ctx.parts.get(assignment.server), ctx.catalogue.speed
    if speed is None or parts is None or parts.gpu is None or constants is None:
        return speed
    return _at_cap(speed, parts.gpu, parts.server.gpu_power_cap_w, constants)


def _uncapped_speed(ctx: Context, assignment: Assignment) -> Speed | None:
    """The speed model's estimate for the copy as placed, its cards at full power."""
    run = ctx.runs.get(assignment.run)
    parts = ctx.parts.get(assignment.server)
    sizing = ctx.sizing(assignment)
    if run is None or parts is None or sizing is None or ctx.catalogue.speed is None:
        return None
    profile = ctx.profile(run)
    if profile is None or profile.stack is None or not _placed_on_known(ctx, assignment, parts):
        return None
    if assignment.multinode:
        return _multinode_speed(ctx, assignment, sizing, profile, parts)
    return _server_speed(ctx, assignment, sizing, profile, parts)


def _placed_on_known(ctx: Context, assignment: Assignment, parts: Parts) -> bool:
    """The copy's server has a known card, CPU and graph, and the copy's GPUs are on it (the
    catalogue-id and gpu-index rules report the rest)."""
    graph = ctx.graphs.get(assignment.server)
    if parts.gpu is None or parts.cpu is None or graph is None:
        return False
    return all(gpu_node(i) in graph for i in assignment.gpus)


def _server_speed(
    ctx: Context, assignment: Assignment, sizing: Sizing, profile: RunProfile, parts: Parts
) -> Speed | None:
    """A one-server copy's speed: the host its GPUs' share of the server gives, the link they share."""
    server, constants = parts.server, ctx.catalogue.speed
    if profile.stack is None or parts.gpu is None or parts.cpu is None or constants is None:
        return None
    host = copy_host(
        parts.cpu.memory_channels,
        parts.cpu.cores * server.cpu_count,
        server.gpu_count,
        len(assignment.gpus),
        constants,
    )
    link = _link(ctx, assignment)
    card = ctx.card(assignment) or parts.gpu
    context = SpeedContext(profile.stack, constants, host, link)
    speed = copy_speed(profile, sizing, card, context, ctx.catalogue.rollout)
    # An engine whose share cannot hold it never finishes a step: the rollout-memory rule reports it.
    return speed if math.isfinite(speed.step_seconds) else None


def _multinode_speed(
    ctx: Context, assignment: Assignment, sizing: Sizing, profile: RunProfile, parts: Parts
) -> Speed | None:
    """A multi-node copy's speed on its first node's servers: all their GPUs, their NICs, the network."""
    server, constants, catalogue = parts.server, ctx.catalogue.speed, ctx.catalogue
    if server.nic is None or not catalogue.has("nics", server.nic) or parts.gpu is None or parts.cpu is None:
        return None  # the nic rule reports it
    if constants is None:
        return None
    cores = parts.cpu.cores * server.cpu_count
    host = copy_host(parts.cpu.memory_channels, cores, server.gpu_count, server.gpu_count, constants)
    net = node_network(parts.gpu, server.gpu_count, catalogue.nic(server.nic), server.nic_count, constants)
    speed = multinode_any_speed(profile, sizing, parts.gpu, host, net, constants, catalogue.rollout)
    return speed if speed is not None and math.isfinite(speed.step_seconds) else None


def _at(confidence: float | None) -> str:
    """' at P90' for hours held at a confidence; nothing for bare hours."""
    return f" at P{round(confidence * 100)}" if confidence is not None else ""


def check_deadlines(ctx: Context) -> Iterator[Violation]:
    """Each copy finishes within its run's deadline; reported speed, hours and makespan are the model's."""
    trained: list[float] = []  # each copy's hours
    complete = ctx.plan.schema_version >= COMPLETE_SINCE  # older plans may lack the figures
    for assignment in ctx.plan.assignments:
        run = ctx.runs.get(assignment.run)
        speed = assignment_speed(ctx, assignment)
        if run is None or speed is None:
            continue
        subject = copy_subject(assignment)
        rate = speed.tokens_per_s
        tolerance = max(RELATIVE * rate, 0.05)
        for found in _reported(
            assignment.tokens_per_s, rate, tolerance, complete, "tokens_per_s", "{} tokens/s"
        ):
            yield Violation("deadline", subject, found, f"the speed model gives {num(rate)}")
        if run.train_tokens is None:
            continue
        hours = hours_to_train(run.train_tokens, speed)
        trained.append(hours)
        # In queue mode the deadline counts from the start of the horizon: the schedule rules check it.
        confidence = ctx.confidence(run)
        held = confident_hours(ctx, assignment, run, hours, confidence)
        if not ctx.queued and run.deadline_hours is not None and held > run.deadline_hours * (1 + 1e-9):
            yield Violation(
                "deadline",
                subject,
                f"{num(held)} h{_at(confidence)} to train {run.train_tokens:,} tokens",
                f"run {run.name} must finish within {num(run.deadline_hours)} h",
            )
        tolerance = max(RELATIVE * hours, 1e-6)
        for found in _reported(assignment.hours, hours, tolerance, complete, "hours", "{} h reported"):
            yield Violation("deadline", subject, found, f"the speed model gives {num(hours)} h")
    if ctx.queued:  # a queue trains until its last job ends (the schedule rules check each end)
        trained = [job.end_hours for job in ctx.plan.schedule] if trained else []
    yield from _makespan_faults(ctx.plan.makespan_hours, trained)


def _reported(
    stated: float | None, value: float, tolerance: float, complete: bool, name: str, shown: str
) -> Iterator[str]:
    """A figure the plan reports is the speed model's within rounding, and present on plans of the
    version that states it (`shown` formats the stated figure)."""
    if stated is None:
        if complete:
            yield f"{name} missing"
    elif not close(stated, value, tolerance):
        yield shown.format(num(stated))


def _makespan_faults(makespan: float | None, trained: list[float]) -> Iterator[Violation]:
    """The plan's makespan is its longest copy's hours, a queue's its last job's end (when some
    copy's hours are known)."""
    if makespan is None or not trained:
        return
    longest = max([0.0, *trained])
    if close(makespan, longest, max(RELATIVE * longest, 1e-6)):
        return
    yield Violation(
        "deadline",
        "plan",
        f"makespan {num(makespan)} h",
        f"the longest copy (or the last job) ends at {num(longest)} h",
    )


def _copy_gpus(assignment: Assignment) -> int:
    """All the GPUs one copy trains on, over every node."""
    return sum(len(node.gpus) for node in assignment.nodes) or len(assignment.gpus)


def _training_kwh(ctx: Context, assignment: Assignment, hours: float) -> float | None:
    """hours × GPUs × (GPU W at the server's setting + host W per GPU) × PUE, in kWh; a copy on a GPU
    slice counts its compute share of one GPU."""
    parts, constants = ctx.parts.get(assignment.server), ctx.catalogue.speed
    if parts is None or constants is None:
        return None
    share = (
        parts.gpu.mig.compute_share(assignment.mig.profile)
        if assignment.mig and parts.gpu and parts.gpu.mig
        else 1.0
    )
    watts = _copy_gpus(assignment) * share * (parts.server.gpu_power_cap_w + constants.host_power_w_per_gpu)
    return hours * watts * ctx.workload.energy.pue / 1000


def check_energy(ctx: Context) -> Iterator[Violation]:
    """Each copy's training energy follows from its re-derived hours at its power setting, and the
    plan's energy is their sum."""
    total = 0.0
    for assignment in ctx.plan.assignments:
        kwh = _copy_kwh(ctx, assignment)
        if kwh is None:
            continue
        total += kwh
        if assignment.energy_kwh is not None and not close(
            assignment.energy_kwh, kwh, max(RELATIVE * kwh, 0.01)
        ):
            yield Violation(
                "energy",
                copy_subject(assignment),
                f"{num(assignment.energy_kwh)} kWh",
                f"{num(round(kwh, 2))} kWh: hours × GPUs × (GPU W at its setting + host W per GPU) × PUE",
            )
    stated, summed = ctx.plan.energy_kwh, sum(1 for a in ctx.plan.assignments if a.energy_kwh is not None)
    if stated is not None and total and not close(stated, total, _sum_tolerance(total, summed)):
        yield Violation("energy", "plan", f"{num(stated)} kWh", f"its copies draw {num(round(total, 2))} kWh")


def _sum_tolerance(total: float, terms: int) -> float:
    """How far a plan's stated energy may lie from the exact sum of its copies: the model's relative
    tolerance, plus the precision the figures are stored with. The plan may sum its copies' figures
    as stored (each rounded to ENERGY_PRECISION, so up to half of it off per copy) and round the sum
    again; sixteen copies each 0.0044 kWh high are 0.07 kWh off their exact sum, which is display
    rounding, not a wrong plan."""
    return max(RELATIVE * total, 0.05) + ENERGY_PRECISION / 2 * (terms + 1)


def _copy_kwh(ctx: Context, assignment: Assignment) -> float | None:
    """The copy's training energy at its re-derived hours; None where they cannot be re-derived."""
    run = ctx.runs.get(assignment.run)
    speed = assignment_speed(ctx, assignment)
    if run is None or speed is None or run.train_tokens is None:
        return None
    return _training_kwh(ctx, assignment, hours_to_train(run.train_tokens, speed))


def check_tco(ctx: Context) -> Iterator[Violation]:
    """The TCO's settings are the workload's, its energy follows the servers' draw, and it adds up."""
    tco, workload = ctx.plan.tco, ctx.workload
    if tco is None:
        return
    energy = workload.energy
    stated = (tco.objective, tco.price_per_kwh, tco.pue, tco.utilisation, tco.years)
    wanted = (workload.objective, energy.price_per_kwh, energy.pue, energy.utilisation, energy.years)
    if stated != wanted:
        yield Violation(
            "tco",
            "plan",
            "objective {} at {} per kWh, PUE {}, utilisation {}, {} years".format(*stated),
            "the workload says objective {} at {} per kWh, PUE {}, utilisation {}, {} years".format(*wanted),
        )
    for found, allowed in (*_tco_energy_faults(ctx, tco), *_tco_sum_faults(ctx, tco)):
        yield Violation("tco", "plan", found, allowed)


def _tco_energy_faults(ctx: Context, tco: Tco) -> Iterator[tuple[str, str]]:
    """The TCO's energy is the servers' full-load draw over the years at the utilisation and PUE,
    and its cost that energy at the price per kWh (each server's rounded to the cent)."""
    energy = ctx.workload.energy
    hours = energy.utilisation * energy.years * HOURS_PER_YEAR * energy.pue
    kwh = [server.power_w * hours / 1000 for server in ctx.plan.servers]
    cost = sum(round(k * energy.price_per_kwh, 2) for k in kwh)
    if not close(tco.energy_kwh, sum(kwh), 0.05 + 1e-9 * sum(kwh)):
        yield f"{num(tco.energy_kwh)} kWh", f"the servers draw {num(sum(kwh))} kWh"
    if not close(tco.energy_cost, cost, SUM_TOLERANCE):
        yield f"energy cost {money(tco.energy_cost)}", f"{money(cost)} at the servers' draw"


def _tco_sum_faults(ctx: Context, tco: Tco) -> Iterator[tuple[str, str]]:
    """The purchase is the servers and the fabric (total-price checks the plan's own figures), and
    the total is purchase plus energy cost."""
    plan = ctx.plan
    purchase = sum(server.price for server in plan.servers) + (plan.fabric.price if plan.fabric else 0.0)
    if not close(tco.purchase, purchase, SUM_TOLERANCE):
        yield f"purchase {money(tco.purchase)}", f"its servers and fabric sum to {money(purchase)}"
    if not close(tco.total, tco.purchase + tco.energy_cost, SUM_TOLERANCE):
        yield f"total {money(tco.total)}", f"purchase + energy cost = {money(tco.purchase + tco.energy_cost)}"
