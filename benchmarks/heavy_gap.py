"""Where the heavy tiers' gap comes from: the relaxation, not the search.

`ftopt.solve` on forty distinct offloading runs ends `feasible` with a gap of 1-4 %. The bound it
reports is the optimistic model's (heavy copies priced alone, as if no light copy shared their
server's RAM and disk); its plans come from servers right-sized for everything they carry, or from
the safe configurations that budget light copies. The solve's progress reports (`on_progress`, the
public API) are the optimistic model's incumbents, so one solve splits its own gap:

- the optimistic model's best price (its last incumbent) and the bound `solve` returns, which is that
  model's bound: when they meet, CP-SAT has proven the optimistic model optimal and no search of it
  can raise the bound further;
- the price `solve` returned.

(price − optimistic best) / price is then the relaxation's gap: when the optimistic model is proven,
it stays whatever the solver and the time limit, because the bound is the optimum of a model that
prices servers lower than any buildable plan. (optimistic best − bound) / price is what is left to
the search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ftopt import Progress, SolveSettings, load_catalogue, load_workload, solve


@dataclass(frozen=True)
class HeavyGap:
    """One bid's gap, split (prices in the bid's currency)."""

    instance: str
    price: float | None  # what `solve` returned
    optimistic: float | None  # the optimistic model's best price (its last incumbent)
    optimistic_bound: float  # the bound `solve` returned: the optimistic model's
    optimistic_proven: bool
    seconds: float

    def split(self) -> tuple[float | None, float | None]:
        """(relaxation gap, search gap) as shares of the price; None where either is missing."""
        price = self.price
        if self.optimistic is None or not price:
            return None, None
        return (price - self.optimistic) / price, (self.optimistic - self.optimistic_bound) / price


def heavy_gap(path: Path, time_limit: float) -> HeavyGap:
    """Solve the bid at `path` as a user would, keeping the optimistic model's last incumbent."""
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    seen: list[Progress] = []
    started = time.perf_counter()
    result = solve(workload, catalogue, SolveSettings(time_limit=time_limit, workers=2), seen.append)
    best = min((p.price for p in seen), default=None)
    bound = result.bound or 0.0
    return HeavyGap(
        instance=path.stem,
        price=result.price,
        optimistic=best,
        optimistic_bound=bound,
        optimistic_proven=best is not None and best <= bound + 0.005,
        seconds=round(time.perf_counter() - started, 2),
    )


def render_gaps(gaps: list[HeavyGap]) -> list[str]:
    """Markdown lines: each heavy bid's gap split into relaxation and search."""

    def share(x: float | None) -> str:
        return "–" if x is None else f"{x:.2%}"

    def money(x: float | None) -> str:
        return "–" if x is None else f"{x:,.0f}"

    lines = [
        "| instance | optimistic model: best | bound (solve's) | proven | price (solve) | relaxation gap "
        "| search gap | s |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for gap in gaps:
        relaxation, search = gap.split()
        lines.append(
            f"| {gap.instance} | {money(gap.optimistic)} | {money(gap.optimistic_bound)} | "
            f"{'yes' if gap.optimistic_proven else 'no'} | {money(gap.price)} | {share(relaxation)} | "
            f"{share(search)} | {gap.seconds:.1f} |"
        )
    return lines
