"""Pre-registered sources: ftopt's predictions committed before the measurements are read.

Why: a figure that was seen before a constant was chosen cannot test that constant. For a new source,
`python -m benchmarks.calibration.preregistered register FILE` fills every workload of
benchmarks/calibration/preregistered/FILE with ftopt's figures as they stand (`predicted`: the figure,
and for memory the planned figure with the stack and method's margin, for throughput the P50 and P90
hours factors), and that file is committed alone. A later commit adds each point's `published` figure
and the source's address and access date; the comparison reported (`comparison_cells`,
benchmarks/calibration.md and preregistered.md) is always against the committed predictions, never a
recomputation, so later changes to the model cannot improve it. No constant is tuned on these
sources afterwards (docs/calibration.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
GOALS = {"memory": 0.15, "throughput": 0.25}


def registered_files() -> list[Path]:
    """Every pre-registered source file."""
    return sorted(HERE.glob("*.yaml"))


def _predict(point: dict[str, Any], models: dict[str, Any]) -> dict[str, float]:
    """ftopt's figures for one workload: the figure in the point's unit, and the planned memory with
    its margin or the P50/P90 hours factors of its stack."""
    from benchmarks.calibration import calibration_cards, read_points, recompute
    from ftopt.catalogue import load_catalogue
    from ftopt.model.architecture import Architecture

    catalogue = load_catalogue()
    known = {**read_points()["models"], **models}  # the calibration's architectures, then the file's
    archs = {name: Architecture.model_validate(arch) for name, arch in known.items()}
    figure = recompute(point, catalogue, calibration_cards(), archs, overrides=False)
    config = point["config"]
    if point["kind"] == "memory":
        margin = catalogue.margins.of(config["stack"], config["method"]) if catalogue.margins else 0.0
        return {"figure": round(figure, 2), "margin": margin, "planned": round(figure * (1 + margin), 2)}
    assert catalogue.spread is not None
    factors = catalogue.spread.of(config["stack"])
    return {"figure": round(figure, 1), "p50": factors.p50, "p90": factors.p90}


def register(path: Path) -> None:
    """Write ftopt's predictions into every point of `path` that has none (existing ones stay)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for point in data["points"]:
        if "predicted" not in point:
            point["predicted"] = _predict(point, data.get("models") or {})
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=100, allow_unicode=True), encoding="utf-8")


def _judged(point: dict[str, Any]) -> tuple[bool, bool] | None:
    """(within goal, planned covers) of a measured point against its committed prediction."""
    if point.get("published") is None:
        return None
    predicted, published = point["predicted"], float(point["published"])
    ratio = predicted["figure"] / published
    within = abs(ratio - 1) <= GOALS[point["kind"]]
    if point["kind"] == "memory":
        return within, predicted["planned"] >= published * (1 - 1e-9)
    return within, ratio <= predicted["p90"] + 1e-9


def recomputed(point: dict[str, Any], models: dict[str, Any]) -> dict[str, Any]:
    """`point` with its prediction recomputed by today's model, margins and spread: the comparison
    after the physics added since registration. Not blind (the model changed after the measurements
    were read), so it is reported beside the first comparison, never instead of it."""
    return {**point, "predicted": _predict(point, models)}


def comparison(after: bool = False) -> dict[str, dict[str, int]]:
    """Per kind: measured points, within goal, covered (planned memory / P90 hours), sources; against
    the committed predictions, or with `after` against today's model (`recomputed`)."""
    out: dict[str, dict[str, int]] = {}
    sources: dict[str, set[str]] = {}
    errors: dict[str, list[float]] = {}
    for path in registered_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for point in data["points"]:
            if after and point.get("published") is not None:
                point = recomputed(point, data.get("models") or {})
            verdict = _judged(point)
            if verdict is None:
                continue
            row = out.setdefault(point["kind"], {"points": 0, "within": 0, "covered": 0, "sources": 0})
            row["points"] += 1
            row["within"] += verdict[0]
            row["covered"] += verdict[1]
            sources.setdefault(point["kind"], set()).add(data["source"])
            ratio = point["predicted"]["figure"] / float(point["published"])
            errors.setdefault(point["kind"], []).append(abs(ratio - 1))
    for kind, row in out.items():
        row["sources"] = len(sources[kind])
        ordered, n = sorted(errors[kind]), len(errors[kind])
        middle = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
        row["median_percent"] = round(100 * middle)
    return out


