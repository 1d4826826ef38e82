"""The model's LP relaxation: a price bound, and which heavy configurations no cheaper plan can use.

Why: forty distinct offloading runs give tens of thousands of heavy configurations (one per
multiset of heavy copies one server holds), and CP-SAT found no plan among them in a minute. Most
can be ruled out exactly, by reduced-cost fixing:

For any duals y of the LP relaxation (signs as a minimisation requires: ≤ rows y ≤ 0, equality rows
free), each column j has the reduced cost rc_j = c_j − yᵀA_j, and every point x of the LP (so every
plan of the CP-SAT model) satisfies c·x = yᵀAx + rc·x ≥ yᵀb + Σ_j min(0, rc_j)·u_j + Σ_{rc_j>0}
rc_j·x_j, where u_j is x_j's upper bound. So a plan that uses configuration j at least once costs at
least L + rc_j, with L = yᵀb + Σ_j min(0, rc_j)·u_j. When that exceeds the price of a plan already
in hand, no plan as cheap uses j, and dropping j keeps every optimum (and every tie-break among
optima). The argument holds for whatever duals the LP solver returns: the reduced costs and L are
recomputed here from them, and the LP's accuracy only decides how many columns go.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ortools.linear_solver import pywraplp

from ftopt.model.workload import GPU_COUNTS as BLOCK_SIZES
from ftopt.solver.cpsat.objective import cents
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import compatible

#: Cents of slack on every comparison with the price in hand, for the rounding of float sums.
MARGIN_CENTS = 1.0


@dataclass(frozen=True)
class LpBound:
    """The relaxation's lower bound L (cents) and each configuration's bound when used once."""

    bound: float
    config_bounds: list[float]

    def keep(self, upper_cents: float) -> list[int]:
        """Configurations some plan costing at most `upper_cents` may use."""
        return [c for c, b in enumerate(self.config_bounds) if b <= upper_cents + MARGIN_CENTS]


@dataclass
class _Column:
    cost: float
    upper: float
    entries: list[tuple[int, float]]


@dataclass
class _Rows:
    """The relaxation's rows as (right-hand side, is ≤), with the index of each family's rows."""

    rows: list[tuple[float, bool]]
    run: dict[int, int]
    heavy_class: dict[int, int]
    block: dict[tuple[int, int], int]
    limit: int | None

    def add(self, rhs: float, at_most: bool) -> int:
        self.rows.append((rhs, at_most))
        return len(self.rows) - 1

    def server_entries(self, f: int, capacity: dict[int, int]) -> list[tuple[int, float]]:
        """One server of build f: its free GPUs per block size, and its place under the server limit."""
        entries = [
            (self.block[f, t], -float(capacity[t]))
            for t in BLOCK_SIZES
            if (f, t) in self.block and capacity[t]
        ]
        return entries + ([(self.limit, 1.0)] if self.limit is not None else [])


def _light_gpus(data: ProblemData) -> dict[int, set[int]]:
    """Per build of the light pool, the GPU counts of its light copies."""
    gpus: dict[int, set[int]] = {}
    for m, f in data.pool:
        gpus.setdefault(f, set()).add(data.modes[m].gpus)
    return gpus


def _rows(data: ProblemData) -> _Rows:
    """Every copy placed (=), heavy copies within their configurations (=), light copies' GPUs within
    the free blocks of each build (≤), and the site's server limit (≤)."""
    rows = _Rows([], {}, {}, {}, None)
    for r, copies in enumerate(data.copies):
        rows.run[r] = rows.add(float(copies), False)
    for k in range(len(data.heavy_classes)):
        rows.heavy_class[k] = rows.add(0.0, False)
    for f, gpus in sorted(_light_gpus(data).items()):
        for t in (t for t in BLOCK_SIZES if max(gpus) >= t):
            rows.block[f, t] = rows.add(0.0, True)
    limit = data.workload.site.max_servers
    if limit is not None:
        rows.limit = rows.add(float(limit), True)
    return rows


