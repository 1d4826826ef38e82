"""results.png: the product's wall time and gap against run copies, with the naive model and the
xl instances at a fixed run mix for comparison. Drawn from results.json alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.judge import median_wall, scale_points, walls, worst_gap
from benchmarks.suite import ALL_TIERS

MARKERS = {"example": "P", "seed": "o", "medium": "s", "c200": "D", "large": "^", "xl": "v"}


def draw(raw: dict[str, Any], path: Path) -> bool:
    """Write the plot; False when matplotlib is not importable."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    _tiers(top, bottom, raw["instances"])
    _naive(top, raw["instances"])
    for points in scale_points(raw):
        top.plot(
            [p.copies for p in points],
            [p.median for p in points],
            linestyle="--",
            linewidth=0.8,
            marker=".",
            label=f"{points[0].name}, copies scaled",
        )
    for y, text in ((0.2, "0.2 s"), (2, "2 s"), (10, "10 s")):
        top.axhline(y, color="grey", linewidth=0.5, linestyle=":")
        top.text(1, y, text, fontsize=7, color="grey", va="bottom")
    top.set_xscale("log")
    top.set_yscale("log")
    top.set_ylabel("wall time per solve, s (median, min–max)")
    top.legend(fontsize=7, ncol=2)
    bottom.set_ylabel("worst gap over repeats, %")
    bottom.set_xlabel("run copies")
    top.set_title("ftopt: solve time and gap against run copies")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _tiers(top: Any, bottom: Any, entries: list[dict[str, Any]]) -> None:
    """One series per tier, open markers for instances whose runs may offload."""
    for tier in ALL_TIERS:
        for offload in (False, True):
            chosen = [e for e in entries if e["tier"] == tier and (e["offload_copies"] > 0) == offload]
            if not chosen:
                continue
            label = f"{tier}{' (may offload)' if offload else ''}"
            style = {
                "marker": MARKERS.get(tier, "o"),
                "linestyle": "none",
                "fillstyle": "none" if offload else "full",
            }
            medians = [median_wall(e) for e in chosen]
            spread = [
                [m - min(walls(e)) for m, e in zip(medians, chosen, strict=True)],
                [max(walls(e)) - m for m, e in zip(medians, chosen, strict=True)],
            ]
            copies = [e["copies"] for e in chosen]
            top.errorbar(copies, medians, yerr=spread, label=label, **style)
            bottom.plot(copies, [100 * worst_gap(e) for e in chosen], label=label, **style)


def _naive(top: Any, entries: list[dict[str, Any]]) -> None:
    ran = [e for e in entries if e.get("naive")]
    if ran:
        top.plot(
            [e["copies"] for e in ran],
            [e["naive"]["seconds"] for e in ran],
            "kx",
            label="naive CP-SAT (build + solve)",
        )