def comparison_cells(after: bool = False) -> dict[str, str]:
    """The first comparison (or with `after`, today's model's) per kind in the words calibration.md's
    table uses."""
    cells = {}
    for kind, row in comparison(after).items():
        n = row["points"]
        what = "planned memory covers" if kind == "memory" else "P90 covers"
        cells[kind] = (
            f"{row['within']} of {n} ({row['within'] / n:.0%}) within goal; {what} {row['covered']} of {n}; "
            f"{row['sources']} sources"
        )
    return cells


def main(argv: list[str] | None = None) -> None:
    """`register FILE...`: fill in the predictions of new pre-registered files."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["register"]:
        for name in args[1:]:
            register(HERE / name)
            print(f"registered {name}")


if __name__ == "__main__":
    main()


#: The report of the first comparisons.
MARKDOWN = HERE.parent / "preregistered.md"


def _row(point: dict[str, Any]) -> str:
    predicted, published = point["predicted"], float(point["published"])
    ratio = predicted["figure"] / published
    within, covered = _judged(point) or (False, False)
    cover = (
        f"{predicted['planned']:,.2f} (+{predicted['margin']:.0%})"
        if point["kind"] == "memory"
        else f"P90 × {predicted['p90']:.2f}"
    )
    return (
        f"| {point['id']} | {point['kind']} | {predicted['figure']:,.1f} | "
        f"{published:,.1f} {point['unit']} | "
        f"{ratio:.2f} | {'yes' if within else 'no'} | {cover}: {'yes' if covered else 'no'} |"
    )


#: The table of measured points against their predictions, in both comparisons.
_HEADER = (
    "| point | kind | predicted | published | ratio | within goal | covered |",
    "|---|---|---:|---:|---:|---|---|",
)


def _measured_sources() -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each registered source's file, with its points that have a published measurement."""
    for path in registered_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        yield data, [p for p in data["points"] if p.get("published") is not None]


def render_markdown() -> str:
    """preregistered.md: per source its registration and every measured point against the committed
    prediction (never recomputed), then the totals calibration.md quotes."""
    lines = [
        "# Pre-registered sources: the first comparison",
        "",
        "Written by `python -m benchmarks.calibration` from benchmarks/calibration/preregistered/*.yaml;",
        "do not edit by hand. Each source's workloads and ftopt's predictions were committed before its",
        "measurements (docs/calibration.md, section 5); this is the comparison against those committed",
        "predictions, reported unchanged. Ratio = predicted / published; goals memory ±15 %, throughput",
        "±25 %; covered = planned memory (with its margin) at least the measurement, or the measured",
        "rate at least predicted / P90 (the real hours within the P90 hours).",
        "",
    ]
    for data, measured in _measured_sources():
        lines += [f"## {data['source']}", "", data["description"], "", f"Registered: {data['registered']}"]
        lines += ["", f"Measured: {data.get('measured', 'not yet')}", ""]
        lines += [f"- assumption: {a}" for a in data.get("assumptions", [])]
        lines += [
            "",
            *_HEADER,
            *[_row(p) for p in measured],
            "",
        ]
    lines += ["## Totals", ""]
    lines += [f"- {kind}: {cell}" for kind, cell in comparison_cells().items()]
    return "\n".join(lines + _after_lines()) + "\n"


def _after_lines() -> list[str]:
    """The comparison with today's model beside the first one: every measured point recomputed
    (`recomputed`), labelled as not blind."""
    lines = [
        "",
        "## After physics: today's model (not blind)",
        "",
        "The same measured points predicted by today's model, margins and spread, after the physics",
        "added since registration (benchmarks/calibration/changes.yaml). Not blind: the changes were",
        "made after these measurements had been read, so this comparison says what the changes did,",
        "and the first comparison above stays the one that judges ftopt.",
        "",
        *_HEADER,
    ]
    for data, measured in _measured_sources():
        models = data.get("models") or {}
        lines += [_row(recomputed(p, models)) for p in measured]
    lines += ["", "Totals after physics:", ""]
    lines += [f"- {kind}: {cell}" for kind, cell in comparison_cells(after=True).items()]
    return lines