def _light_columns(data: ProblemData, rows: _Rows) -> list[_Column]:
    """Plain servers per build (their free blocks), then light copies per (mode, build)."""
    columns = []
    for f in sorted({f for _, f in data.pool}):
        build = data.builds[f]
        capacity = {t: build.slots if build.slots >= t else 0 for t in BLOCK_SIZES}
        columns.append(_Column(cents(build.price), data.pool_bound(f), rows.server_entries(f, capacity)))
    for m, f in data.pool:
        mode = data.modes[m]
        entries = [(rows.run[mode.run], 1.0)]
        entries += [(rows.block[f, t], float(mode.gpus)) for t in BLOCK_SIZES if mode.gpus >= t]
        columns.append(_Column(0.0, data.copies[mode.run], entries))
    return columns


def _heavy_and_multinode_columns(data: ProblemData, rows: _Rows) -> list[_Column]:
    """Heavy copies per class, and multi-node copies at their servers' price.

    A multi-node copy's column leaves out its fabric and energy: both only add to the price, so the
    relaxation stays below every plan. Without these columns a run that only multi-node modes hold
    could not be placed, and the relaxation was infeasible (5,000 distinct runs: no bound at all)."""
    columns = []
    for k, heavy_class in enumerate(data.heavy_classes):
        for m in heavy_class.modes:
            run = data.modes[m].run
            columns.append(_Column(0.0, data.copies[run], [(rows.run[run], 1.0), (rows.heavy_class[k], 1.0)]))
    for option in data.multinode:
        run = data.modes[option.mode].run
        entries = [(rows.run[run], 1.0)] + (
            [(rows.limit, float(option.servers))] if rows.limit is not None else []
        )
        columns.append(_Column(cents(option.price), data.copies[run], entries))
    return columns


def _config_columns(data: ProblemData, rows: _Rows) -> list[_Column]:
    """One column per heavy configuration: the heavy copies it holds and its free blocks."""
    configs = []
    for config in data.configs:
        capacity = {t: config.capacity(t) for t in BLOCK_SIZES}
        entries = [(rows.heavy_class[k], -float(count)) for k, count in config.heavy]
        entries += rows.server_entries(config.build, capacity)
        configs.append(_Column(cents(config.price), data.config_bound(config), entries))
    return configs


def _columns_and_rows(data: ProblemData) -> tuple[list[_Column], list[_Column], list[tuple[float, bool]]]:
    """(every column, the configuration columns, rows as (right-hand side, is ≤)) of the relaxation."""
    rows = _rows(data)
    configs = _config_columns(data, rows)
    return _light_columns(data, rows) + _heavy_and_multinode_columns(data, rows) + configs, configs, rows.rows


def _solve(
    columns: list[_Column], rows: list[tuple[float, bool]], seconds: float | None
) -> list[float] | None:
    """GLOP's duals of the relaxation, signed as a minimisation requires (≤ rows y ≤ 0); None when
    it is infeasible or GLOP gives no optimum within `seconds`."""
    solver = pywraplp.Solver.CreateSolver("GLOP")
    if solver is None:
        return None
    if seconds is not None:
        solver.SetTimeLimit(max(1, int(seconds * 1000)))
    inf = solver.infinity()
    constraints = [solver.Constraint(-inf if le else b, b) for b, le in rows]
    objective = solver.Objective()
    for column in columns:
        var = solver.NumVar(0.0, column.upper, "")
        objective.SetCoefficient(var, column.cost)
        for row, coef in column.entries:
            constraints[row].SetCoefficient(var, coef)
    objective.SetMinimization()
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    return [
        min(0.0, c.dual_value()) if le else c.dual_value()
        for c, (_, le) in zip(constraints, rows, strict=True)
    ]


