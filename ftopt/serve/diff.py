"""Two versions of a bid compared: what changed in the workload, and what changed in the plan.

Why runs are keyed by name: a run moved in the list is the same run, so the workload diff says
`runs[llama70b-lora].train_tokens: 2e9 → 4e9` rather than reporting every run after it as changed.
The plan diff counts servers by build (cards, bridge, chassis), so a bigger card shows as one build
removed and one added, with the price and hours deltas the buyer will ask about.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ftopt.model.plan import Plan

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
    """Servers added and removed by build, and the price, GPU and hours deltas (after − before)."""

    added: dict[str, int]
    removed: dict[str, int]
    price_before: float
    price_after: float
    currency: str
    hours_before: float | None
    hours_after: float | None
    gpus_before: int
    gpus_after: int

    @property
    def price_delta(self) -> float:
        """The price after minus before."""
        return round(self.price_after - self.price_before, 2)

    @property
    def hours_delta(self) -> float | None:
        """The makespan after minus before, when both plans have one."""
        if self.hours_before is None or self.hours_after is None:
            return None
        return round(self.hours_after - self.hours_before, 3)


def plan_diff(before: Plan, after: Plan) -> PlanDiff:
    """What changed from one plan to the next."""
    a, b = server_builds(before), server_builds(after)
    return PlanDiff(
        added=dict(b - a),
        removed=dict(a - b),
        price_before=before.total_price,
        price_after=after.total_price,
        currency=after.currency,
        hours_before=before.makespan_hours,
        hours_after=after.makespan_hours,
        gpus_before=sum(s.gpu_count for s in before.servers),
        gpus_after=sum(s.gpu_count for s in after.servers),
    )
