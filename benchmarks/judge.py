"""Judging results.json: the targets the product promises, and flags that point at a bug.

Pure functions over the measurements as run.py wrote them (plain dicts), so that a report can be
re-judged from an old results.json and tested from a small fixture without solving anything.
"""

from __future__ import annotations

import statistics
from typing import Any

from benchmarks.scaling import ScalePoint, flatness_target

Entry = dict[str, Any]
Row = tuple[str, str, str]  # target, measured, verdict

#: Seconds per solve the tiers promise, and the whole process.
SEED_LIMIT_S, LARGE_LIMIT_S, XL_LIMIT_S, PROCESS_LIMIT_S = 0.2, 2.0, 10.0, 1.5
#: The naive model must be this many times slower near 200 copies (or fail to prove).
NAIVE_RATIO = 100
CENT = 0.01


def walls(entry: Entry) -> list[float]:
    """Wall time of every product solve of one instance."""
    return [s["wall"] for s in entry["solves"]]


def median_wall(entry: Entry) -> float:
    """Median wall time of the product's solves."""
    return statistics.median(walls(entry))


def phase_median(entry: Entry, phase: str) -> float:
    """Median seconds of one of the solver's own phases (build, search, explain, verify, total)."""
    return float(statistics.median(s["timings"].get(phase, 0.0) for s in entry["solves"]))


def all_optimal(entry: Entry) -> bool:
    """Whether every solve proved optimality."""
    return all(s["status"] == "optimal" for s in entry["solves"])


def best(entry: Entry) -> Entry:
    """The solve with the lowest price (then a proven one, then the fastest)."""
    return min(
        entry["solves"],
        key=lambda s: (s["price"] is None, s["price"] or 0, s["status"] != "optimal", s["wall"]),
    )


def worst_gap(entry: Entry) -> float:
    """The largest gap over the repeats (0 when proven)."""
    return max((s["gap"] or 0.0) for s in entry["solves"])


def ffd_price(entry: Entry) -> float | None:
    """First-fit decreasing's price; None when it failed or its plan breaks a rule (it sizes for
    memory and ignores deadlines, so on a bid with deadlines its plan is no baseline)."""
    price = entry["ffd"].get("price")
    return None if price is None or entry["ffd"].get("violations") else float(price)


def saving(entry: Entry) -> float | None:
    """1 − product price / FFD price."""
    price, ffd = best(entry)["price"], ffd_price(entry)
    return None if price is None or not ffd else 1 - price / ffd


def secs(x: float | None) -> str:
    """Seconds as the report prints them."""
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage."""
    return "–" if x is None else f"{100 * x:.{digits}f} %"


def flags(entry: Entry) -> list[str]:
    """What points at a solver or baseline bug, or a stale known optimum, on one instance."""
    out = []
    ffd, known = ffd_price(entry), entry.get("known_optimum")
    for s in entry["solves"]:
        if s["price"] is not None and ffd is not None and s["price"] > ffd + CENT:
            out.append(f"price {s['price']:,.0f} > FFD {ffd:,.0f} ({s['status']})")
        if s["bound"] is not None and ffd is not None and s["bound"] > ffd + CENT:
            out.append(f"bound {s['bound']:,.0f} > FFD {ffd:,.0f}")
        if s["status"] == "optimal" and known is not None and abs(s["price"] - known) > CENT:
            out.append(f"optimal price {s['price']:,.0f} ≠ known optimum {known:,.0f}")
        if s["violations"]:
            out.append(f"plan breaks {s['violations']} rule(s) per ftopt.verify ({s['status']})")
    if entry["ffd"].get("violations"):
        out.append(f"FFD plan breaks {entry['ffd']['violations']} rule(s) per ftopt.verify: not compared")
    out += _naive_flags(entry)
    return sorted(set(out))


def _naive_flags(entry: Entry) -> list[str]:
    n = entry.get("naive")
    if not n or n["price"] is None:
        return []
    out = []
    if abs(n["price"] - n["objective"]) > CENT:
        out.append(f"naive objective {n['objective']:,.0f} ≠ its parts' prices {n['price']:,.0f}")
    price = best(entry)["price"]
    if n["status"] == "optimal" and all_optimal(entry) and price is not None and n["price"] < price - CENT:
        out.append(f"naive optimum {n['price']:,.0f} < product optimum {price:,.0f}")
    return out


def tier_target(label: str, entries: list[Entry], limit: float) -> Row:
    """Every instance of a tier proven optimal with a median wall under `limit`."""
    if not entries:
        return (label, "not run", "–")
    proven = sum(all_optimal(e) for e in entries)
    worst = max(entries, key=median_wall)
    slowest, slowest_name = max((w, e["name"]) for e in entries for w in walls(e))
    measured = (
        f"{proven}/{len(entries)} proven optimal in every repeat; median wall per instance "
        f"{secs(min(median_wall(e) for e in entries))}–{secs(median_wall(worst))} s (worst {worst['name']}, "
        f"{worst['copies']} copies, {worst['offload_copies']} may offload); CP-SAT search (solver's timing) "
        f"median up to {secs(max(phase_median(e, 'search') for e in entries))} s; slowest single solve "
        f"{secs(slowest)} s ({slowest_name})"
    )
    missed = [e for e in entries if not all_optimal(e) or median_wall(e) >= limit]
    if not missed:
        return (label, measured, "met")
    return (label, measured, "MISSED: " + "; ".join(_why_missed(e, limit) for e in missed))


def _why_missed(entry: Entry, limit: float) -> str:
    if not all_optimal(entry):
        return f"{entry['name']} not proven in every repeat, gap up to {pct(worst_gap(entry), 2)}"
    return (
        f"{entry['name']} {secs(median_wall(entry))} s = {median_wall(entry) / limit:.1f} × the limit "
        f"(build {secs(phase_median(entry, 'build'))} s, search {secs(phase_median(entry, 'search'))} s, "
        f"explain {secs(phase_median(entry, 'explain'))} s)"
    )


def process_target(process: Entry | None) -> Row:
    """The whole `ftopt solve` process within PROCESS_LIMIT_S."""
    label = f"whole `ftopt solve` process < {PROCESS_LIMIT_S:g} s"
    if process is None:
        return (label, "not measured (--no-cli)", "–")
    if "skipped" in process:
        return (label, f"skipped: {process['skipped']}", "–")
    ok = process["median"] < PROCESS_LIMIT_S and all(c == 0 for c in process["exit_codes"])
    measured = (
        f"median {process['median']:.2f} s on {process['instance']} (exit codes "
        f"{sorted(set(process['exit_codes']))}); `import ftopt.cli.main` alone "
        f"{process['import_median']:.2f} s"
    )
    return (label, measured, "met" if ok else f"MISSED by {process['median'] - PROCESS_LIMIT_S:.2f} s")


def scale_points(raw: Entry) -> list[list[ScalePoint]]:
    """The scaling series of results.json as ScalePoints."""
    return [[ScalePoint(**p) for p in points] for points in raw.get("scaling", [])]


def flatness(raw: Entry) -> Row:
    """xl time nearly flat in copies at a fixed run mix, with the tiers' times for context."""
    measured, verdict = flatness_target(scale_points(raw))
    context = across_tiers(raw["instances"])
    label = "xl: time nearly flat in copies (same runs, copies scaled)"
    return (label, f"{measured}. {context}" if context else measured, verdict)


