"""Two versions of a bid compared: what changed in the workload, and what changed in the plan.

Why runs are keyed by name: a run moved in the list is the same run, so the workload diff says
`runs[llama70b-lora].train_tokens: 2e9 → 4e9` rather than reporting every run after it as changed.
The plan diff counts servers by build (cards, bridge, chassis), so a bigger card shows as one build
removed and one added, with the price and hours deltas the buyer will ask about, taken from each
version's plan summary: the price to pay and the hours its quote states (a queue's last job's end,
the P90 of the slowest run), so the comparison never says what neither quote says.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary

_MISSING = object()


@dataclass(frozen=True)
class Change:
    """One changed field: its path, the value before and after (None when absent), and the kind."""

    path: str
    before: Any
    after: Any

    @property
    def kind(self) -> str:
        """added, removed or changed."""
        if self.before is None:
            return "added"
        return "removed" if self.after is None else "changed"


def _flatten(value: Any, path: str, out: dict[str, Any]) -> None:
    """Each leaf of a workload by its path (`site.feed`); a list of named entries (runs) is keyed
    by name, not position (`runs[lora].concurrent`), so a reordered list is no change."""
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    elif _named_entries(value):
        for item in value:
            _flatten({k: v for k, v in item.items() if k != "name"}, f"{path}[{item['name']}]", out)
            out.setdefault(f"{path}[{item['name']}]", "present")
    else:
        out[path] = value


def _named_entries(value: Any) -> bool:
    """Whether `value` is a non-empty list of mappings that each have a name."""
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) and "name" in r for r in value)


def workload_changes(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Every field that differs between two workloads, in path order."""
    a: dict[str, Any] = {}
    b: dict[str, Any] = {}
    _flatten(before, "", a)
    _flatten(after, "", b)
    return [
        Change(path, a.get(path), b.get(path))
        for path in sorted(a.keys() | b.keys())
        if a.get(path, _MISSING) != b.get(path, _MISSING)
    ]


def server_builds(plan: Plan) -> Counter[str]:
    """Servers by build: `8 × h200-nvl, 2 × 4-way NVLink (gpu-server-8)` → how many."""
    builds: Counter[str] = Counter()
    for s in plan.servers:
        bridge = f", {s.bridge_count} × {s.bridge}" if s.bridge else ""
        builds[f"{s.gpu_count} × {s.gpu}{bridge} ({s.chassis})"] += 1
    return builds


@dataclass(frozen=True)
class PlanDiff:
    """Servers added and removed by build, and the price to pay, GPU and hours deltas (after − before)."""

    added: dict[str, int]
    removed: dict[str, int]
    price_before: float
    price_after: float
    currency: str
    hours_before: float | None
    hours_after: float | None
    hours_p90_before: float | None
    hours_p90_after: float | None
    gpus_before: int
    gpus_after: int

    @property
    def price_delta(self) -> float:
        """The price after minus before."""
        return round(self.price_after - self.price_before, 2)

    @property
    def hours_delta(self) -> float | None:
        """The hours after minus before, when both plans have them."""
        return _delta(self.hours_before, self.hours_after)

    @property
    def hours_p90_delta(self) -> float | None:
        """The slowest run's P90 hours after minus before, when both plans have them."""
        return _delta(self.hours_p90_before, self.hours_p90_after)


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 3)


def _model_hours(summary: PlanSummary) -> float | None:
    """The hours the diff sets beside P90: a peak plan's speed-model hours, a queue's last job's end
    (the summary's `hours` is now stated at the planned confidence, P90 by default)."""
    return summary.hours_model if summary.hours_model is not None else summary.hours


def _p90(summary: PlanSummary) -> float | None:
    spread = summary.hours_p50_p90
    return spread[1] if spread is not None else None


def plan_diff(before: Plan, after: Plan, summaries: tuple[PlanSummary, PlanSummary]) -> PlanDiff:
    """What changed from one plan to the next, in the figures of their summaries (`summaries`:
    before's and after's, each with its own version's buyer details)."""
    a, b = server_builds(before), server_builds(after)
    s_before, s_after = summaries
    return PlanDiff(
        added=dict(b - a),
        removed=dict(a - b),
        price_before=s_before.price_to_pay,
        price_after=s_after.price_to_pay,
        currency=s_after.currency,
        hours_before=_model_hours(s_before),
        hours_after=_model_hours(s_after),
        hours_p90_before=_p90(s_before),
        hours_p90_after=_p90(s_after),
        gpus_before=s_before.gpus,
        gpus_after=s_after.gpus,
    )