def lp_bound(data: ProblemData, seconds: float | None = None) -> LpBound | None:
    """Solve the relaxation with GLOP (within `seconds` when given); None when it is infeasible or
    GLOP gives no optimum in time."""
    columns, configs, rows = _columns_and_rows(data)
    duals = _solve(columns, rows, seconds)
    if duals is None:
        return None

    def reduced(column: _Column) -> float:
        return column.cost - float(sum(duals[row] * coef for row, coef in column.entries))

    base = sum(y * b for y, (b, _) in zip(duals, rows, strict=True))
    base += sum(min(0.0, reduced(column)) * column.upper for column in columns)
    return LpBound(base, [base + max(0.0, reduced(column)) for column in configs])


#: Light pairings and configurations from which the relaxation's bound is taken before the search:
#: CP-SAT on 5,000 distinct runs (110,000 light pairings) may end its time without a bound of its
#: own, and GLOP solves that relaxation in about 2 s.
BIG_MODEL = 20_000
#: Share of the search's time the relaxation may take.
FLOOR_SHARE = 0.15


def price_floor(data: ProblemData, seconds: float) -> float:
    """A lower bound on the price in cents, beside CP-SAT's own: the GPU-slot floor (`slot_floor`,
    milliseconds), and for a model large enough that CP-SAT may give no bound in its time the
    relaxation's too, when GLOP finishes in `FLOOR_SHARE` of `seconds`."""
    floor = max(0.0, slot_floor(data) - MARGIN_CENTS)
    if len(data.pool) + len(data.configs) < BIG_MODEL:
        return floor
    found = lp_bound(data, FLOOR_SHARE * seconds) if seconds > 0 else None
    return max(floor, found.bound - MARGIN_CENTS) if found is not None else floor


def _slot_cents(build: Build) -> float:
    """The least a server of `build` costs (its cheapest RAM and disk tiers, which already meet the
    memory rules, and its energy), in cents per slot."""
    ram = min((t.price for t in build.ram_upgrades), default=0.0)
    disk = min((t.price for t in build.disk_upgrades), default=0.0)
    return cents(build.fixed_price + ram + disk + build.energy_cost) / build.slots


def slot_floor(data: ProblemData) -> float:
    """A lower bound on the price in cents that needs no solver: every copy pays at least its GPUs
    (or slices) at the lowest price per slot of any build its mode fits, and a copy over several
    servers at least its cheapest option's servers.

    Why it holds: a server costs at least its build's fixed price, its cheapest RAM and disk tiers
    and its energy, which its slots share; bigger tiers, fabric and idle slots only add.

    Why it is needed: on 5,000 distinct runs building the model took most of the time limit, GLOP
    had no time left, and the plan came with a bound of 0 (a gap of 100 %); this floor takes
    milliseconds per thousand modes, and on 500 copies of 40 runs it is the LP's bound (0.6 %
    below the optimum)."""
    by_card: dict[tuple[str, str | None], list[Build]] = {}  # what `compatible` checks first
    for b in data.builds:
        by_card.setdefault((b.gpu.id, b.mig.name if b.mig else None), []).append(b)
    per_slot: dict[int, float] = {}  # mode → cheapest cents of its slots (whole servers: per copy)
    for m, mode in enumerate(data.modes):
        prices = [
            mode.gpus * _slot_cents(b) for b in by_card.get((mode.gpu, mode.mig), ()) if compatible(mode, b)
        ]
        per_slot[m] = min(prices, default=math.inf)
    for option in data.multinode:
        whole = cents(option.price + option.servers * option.build.energy_cost)
        per_slot[option.mode] = min(per_slot[option.mode], whole)
    total = 0.0
    for run, copies in enumerate(data.copies):
        cheapest = min((per_slot[m] for m in data.modes_of(run)), default=math.inf)
        if math.isinf(cheapest):
            return 0.0  # a run no build holds: the search says why, this floor says nothing
        total += copies * cheapest
    return total
