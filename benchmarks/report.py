"""Step 3 of the benchmarks, reporting: `python -m benchmarks.report` turns results.json into
results.md (targets judged, per-instance tables) and results.png.

It solves nothing and imports nothing of ftopt, so the same measurements can be re-rendered after
a wording change, and the rendering is tested from a small fixture. Everything here is a function
of results.json: the same file gives the same markdown, byte for byte.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import judge
from benchmarks.judge import Entry, best, ffd_price, median_wall, pct, phase_median, secs, walls
from benchmarks.scaling import render_section
from benchmarks.suite import RESULTS

#: results.json formats this report reads.
FORMATS = (1,)
STATUS_ORDER = {"optimal": 0, "feasible": 1, "no-plan-in-time": 2, "infeasible": 3}


def money(x: float | None) -> str:
    """A price without cents, with thousands separators."""
    return "–" if x is None else f"{x:,.0f}"


def header(raw: Entry) -> list[str]:
    """What, where and how the figures were measured."""
    m, s = raw["machine"], raw["settings"]
    workers = f"{s['workers_used']} CP-SAT workers" + (
        " (the product's default, one per core)" if s["workers"] is None else " (--workers)"
    )
    big = f" ({s['big_repeats']} on large and xl)" if s.get("big_repeats") else ""
    return [
        "# ftopt benchmarks",
        "",
        f"Measured {m['date']} on {m['cpu']}, {m['cores']} cores available, {m['os']}, Python {m['python']}, "
        f"OR-Tools {m['ortools']}, ftopt {m.get('ftopt', '?')}. Product settings: time limit "
        f"{s['time_limit']:g} s, "
        f"{workers}, {s['repeats']} repeats per instance{big}; naive model once per instance on tiers "
        f"{', '.join(s['naive_tiers']) or 'none'} (time limit {s['naive_time_limit']:g} s). Re-run with "
        "`python -m benchmarks` (measure: `python -m benchmarks.run` writes results.json; report: "
        "`python -m benchmarks.report` writes this file and results.png; instances: "
        "`python -m benchmarks.generate`). Wall times are non-deterministic (parallel CP-SAT on a shared "
        "machine).",
        "",
        f"Load average (1 / 5 / 15 min) at the start {m.get('load_start', '?')}, at the end "
        f"{m.get('load_end', '?')}: a load above the core count means other processes took CPU time and "
        "the wall times below are inflated accordingly.",
    ]


def targets_section(raw: Entry) -> list[str]:
    """The promised targets, measured and judged."""
    lines = ["", "## Targets", "", "| target | measured | verdict |", "|---|---|---|"]
    return lines + [f"| {t} | {m} | {v} |" for t, m, v in judge.targets(raw)]


ALL_CLEAR = (
    "No product price above FFD, no bound above FFD, no proven optimum differing from "
    "`instances/known_optima.json`, no naive optimum below the product's, no naive objective "
    "differing from the price of the parts it buys, and `ftopt.verify` found every plan valid, "
    "the product's and FFD's."
)


def checks_section(entries: list[Entry]) -> list[str]:
    """Flags that point at a bug, or the sentence that there are none."""
    lines = ["", "## Solver checks", ""]
    flagged = [(e["name"], judge.flags(e)) for e in entries]
    flagged = [(name, f) for name, f in flagged if f]
    if flagged:
        return lines + [f"- **{name}**: {'; '.join(f)}" for name, f in flagged]
    return [*lines, ALL_CLEAR]


PER_INSTANCE_TEXT = (
    "Wall = the whole `ftopt.solve()` call, measured around it (verification off inside the call); median "
    "and min–max over the repeats. Build / search / explain = median seconds of the solver's own phase "
    "timings (`Result.timings`): builds, training modes and configurations from the workload / CP-SAT "
    "(price stage, tie-break stage, decoding and the plan) / binding rules. Verify = median seconds of "
    "`ftopt.verify_plan` on the plan, run by the benchmark after the call. May offload = copies of runs "
    "whose workload says `offload: auto` (or `cpu`): such copies can need more host RAM than a server's "
    "base and make the model harder. Status: the worst over the repeats."
)


def instance_row(e: Entry) -> str:
    """One line of the per-instance table."""
    worst = max(e["solves"], key=lambda s: STATUS_ORDER.get(s["status"], 9))
    top = best(e)
    split = " / ".join(secs(phase_median(e, p)) for p in ("build", "search", "explain"))
    checked = [s["verify_seconds"] for s in e["solves"] if "verify_seconds" in s]
    verify = secs(sorted(checked)[len(checked) // 2]) if checked else "–"
    ffd, ffd_servers = ffd_price(e), e["ffd"].get("servers")
    ratio = f"{top['price'] / ffd:.3f}" if top["price"] and ffd else "–"
    naive_cell, naive_ratio = "–", "–"
    if e.get("naive"):
        n = e["naive"]
        naive_cell = f"{n['status']} {money(n['price'])} in {secs(n['seconds'])} s"
        naive_ratio = f"{'≥ ' if n['status'] != 'optimal' else ''}{n['seconds'] / median_wall(e):,.0f}"
    return (
        f"| {e['name']} | {e['copies']} | {e['runs']} | {e['offload_copies']} | {worst['status']} | "
        f"{money(top['price'])} | {money(top['bound'])} | {pct(judge.worst_gap(e), 2)} | "
        f"{secs(median_wall(e))} | {secs(min(walls(e)))}–{secs(max(walls(e)))} | {split} | {verify} | "
        f"{money(ffd)} ({ffd_servers if ffd_servers is not None else '–'}) | {ratio} | {naive_cell} | "
        f"{naive_ratio} |"
    )


def instances_section(entries: list[Entry]) -> list[str]:
    """The per-instance table."""
    return [
        "",
        "## Per instance",
        "",
        PER_INSTANCE_TEXT,
        "",
        "| instance | copies | runs | may offload | status | price | bound | gap | wall median "
        "| wall min–max | build / search / explain | verify | FFD price (servers) | price / FFD | naive "
        "| naive / product time |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|",
        *(instance_row(e) for e in entries),
    ]


def workers_section(workers: list[Entry], repeats: int) -> list[str]:
    """Median wall per worker count, when compared."""
    if not workers:
        return []
    counts = list(workers[0]["counts"])
    lines = [
        "",
        "## Worker count",
        "",
        f"Median wall over {repeats} repeats; * = not proven optimal in every repeat.",
    ]
    lines += ["", "| instance | copies | " + " | ".join(f"{c} workers" for c in counts) + " |"]
    lines += ["|---|---:|" + "---:|" * len(counts)]
    for w in workers:
        cells = [
            f"{secs(sorted(w['counts'][c]['times'])[len(w['counts'][c]['times']) // 2])}"
            f"{'' if w['counts'][c]['optimal'] else ' *'}"
            for c in counts
        ]
        lines.append(f"| {w['name']} | {w['copies']} | " + " | ".join(cells) + " |")
    return lines


def process_section(process: Entry | None) -> list[str]:
    """The whole `ftopt solve` process, when timed."""
    if not process or "skipped" in process:
        return []
    times = ", ".join(f"{t:.2f}" for t in process["times"])
    return [
        "",
        "## Whole process",
        "",
        f"`{process['command']}` (from the repository root): {times} s (median {process['median']:.2f} s); "
        f"`python -c 'import ftopt.cli.main'` alone: median {process['import_median']:.2f} s. ftopt's "
        "modules are byte-compiled first, as `pip install` leaves them.",
    ]


METHOD = [
    "",
    "## Method",
    "",
    "- Instances: `benchmarks/generate.py` (seeded), tiers seed (≤ 20 copies), medium (~100), c200 (200, "
    "the naive comparison), large (500 copies of ~40 runs), xl (2,000 copies of ~40 runs), plus "
    "`examples/*.yaml`. The last instance of each tier but c200 is an offload variant (full runs say "
    "`offload: auto`, at most 8 copies each).",
    "- Three steps: `benchmarks/run.py` measures through the public API only (`ftopt.solve`, "
    "`ftopt.verify_plan`) and writes `results.json`; `benchmarks/report.py` judges and renders it; "
    "`python -m benchmarks` does both. Phase times are the solver's own (`Result.timings`); nothing of "
    "`ftopt.solver` is wrapped or imported.",
    "- FFD (`baselines/ffd.py`): server layouts, RAM and disk derived from the catalogue as a spreadsheet "
    "user would (`baselines/hardware.py`: every slot filled with one card, the cheapest CPU pair with the "
    "cores, the highest power cap the feed allows, the cheapest DIMM filling every channel and data "
    "drives meeting the rules), modes from `ftopt.model.sizing.all_sizings`; per copy the least-memory "
    "mode, copies by memory need descending, first open server with an aligned block of free GPUs and "
    "room in its RAM and disk, else the cheapest server that holds it. Its plan is a full `Plan`, checked "
    "by `ftopt.verify_plan`.",
    "- Naive (`baselines/naive.py`): one boolean per (copy, mode, slot), a layout and RAM and disk choice "
    "per slot, slots = FFD's server count, no symmetry breaking; same layouts and modes as FFD, same "
    "time limit and workers as the product. Its price is recomputed from the price list for the parts "
    "its solution buys.",
    "- No longer shown (it needed the solver's private functions wrapped or its internal problem data): "
    "the split of CP-SAT's time into price stage and tie-break stage, when the price stage ended, how "
    "many CP-SAT models a call solved (relaxation, safe configurations), and the heavy classes and "
    "configurations per instance.",
]


def render(raw: Entry, plot: str | None) -> str:
    """results.md from results.json (and the plot's file name, when drawn)."""
    if raw.get("format") not in FORMATS:
        raise ValueError(f"results.json format {raw.get('format')!r}; this report reads {FORMATS}")
    entries = raw["instances"]
    lines = header(raw) + targets_section(raw) + checks_section(entries) + instances_section(entries)
    lines += render_section(
        judge.scale_points(raw), raw["settings"].get("big_repeats") or raw["settings"]["repeats"]
    )
    lines += workers_section(raw.get("workers", []), raw["settings"]["repeats"])
    lines += process_section(raw.get("process"))
    if plot:
        lines += ["", "## Solve time and gap against run copies", "", f"![solve time and gap]({plot})"]
    return "\n".join(lines + METHOD) + "\n"


#: The other benchmark reports, each written by its own runner; results.md repeats their tables so
#: that one page shows every tier against its target.
OTHER_REPORTS = (
    ("robustness.md", "Robustness tiers (`python -m benchmarks.robustness`)"),
    ("multinode.md", "Multi-node tier (`python -m benchmarks.multinode`)"),
    ("frontier.md", "Price-time frontiers (`python -m benchmarks.frontier`)"),
    ("sweep-results.md", "Scenario sweeps (`python -m benchmarks.sweep`)"),
    ("calibration.md", "Calibration against published measurements (`python -m benchmarks.calibration`)"),
)


def other_reports(folder: Path) -> list[str]:
    """The tables of the other runners' reports that exist in `folder`, each under its heading."""
    lines: list[str] = []
    for name, title in OTHER_REPORTS:
        path = folder / name
        if not path.exists():
            continue
        lines += ["", f"## {title}", "", f"From [`{name}`]({name}), which says how it was measured."]
        previous = ""
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("|"):
                lines += [""] if not previous.startswith("|") else []  # a blank line opens each table
                lines.append(line)
            previous = line
    return lines


def write(results: Path, out: Path, log: Any = print) -> None:
    """Read results.json, write the markdown (with the other reports' tables) and the plot."""
    from benchmarks.plot import draw

    raw = json.loads(results.read_text())
    png = out.with_suffix(".png")
    plot = png.name if draw(raw, png) else None
    out.write_text(render(raw, plot) + "\n".join(other_reports(out.parent)) + "\n")
    log(f"wrote {out}" + (f", {png}" if plot else " (no plot: matplotlib not importable)"))


def main(argv: list[str] | None = None) -> int:
    """Command line: which results.json, where the report goes."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="results.json to read")
    parser.add_argument("--out", type=Path, default=RESULTS.with_suffix(".md"), help="markdown to write")
    args = parser.parse_args(argv)
    write(args.results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
