"""The next cheapest bids whose servers differ: no-good cuts on the server counts.

A customer asks for "the cheapest, and the next two that differ". The count model makes this cheap
to state: a plan's servers are the values of its server-count variables (plain servers per build,
configurations, multi-node copies), so "a different server set" is "at least one of those counts
differs", one cut per plan found. Each cut plan is decoded and right-sized like any; a decoded set
equal to one already offered (two count vectors may right-size alike) is cut too and skipped.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.model.settings import SolveSettings
from ftopt.solver.cpsat.formulation import Formulation, build_formulation
from ftopt.solver.decode.bills import fabric_price
from ftopt.solver.decode.counts import decode
from ftopt.solver.decode.layout import ServerLayout, price_of
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.search.run import make_solver, proven_cents

#: Cut-and-re-solve rounds per alternative asked for: a round whose decoded servers repeat an
#: offered set is cut and tried again, at most this many times over.
ROUNDS_PER_ALTERNATIVE = 3

ServerKey = tuple[str, str, int, int, int, int]


@dataclass(frozen=True)
class Found:
    """One plan of the sequence: its servers, its price (cents), whether it is proven next, and the
    search's lower bound (cents, on the objective: the price or the TCO) on any plan whose server set
    differs from the ones before it."""

    servers: list[ServerLayout]
    price_cents: int
    proven: bool
    bound_cents: int = 0


def server_set(servers: list[ServerLayout]) -> Counter[ServerKey]:
    """The multiset of servers as a buyer tells them apart: chassis, card, count, RAM, disk, NICs."""
    return Counter(
        (s.build.chassis.id, s.build.gpu.id, s.build.gpu_count, s.ram.gb, round(s.disk.gb), s.build.nic_count)
        for s in servers
    )


def _counts(built: Formulation) -> list[cp_model.IntVar]:
    v = built.variables
    return [*v.plain_servers.values(), *v.config_servers.values(), *v.multinode_copies.values()]


def _cut(built: Formulation, solver: cp_model.CpSolver) -> None:
    """Forbid the solver's values of every server count at once: some count must differ."""
    model, differs = built.model, []
    for var in _counts(built):
        value = solver.value(var)
        above = model.new_bool_var("")
        model.add(var >= value + 1).only_enforce_if(above)
        differs.append(above)
        if value > 0:
            below = model.new_bool_var("")
            model.add(var <= value - 1).only_enforce_if(below)
            differs.append(below)
    model.add_bool_or(differs)


def next_cheapest(
    data: ProblemData, settings: SolveSettings, first: list[ServerLayout], n: int, seconds: float
) -> tuple[list[Found], bool]:
    """Up to `n` plans after `first`, cheapest first, each with a server set no earlier plan has,
    and whether the time ran out (rather than the cuts leaving no plan) before `n` were found.

    The first solve of the loop finds the optimum again (its counts are what the first cut needs);
    every later solve minimises the price under all cuts so far. Stops early when the cuts leave
    no plan or the time runs out.
    """
    deadline = time.perf_counter() + seconds
    built = build_formulation(data)
    built.enforce_all()
    offered = [server_set(first)]
    found: list[Found] = []
    timed_out = False
    for _ in range((n + 1) * ROUNDS_PER_ALTERNATIVE):
        left = deadline - time.perf_counter()
        if len(found) == n or left <= 0:
            timed_out = left <= 0
            break
        solver = make_solver(settings, left)
        status = solver.solve(built.model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            timed_out = status == cp_model.UNKNOWN
            break
        servers = decode(data, built, solver)
        _cut(built, solver)
        if servers is None or server_set(servers) in offered:
            continue
        offered.append(server_set(servers))
        cents = round((price_of(servers) + fabric_price(data.catalogue, servers)) * 100)
        model_bound = proven_cents(solver.best_objective_bound)
        # Proven next only where the decoded plan costs what the model's optimum says: where it costs
        # more (heavy servers that needed more RAM or disk than their configuration bought), a plan
        # between the two may exist, as on ckpt-02, where one 0.08 % cheaper than the offered was.
        proven = status == cp_model.OPTIMAL and cents <= model_bound
        # A decoded plan never beats the search's own bound.
        bound = min(cents, model_bound) if data.workload.objective == "price" else model_bound
        found.append(Found(servers, cents, proven, bound))
    return sorted(found, key=lambda f: f.price_cents), timed_out
