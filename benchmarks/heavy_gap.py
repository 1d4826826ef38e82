"""Where the heavy tiers' gap comes from: the relaxation, not the search.

`ftopt.solve` on forty distinct offloading runs ends `feasible` with a gap of 0.1-2 %. Its bound is
the optimistic model's (heavy copies priced alone, as if no light copy shared their server's RAM
and disk), or, when that model was proven with time to spare, the sized model's (light copies
counted against the room each configuration's RAM and disk leave, docs/design.md), which only
raises it; its plans come from servers right-sized for everything they carry, or from the safe
configurations that budget light copies. The solve's progress reports (`on_progress`, the public
API) are the optimistic model's incumbents, so one solve splits its own gap:

- the optimistic model's best price (its last incumbent) against the bound `solve` returns: when
  the bound is at or above it, CP-SAT has proven the optimistic model optimal, and what the bound
  rose above it is the sized model's doing;
- the price `solve` returned.

(price − the larger of the two) / price is the relaxation's gap left: when the optimistic model is
proven it stays whatever the time limit, short of the sized model's proof. (optimistic best −
bound) / price, where positive, is what is left to the search.
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
    optimistic_bound: float  # the bound `solve` returned: the optimistic model's, or the sized one's above it
    optimistic_proven: bool
    seconds: float

    def split(self) -> tuple[float | None, float | None]:
        """(relaxation gap left, search gap) as shares of the price, adding up to the gap the bound
        leaves; None where either is missing."""
        price = self.price
        if self.optimistic is None or not price:
            return None, None
        best = max(self.optimistic, self.optimistic_bound)
        return (price - best) / price, max(0.0, self.optimistic - self.optimistic_bound) / price

    def sized_gain(self) -> float | None:
        """How far the sized model raised the bound above the optimistic optimum, as a share of the
        price: the relaxation gap it closed; None where the split is."""
        if self.optimistic is None or not self.price:
            return None
        return max(0.0, self.optimistic_bound - self.optimistic) / self.price


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
        "| instance | optimistic model: best | bound (solve's) | proven | price (solve) "
        "| relaxation gap left | closed by the sized model | search gap | s |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for gap in gaps:
        relaxation, search = gap.split()
        lines.append(
            f"| {gap.instance} | {money(gap.optimistic)} | {money(gap.optimistic_bound)} | "
            f"{'yes' if gap.optimistic_proven else 'no'} | {money(gap.price)} | {share(relaxation)} | "
            f"{share(gap.sized_gain())} | {share(search)} | {gap.seconds:.1f} |"
        )
    return lines