def across_tiers(entries: list[Entry]) -> str:
    """The tiers' median times on instances nobody may offload (their runs differ too)."""
    base = [e for e in entries if e["offload_copies"] == 0 and all_optimal(e)]
    parts = []
    for tier in ("medium", "large", "xl"):
        chosen = [e for e in base if e["tier"] == tier]
        if chosen:
            parts.append(
                f"{tier} {statistics.median(median_wall(e) for e in chosen):.3f} s "
                f"({statistics.median(e['copies'] for e in chosen):.0f} copies, "
                f"{statistics.median(e['runs'] for e in chosen):.0f} runs)"
            )
    if not parts:
        return ""
    return "Across tiers, instances without offload, median of medians (runs differ too): " + ", ".join(parts)


def ffd_target(entries: list[Entry]) -> Row:
    """Price ≤ FFD everywhere, with the mean and largest saving."""
    label = "price ≤ FFD on every instance; mean and max saving"
    compared = [e for e in entries if saving(e) is not None]
    if not compared:
        return (label, "no instance compared", "–")
    savings = [saving(e) or 0.0 for e in compared]
    worse = [e["name"] for e, s in zip(compared, savings, strict=True) if s < -1e-9]
    top = max(compared, key=lambda e: saving(e) or 0.0)
    measured = (
        f"{len(compared) - len(worse)}/{len(compared)} instances ≤ FFD; saving mean "
        f"{pct(statistics.mean(savings))}, max {pct(max(savings))} ({top['name']}), min {pct(min(savings))}"
    )
    return (label, measured, "met" if not worse else "MISSED (solver bug?): " + ", ".join(worse))


def naive_target(entries: list[Entry]) -> Row:
    """≥ NAIVE_RATIO × faster than the naive model near 200 copies, or the naive model fails to prove."""
    label = f"≥ {NAIVE_RATIO} × faster than the naive model at 200 copies, or naive fails to prove"
    ran = [e for e in entries if e.get("naive")]
    chosen = [e for e in ran if 150 <= e["copies"] <= 250] or [e for e in ran if e["copies"] >= 50]
    if not chosen:
        return (label, "naive model not run near 200 copies", "–")
    parts, ok = [], True
    for e in chosen:
        n = e["naive"]
        ratio = n["seconds"] / median_wall(e)
        proven = n["status"] == "optimal"
        parts.append(
            f"{e['name']} ({e['copies']} copies, {n['booleans']:,} booleans, {n['slots']} slots): naive "
            f"{n['status']} after {secs(n['seconds'])} s (limit {n['time_limit']:g} s), product "
            f"{secs(median_wall(e))} s → × {ratio:,.0f}{'' if proven else ' (lower bound: naive not proven)'}"
        )
        ok = ok and (not proven or ratio >= NAIVE_RATIO)
    return (label, "; ".join(parts), "met" if ok else "MISSED")


def targets(raw: Entry) -> list[Row]:
    """(target, measured, verdict) rows for the top of results.md."""
    entries = raw["instances"]

    def tier(name: str) -> list[Entry]:
        return [e for e in entries if e["tier"] == name]

    return [
        tier_target(
            f"seed-sized: proven optimal, median solve < {SEED_LIMIT_S:g} s", tier("seed"), SEED_LIMIT_S
        ),
        process_target(raw.get("process")),
        tier_target(
            f"large (500 copies): proven optimal within {LARGE_LIMIT_S:g} s", tier("large"), LARGE_LIMIT_S
        ),
        tier_target(f"xl (2,000 copies): proven optimal within {XL_LIMIT_S:g} s", tier("xl"), XL_LIMIT_S),
        flatness(raw),
        ffd_target(entries),
        naive_target(entries),
    ]
