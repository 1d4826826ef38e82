"""The textbook CP-SAT assignment model, for comparison only: not part of the product.

One boolean per (run copy, mode, server slot), a layout choice per slot, a RAM and a disk choice per
slot, and nothing of what makes the product's model small: copies are not aggregated into counts,
servers are not pooled, and no symmetry is broken (CP-SAT's own symmetry detection stays at its
default). Layouts, RAM and disk options and modes are `hardware.py`'s, from the catalogue and the
model layer; the rules per slot: GPUs per card model (Σ GPUs ≤ cards, exact for power-of-two
blocks), NVLink domains for sharded modes, host RAM (Σ ⌈offload⌉ + reserve ≤ RAM bought) and NVMe
(Σ ⌈checkpoints⌉ ≤ disk bought).

This is the more compact of the two textbook forms: one boolean per GPU start index would multiply
the booleans by up to 8, so the speed ratios measured against it are conservative.

Slots: by default as many as first-fit decreasing opened. That is what a modeller would take, but it
is not a valid bound in general (an optimum may use more, cheaper servers); the report compares the
naive price with the product's, so a restriction that cut off the optimum would show. The naive
plan's price is recomputed from the price list for the parts its solution buys, not read from the
objective.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from benchmarks.baselines.ffd import first_fit_decreasing
from benchmarks.baselines.hardware import Layout, Mode, holds, layouts, modes
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload

_STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.UNKNOWN: "unknown",
    cp_model.MODEL_INVALID: "invalid",
}


@dataclass
class NaiveResult:
    """Outcome of one naive solve; prices in currency units."""

    status: str
    price: float | None  # recomputed from the price list for what the solution buys
    objective: float | None  # what CP-SAT says it costs; must equal `price`
    bound: float | None
    slots: int
    booleans: int
    build_seconds: float
    solve_seconds: float

    @property
    def seconds(self) -> float:
        """Model build plus solve."""
        return self.build_seconds + self.solve_seconds


@dataclass
class Slot:
    """One server slot's choice variables: layout, RAM option and disk option per layout."""

    use: dict[int, cp_model.IntVar]
    ram: dict[int, list[cp_model.IntVar]]
    disk: dict[int, list[cp_model.IntVar]]


def _cents(amount: float) -> int:
    return round(amount * 100)


def _weighted(pairs: list[tuple[cp_model.IntVar, int]]) -> cp_model.LinearExpr:
    return cp_model.LinearExpr.weighted_sum([v for v, _ in pairs], [c for _, c in pairs])


def _slot(model: cp_model.CpModel, s: int, options: list[Layout]) -> Slot:
    """At most one layout; exactly one RAM and one disk option for the layout chosen."""
    use = {i: model.new_bool_var(f"u[{s},{i}]") for i in range(len(options))}
    model.add_at_most_one(use.values())
    ram, disk = {}, {}
    for i, layout in enumerate(options):
        ram[i] = [model.new_bool_var(f"ram[{s},{i},{t}]") for t in range(len(layout.rams))]
        disk[i] = [model.new_bool_var(f"disk[{s},{i},{t}]") for t in range(len(layout.disks))]
        model.add(sum(ram[i]) == use[i])
        model.add(sum(disk[i]) == use[i])
    return Slot(use, ram, disk)


def _slot_price(slot: Slot, options: list[Layout]) -> list[tuple[cp_model.IntVar, int]]:
    terms = []
    for i, layout in enumerate(options):
        terms.append((slot.use[i], _cents(layout.fixed_price)))
        terms += [(v, _cents(p.price)) for v, p in zip(slot.ram[i], layout.rams, strict=True)]
        terms += [(v, _cents(p.price)) for v, p in zip(slot.disk[i], layout.disks, strict=True)]
    return terms


def _slot_rules(
    model: cp_model.CpModel,
    slot: Slot,
    options: list[Layout],
    placed: list[tuple[Mode, cp_model.IntVar]],
    reserve: int,
) -> None:
    """GPUs per card model, NVLink domains per sharded mode, host RAM and NVMe of one slot."""
    for card in sorted({layout.gpu.id for layout in options}):
        used = [(v, m.gpus) for m, v in placed if m.sizing.gpu == card]
        room = [(slot.use[i], o.gpu_count) for i, o in enumerate(options) if o.gpu.id == card]
        if used:
            model.add(_weighted(used) <= _weighted(room))
    for mode in {m for m, _ in placed if m.domain}:
        used = [(v, m.gpus) for m, v in placed if m == mode]
        room = [(slot.use[i], o.gpu_count) for i, o in enumerate(options) if holds(o, mode)]
        model.add(_weighted(used) <= _weighted(room))
    ram_cap = [(v, p.gb) for i, o in enumerate(options) for v, p in zip(slot.ram[i], o.rams, strict=True)]
    disk_cap = [(v, p.gb) for i, o in enumerate(options) for v, p in zip(slot.disk[i], o.disks, strict=True)]
    ram = [(v, m.ram_gb) for m, v in placed if m.ram_gb]
    servers = cp_model.LinearExpr.sum(list(slot.use.values()))
    model.add(_weighted(ram) + servers * reserve <= _weighted(ram_cap))
    model.add(_weighted([(v, m.nvme_gb) for m, v in placed]) <= _weighted(disk_cap))


