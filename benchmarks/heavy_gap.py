"""Where the heavy tiers' gap comes from: the relaxation, not the search.

`ftopt.solve` on forty distinct offloading runs ends `feasible` with a gap of 1-4 %. The bound it
reports is the optimistic model's (heavy copies priced alone, `ProblemData.configs`); its plans come
from servers right-sized for everything they carry, or from the safe configurations that budget
light copies (`ProblemData.safe_configs`). This splits the gap of one bid into its parts, by solving
the optimistic model alone for the same time limit:

- the LP bound of the optimistic model (`ftopt.solver.search.lp.lp_bound`), the weakest bound;
- the optimistic model's own best price and bound from CP-SAT (`run_model`): when CP-SAT proves it
  optimal, no search of that model can raise the bound further;
- the price `solve` returned.

(price − optimistic optimum) / price is then the relaxation's gap: it stays whatever the solver and
the time limit, because the bound is the optimum of a model that prices servers lower than any
buildable plan. Only (optimistic optimum − bound) / price is left to the search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ftopt import SolveSettings, load_catalogue, load_workload
from ftopt.solver.problem.data import build_problem
from ftopt.solver.search.greedy import greedy_plan
from ftopt.solver.search.lp import lp_bound
from ftopt.solver.search.run import run_model


@dataclass(frozen=True)
class HeavyGap:
    """One bid's gap, split (prices in the bid's currency)."""

    instance: str
    configs: int  # optimistic heavy configurations
    safe_configs: int  # configurations that budget light copies
    lp: float | None  # the optimistic model's LP bound
    optimistic: float | None  # the optimistic model's best price found by CP-SAT
    optimistic_bound: float  # CP-SAT's bound on it
    optimistic_proven: bool
    seconds: float

    def split(self, price: float) -> tuple[float | None, float | None]:
        """(relaxation gap, search gap) as shares of `price`; None where the model found no plan."""
        if self.optimistic is None or not price:
            return None, None
        return (price - self.optimistic) / price, (self.optimistic - self.optimistic_bound) / price


def heavy_gap(path: Path, time_limit: float) -> HeavyGap:
    """Solve the optimistic model of the bid at `path` alone, as `solve` does first, and its LP."""
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    data = build_problem(workload, catalogue.arriving_within(workload.site.delivery_weeks))
    lp = lp_bound(data)
    started = time.perf_counter()
    settings = SolveSettings(time_limit=time_limit, workers=2)
    outcome = run_model(data, settings, started + time_limit, plan=greedy_plan(data))
    found = outcome is not None and outcome.found
    return HeavyGap(
        instance=path.stem,
        configs=len(data.configs),
        safe_configs=len(data.safe_configs),
        lp=lp.bound / 100 if lp is not None else None,
        optimistic=outcome.objective / 100 if found and outcome is not None else None,
        optimistic_bound=max(0.0, outcome.bound / 100) if outcome is not None else 0.0,
        optimistic_proven=bool(outcome is not None and outcome.proven),
        seconds=round(time.perf_counter() - started, 2),
    )


def render_gaps(gaps: list[tuple[HeavyGap, float | None]]) -> list[str]:
    """Markdown lines: each heavy bid's gap split into relaxation and search, with its sources."""

    def share(x: float | None) -> str:
        return "–" if x is None else f"{x:.2%}"

    def money(x: float | None) -> str:
        return "–" if x is None else f"{x:,.0f}"

    lines = [
        "| instance | configurations (optimistic / safe) | LP bound | optimistic model: best | its bound "
        "| proven | price (solve) | relaxation gap | search gap | s |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for gap, price in gaps:
        relaxation, search = gap.split(price) if price is not None else (None, None)
        lines.append(
            f"| {gap.instance} | {gap.configs:,} / {gap.safe_configs:,} | {money(gap.lp)} | "
            f"{money(gap.optimistic)} | {money(gap.optimistic_bound)} | "
            f"{'yes' if gap.optimistic_proven else 'no'} | {money(price)} | {share(relaxation)} | "
            f"{share(search)} | {gap.seconds:.1f} |"
        )
    return lines
