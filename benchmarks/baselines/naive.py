"""The textbook CP-SAT assignment model, for comparison only: not part of the product.

One boolean per (run copy, training mode, server slot), a build choice per slot, and nothing of
what makes the product's model small: copies are not aggregated into counts, servers are not pooled,
and no symmetry is broken (CP-SAT's own symmetry detection stays at its default). The rules are the
product's: its builds, modes and `compatible` test, GPU capacity per card type (Σ GPUs ≤ cards,
exact for power-of-two blocks), NVLink domain size, host RAM (Σ ⌈offload⌉ + reserve ≤ chosen RAM
tier) and NVMe (Σ ⌈checkpoints⌉ ≤ chosen disk tier) per slot.

This is the more compact of the two textbook forms: one boolean per GPU start index would multiply
the booleans by up to 8 (by 4 on average here), so the speed ratios measured against it are
conservative.

Slots: by default as many as first-fit decreasing opened. That is what a modeller would take, but it
is not a valid bound in general (an optimum may use more, cheaper servers); the runner compares the
naive price with the product's, so a restriction that cut off the optimum would show.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from benchmarks.baselines.ffd import first_fit_decreasing
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.solver.problem import ProblemData, build_problem, compatible

_STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.UNKNOWN: "unknown",
    cp_model.MODEL_INVALID: "invalid",
}


@dataclass
class NaiveResult:
    """Outcome of one naive solve."""

    status: str
    price: float | None
    bound: float | None
    slots: int
    booleans: int
    build_seconds: float
    solve_seconds: float

    @property
    def seconds(self) -> float:
        """Model build plus solve."""
        return self.build_seconds + self.solve_seconds

    @property
    def gap(self) -> float | None:
        """Relative gap to the bound."""
        if self.price is None or self.bound is None or not self.price:
            return None
        return max(0.0, (self.price - self.bound) / self.price)


def _cents(amount: float) -> int:
    return round(amount * 100)


def build_naive(data: ProblemData, slots: int) -> tuple[cp_model.CpModel, int]:
    """The naive model over `slots` server slots; returns it and its number of copy booleans."""
    model = cp_model.CpModel()
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    builds = [f for f, build in enumerate(data.builds) if any(compatible(o, build) for o in data.modes)]
    usable = [o for o, mode in enumerate(data.modes) if any(compatible(mode, data.builds[f]) for f in builds)]
    cards = sorted({data.builds[f].gpu.id for f in builds})
    price_terms: list[tuple[cp_model.IntVar, int]] = []
    x: dict[int, list[tuple[int, cp_model.IntVar]]] = {s: [] for s in range(slots)}  # slot → (mode, var)
    per_copy: list[list[cp_model.IntVar]] = []
    for run, copies in enumerate(data.copies):
        modes = [o for o in usable if data.modes[o].run == run]
        for c in range(copies):
            row = []
            for o in modes:
                for s in range(slots):
                    var = model.new_bool_var(f"x[{run},{c},{o},{s}]")
                    x[s].append((o, var))
                    row.append(var)
            per_copy.append(row)
    for row in per_copy:
        model.add_exactly_one(row)
    for s in range(slots):
        u = {f: model.new_bool_var(f"u[{s},{f}]") for f in builds}
        model.add_at_most_one(u.values())
        ram_cap: list[tuple[cp_model.IntVar, int]] = []
        disk_cap: list[tuple[cp_model.IntVar, int]] = []
        for f in builds:
            build = data.builds[f]
            price_terms.append((u[f], _cents(build.fixed_price)))
            rams = [model.new_bool_var(f"ram[{s},{f},{t}]") for t in range(len(build.ram_upgrades))]
            disks = [model.new_bool_var(f"disk[{s},{f},{t}]") for t in range(len(build.disk_upgrades))]
            model.add(sum(rams) == u[f])
            model.add(sum(disks) == u[f])
            for var, tier in zip(rams, build.ram_upgrades, strict=True):
                ram_cap.append((var, tier.gb))
                price_terms.append((var, _cents(tier.price)))
            for var, disk in zip(disks, build.disk_upgrades, strict=True):
                disk_cap.append((var, math.floor(disk.gb)))
                price_terms.append((var, _cents(disk.price)))
        _slot_rules(model, data, x[s], u, cards, ram_cap, disk_cap, reserve)
    model.minimize(cp_model.LinearExpr.weighted_sum([v for v, _ in price_terms], [c for _, c in price_terms]))
    return model, sum(len(row) for row in per_copy)


def _weighted(pairs: list[tuple[cp_model.IntVar, int]]) -> cp_model.LinearExpr:
    return cp_model.LinearExpr.weighted_sum([v for v, _ in pairs], [c for _, c in pairs])


def _slot_rules(
    model: cp_model.CpModel,
    data: ProblemData,
    placed: list[tuple[int, cp_model.IntVar]],
    u: dict[int, cp_model.IntVar],
    cards: list[str],
    ram_cap: list[tuple[cp_model.IntVar, int]],
    disk_cap: list[tuple[cp_model.IntVar, int]],
    reserve: int,
) -> None:
    """GPU capacity per card type, NVLink domain size, host RAM and NVMe of one slot."""
    for card in cards:
        used = [(v, data.modes[o].gpus) for o, v in placed if data.modes[o].gpu == card]
        capacity = [(u[f], data.builds[f].gpu_count) for f in u if data.builds[f].gpu.id == card]
        if used:
            model.add(_weighted(used) <= _weighted(capacity))
    for o in sorted({o for o, _ in placed if data.modes[o].domain}):
        mode = data.modes[o]
        used = [(v, mode.gpus) for oo, v in placed if oo == o]
        capacity = [(u[f], data.builds[f].gpu_count) for f in u if compatible(mode, data.builds[f])]
        model.add(_weighted(used) <= _weighted(capacity))
    ram = [(v, math.ceil(data.modes[o].host_ram_gb)) for o, v in placed if data.modes[o].host_ram_gb > 0]
    model.add(_weighted(ram) + reserve * sum(u.values()) <= _weighted(ram_cap))
    nvme = [(v, math.ceil(data.modes[o].nvme_gb)) for o, v in placed]
    model.add(_weighted(nvme) <= _weighted(disk_cap))


def naive(
    workload: Workload,
    catalogue: Catalogue,
    time_limit: float,
    workers: int,
    slots: int | None = None,
) -> NaiveResult:
    """Build and solve the naive model; slots default to FFD's server count."""
    started = time.perf_counter()
    data = build_problem(workload, catalogue)
    if slots is None:
        slots = len(first_fit_decreasing(data).servers)
    model, booleans = build_naive(data, slots)
    built = time.perf_counter()
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, workers)
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.random_seed = 0
    status = solver.solve(model)
    solved = time.perf_counter()
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    return NaiveResult(
        status=_STATUS.get(status, str(status)),
        price=solver.objective_value / 100 if found else None,
        bound=solver.best_objective_bound / 100 if found else None,
        slots=slots,
        booleans=booleans,
        build_seconds=built - started,
        solve_seconds=solved - built,
    )
