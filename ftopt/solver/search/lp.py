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

from dataclasses import dataclass

from ortools.linear_solver import pywraplp

from ftopt.model.workload import GPU_COUNTS as BLOCK_SIZES
from ftopt.solver.cpsat.objective import cents
from ftopt.solver.problem.data import ProblemData

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


def _columns_and_rows(data: ProblemData) -> tuple[list[_Column], list[_Column], list[tuple[float, bool]]]:
    """(every column, the configuration columns, rows as (right-hand side, is ≤)) of the relaxation."""
    rows: list[tuple[float, bool]] = []
    run_row = {}
    for r, copies in enumerate(data.copies):
        run_row[r] = len(rows)
        rows.append((float(copies), False))
    class_row = {}
    for k in range(len(data.heavy_classes)):
        class_row[k] = len(rows)
        rows.append((0.0, False))
    block_row: dict[tuple[int, int], int] = {}
    light_builds = sorted({f for _, f in data.pool})
    for f in light_builds:
        gpus = {data.modes[m].gpus for m, ff in data.pool if ff == f}
        for t in BLOCK_SIZES:
            if any(g >= t for g in gpus):
                block_row[f, t] = len(rows)
                rows.append((0.0, True))
    limit = data.workload.site.max_servers
    limit_row = None
    if limit is not None:
        limit_row = len(rows)
        rows.append((float(limit), True))

    def server_entries(f: int, capacity: dict[int, int]) -> list[tuple[int, float]]:
        entries = [
            (block_row[f, t], -float(capacity[t])) for t in BLOCK_SIZES if (f, t) in block_row and capacity[t]
        ]
        return entries + ([(limit_row, 1.0)] if limit_row is not None else [])

    columns: list[_Column] = []
    for f in light_builds:
        build = data.builds[f]
        capacity = {t: build.slots if build.slots >= t else 0 for t in BLOCK_SIZES}
        columns.append(_Column(cents(build.price), data.pool_bound(f), server_entries(f, capacity)))
    for m, f in data.pool:
        mode = data.modes[m]
        entries = [(run_row[mode.run], 1.0)]
        entries += [(block_row[f, t], float(mode.gpus)) for t in BLOCK_SIZES if mode.gpus >= t]
        columns.append(_Column(0.0, data.copies[mode.run], entries))
    for k, heavy_class in enumerate(data.heavy_classes):
        for m in heavy_class.modes:
            run = data.modes[m].run
            columns.append(_Column(0.0, data.copies[run], [(run_row[run], 1.0), (class_row[k], 1.0)]))
    configs = []
    for config in data.configs:
        capacity = {t: config.capacity(t) for t in BLOCK_SIZES}
        entries = [(class_row[k], -float(count)) for k, count in config.heavy]
        column = _Column(
            cents(config.price), data.config_bound(config), entries + server_entries(config.build, capacity)
        )
        configs.append(column)
    return columns + configs, configs, rows


def lp_bound(data: ProblemData) -> LpBound | None:
    """Solve the relaxation with GLOP; None when it is infeasible or GLOP gives no optimum."""
    columns, configs, rows = _columns_and_rows(data)
    solver = pywraplp.Solver.CreateSolver("GLOP")
    if solver is None:
        return None
    inf = solver.infinity()
    constraints = [solver.Constraint(-inf if le else b, b) for b, le in rows]
    variables = []
    objective = solver.Objective()
    for column in columns:
        var = solver.NumVar(0.0, column.upper, "")
        variables.append(var)
        objective.SetCoefficient(var, column.cost)
        for row, coef in column.entries:
            constraints[row].SetCoefficient(var, coef)
    objective.SetMinimization()
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    duals = [
        min(0.0, c.dual_value()) if le else c.dual_value()
        for c, (_, le) in zip(constraints, rows, strict=True)
    ]

    def reduced(column: _Column) -> float:
        return column.cost - float(sum(duals[row] * coef for row, coef in column.entries))

    base = sum(y * b for y, (b, _) in zip(duals, rows, strict=True))
    base += sum(min(0.0, reduced(column)) * column.upper for column in columns)
    return LpBound(base, [base + max(0.0, reduced(column)) for column in configs])