def _resources(mode: Mode) -> tuple[int, int, int, int]:
    return (mode.gpus, mode.domain, mode.ram_gb, mode.nvme_gb)


def prune(run_modes: list[Mode], options: list[Layout]) -> list[Mode]:
    """Modes some layout holds, less those another mode on the same card beats on every resource
    the model sees (GPUs, domain, RAM, NVMe): what any modeller would drop first."""
    usable = sorted((m for m in run_modes if any(holds(o, m) for o in options)), key=_resources)
    kept: list[Mode] = []
    for mode in usable:
        if not any(
            k.sizing.gpu == mode.sizing.gpu
            and all(a <= b for a, b in zip(_resources(k), _resources(mode), strict=True))
            for k in kept
        ):
            kept.append(mode)
    return kept


def useful(options: list[Layout], per_run: list[list[Mode]]) -> list[Layout]:
    """Bridged layouts only on cards where some mode needs an NVLink domain."""
    sharded = {m.sizing.gpu for run_modes in per_run for m in run_modes if m.domain}
    return [o for o in options if o.bridge is None or o.gpu.id in sharded]


def build_naive(
    workload: Workload, catalogue: Catalogue, slots: int
) -> tuple[cp_model.CpModel, list[Slot], list[Layout], int]:
    """The naive model over `slots` slots: the model, its slots, the layouts, and the copy booleans."""
    model = cp_model.CpModel()
    options = layouts(catalogue, workload)
    per_run = [prune(m, options) for m in modes(catalogue, workload, {o.gpu.id for o in options})]
    options = useful(options, per_run)
    placed: list[list[tuple[Mode, cp_model.IntVar]]] = [[] for _ in range(slots)]
    booleans = 0
    for run, usable in enumerate(per_run):
        for c in range(workload.runs[run].concurrent):
            row = []
            for k, mode in enumerate(usable):
                for s in range(slots):
                    var = model.new_bool_var(f"x[{run},{c},{k},{s}]")
                    placed[s].append((mode, var))
                    row.append(var)
            model.add_exactly_one(row)
            booleans += len(row)
    reserve = math.ceil(catalogue.rules.host_ram_reserve_gb)
    chosen, price = [], []
    for s in range(slots):
        slot = _slot(model, s, options)
        _slot_rules(model, slot, options, placed[s], reserve)
        price += _slot_price(slot, options)
        chosen.append(slot)
    model.minimize(_weighted(price))
    return model, chosen, options, booleans


def bought(solver: cp_model.CpSolver, slots: list[Slot], options: list[Layout]) -> float:
    """What the solution buys, priced from the layouts' and options' price-list figures."""
    total = 0.0
    for slot in slots:
        for i, layout in enumerate(options):
            if solver.value(slot.use[i]):
                total += layout.fixed_price
                total += sum(
                    p.price for v, p in zip(slot.ram[i], layout.rams, strict=True) if solver.value(v)
                )
                total += sum(
                    p.price for v, p in zip(slot.disk[i], layout.disks, strict=True) if solver.value(v)
                )
    return round(total, 2)


def naive(
    workload: Workload, catalogue: Catalogue, time_limit: float, workers: int, slots: int | None = None
) -> NaiveResult:
    """Build and solve the naive model; slots default to FFD's server count."""
    started = time.perf_counter()
    if slots is None:
        slots = first_fit_decreasing(workload, catalogue).servers
    model, chosen, options, booleans = build_naive(workload, catalogue, slots)
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
        price=bought(solver, chosen, options) if found else None,
        objective=solver.objective_value / 100 if found else None,
        bound=solver.best_objective_bound / 100 if found else None,
        slots=slots,
        booleans=booleans,
        build_seconds=built - started,
        solve_seconds=solved - built,
    )


#: Most copy booleans the naive model is built with: beyond this its build alone outgrows the
#: machine (c10000: 10,000 copies × modes × FFD's servers), so the size is reported instead.
MAX_BOOLEANS = 4_000_000


def booleans_needed(workload: Workload, catalogue: Catalogue, slots: int) -> int:
    """The copy booleans `build_naive` would make over `slots` slots, counted without building."""
    options = layouts(catalogue, workload)
    per_run = [prune(m, options) for m in modes(catalogue, workload, {o.gpu.id for o in options})]
    return sum(run.concurrent * len(m) * slots for run, m in zip(workload.runs, per_run, strict=True))


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.baselines.naive BID --time-limit S`: one naive solve, its outcome as JSON
    on stdout (a separate process, so that `benchmarks.side_by_side` measures its wall and memory)."""
    import argparse
    import json
    from dataclasses import asdict

    from ftopt import load_catalogue, load_workload

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("bid")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    catalogue = load_catalogue()
    workload = load_workload(args.bid, catalogue)
    try:
        slots = first_fit_decreasing(workload, catalogue).servers
    except ValueError as error:  # a copy the spreadsheet's cheapest server does not hold
        print(json.dumps({"status": "not built", "why": f"no slot count: first fit has no plan ({error})"}))
        return 0
    needed = booleans_needed(workload, catalogue, slots)
    if needed > MAX_BOOLEANS:
        why = f"{needed:,} booleans over {slots:,} slots"
        print(json.dumps({"status": "not built", "booleans": needed, "slots": slots, "why": why}))
        return 0
    result = naive(workload, catalogue, args.time_limit, args.workers, slots)
    print(json.dumps(asdict(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
