"""What `ftopt sweep-report` shows, as data: records in grid order, cost by component kind, the
value each scenario minimised, and scenarios grouped by a swept value.

The rendering (HTML with SVG charts, Markdown, CSV) lives with the other renderers in
`ftopt.quote.sweep`; this module only reads results files and derives figures from records,
so a notebook can use the same figures as the report.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ftopt.model.hardware import Catalogue
from ftopt.model.spread import confidence_words
from ftopt.sweep.store import read_records

#: Component kinds in report order, by the catalogue section an item id belongs to.
KINDS = {
    "gpus": "GPUs",
    "cpus": "CPUs",
    "dimms": "memory",
    "drives": "drives",
    "chassis": "chassis",
    "bridges": "bridges",
    "nics": "network",
    "switches": "network",
    "cables": "network",
}
OTHER = "other"


def load_results(path: Path) -> list[dict[str, Any]]:
    """The records of a results file, one per scenario, in grid order."""
    records = read_records(path)
    return sorted(records, key=lambda r: (r.get("index") is None, r.get("index") or 0))


def item_kinds(catalogue: Catalogue) -> dict[str, str]:
    """Report label (GPUs, CPUs, memory, …) by catalogue item id."""
    return {item.id: label for section, label in KINDS.items() for item in getattr(catalogue, section)}


def kind_labels() -> list[str]:
    """Every label, in report order, each once."""
    return [*dict.fromkeys(KINDS.values()), OTHER]


#: Report label of the part each field of a plan's server names (the plan says what each id is).
_SERVER_PARTS = {
    "gpu": "GPUs",
    "cpu": "CPUs",
    "dimm": "memory",
    "data_drive": "drives",
    "boot_drive": "drives",
    "chassis": "chassis",
    "bridge": "bridges",
    "nic": "network",
}


def plan_kinds(plan: dict[str, Any]) -> dict[str, str]:
    """Report label by item id, read from the plan itself: what its servers and fabric name as card,
    chassis, CPU, …. Why: a plan built with a vendor's catalogue (`--catalogue DIR`) names ids the
    packaged catalogue lacks, and the report must class them all the same."""
    kinds: dict[str, str] = {}
    for server in plan.get("servers", []):
        for field, label in _SERVER_PARTS.items():
            if server.get(field):
                kinds[str(server[field])] = label
    fabric = plan.get("fabric") or {}
    kinds.update({str(s.get("id")): "network" for s in fabric.get("switches", [])})
    kinds.update({str(link.get("cable")): "network" for link in fabric.get("links", [])})
    return kinds


def breakdown(record: dict[str, Any], kinds: dict[str, str]) -> dict[str, float]:
    """The plan's price by component kind (empty without a plan); ids the plan names are classed by
    the plan, others by `kinds` (the catalogue's)."""
    totals: dict[str, float] = {}
    plan = record.get("plan") or {}
    kinds = {**kinds, **plan_kinds(plan)}
    bills = [server.get("bill_of_materials", []) for server in plan.get("servers", [])]
    bills.append((plan.get("fabric") or {}).get("bill_of_materials", []))  # switches and cables
    for bill in bills:
        for line in bill:
            label = kinds.get(line.get("item", ""), OTHER)
            totals[label] = totals.get(label, 0.0) + float(line.get("price", 0.0))
    return totals


def swept_paths(records: Iterable[dict[str, Any]]) -> list[str]:
    """Every swept path, in order of first appearance."""
    paths: dict[str, None] = {}
    for record in records:
        for path in record.get("scenario", {}):
            paths.setdefault(path, None)
    return list(paths)


def shown(value: Any) -> str:
    """A swept value as a person reads it."""
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def has_makespan(records: list[dict[str, Any]]) -> bool:
    return any(r.get("makespan_hours") is not None for r in records)


def time_axis(records: list[dict[str, Any]]) -> str:
    """What `makespan_hours` measures in these records: a queue's last job's end (its plans carry a
    horizon) or the longest copy's hours to train at its run's deadline confidence (`makespan at
    P90`, as the quotes and the frontier state it; plain `makespan` for plans without spread)."""
    if any(r.get("horizon_hours") is not None for r in records):
        return "last job's end"
    held = {c for r in records for c in r.get("deadline_confidences") or []}
    if not held:
        return "makespan"
    if len(held) > 1:
        return "makespan at each run's deadline confidence"
    return f"makespan at {confidence_words(held.pop())}"


def note(record: dict[str, Any]) -> str:
    """Why a scenario has no plan, in one line."""
    if record.get("error"):
        return str(record["error"])
    return "; ".join(str(r.get("text", "")) for r in record.get("reasons", []))


def currency(records: list[dict[str, Any]]) -> str:
    """The currency of the first record that has one."""
    return next((str(r["currency"]) for r in records if r.get("currency")), "")


def status_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """Scenarios per status, in order of first appearance."""
    counts: dict[str, int] = {}
    for record in records:
        counts[str(record.get("status"))] = counts.get(str(record.get("status")), 0) + 1
    return counts


def objective(records: list[dict[str, Any]]) -> str:
    """What the scenarios' plans minimised: `tco` when any plan says so, else `price`."""
    tco = any(((r.get("plan") or {}).get("tco") or {}).get("objective") == "tco" for r in records)
    return "tco" if tco else "price"


def objective_value(record: dict[str, Any], minimised: str) -> float | None:
    """The record's value of the objective in use: its TCO or its total price (None without a plan)."""
    if minimised == "tco":
        total = ((record.get("plan") or {}).get("tco") or {}).get("total")
        return None if total is None else float(total)
    price = record.get("total_price")
    return None if price is None else float(price)


def by_value(records: list[dict[str, Any]], path: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """Records grouped by their value of one swept parameter, values in a natural order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    raw: dict[str, Any] = {}
    for record in records:
        value = record["scenario"].get(path)
        groups.setdefault(shown(value), []).append(record)
        raw.setdefault(shown(value), value)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw.values())
    order = sorted(groups, key=lambda k: raw[k]) if numeric else list(groups)
    return [(key, groups[key]) for key in order]
