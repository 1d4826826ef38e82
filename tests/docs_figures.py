"""The pictures the README and the docs show, drawn from today's plans.

`python -m tests.docs_figures` writes them; `tests/test_readme.py` holds the committed files to what
it draws, so a change to the memory model or the drawing cannot leave a stale picture behind."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.quote.svg import placement_svg
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

ROOT = Path(__file__).resolve().parents[1]
#: Each picture's file and the example whose plan it draws.
FIGURES = {ROOT / "docs" / "img" / "first-project-placement.svg": ROOT / "examples" / "first-project.yaml"}


def drawn(example: Path) -> str:
    """The placement picture of the example's plan, as the HTML quote draws it."""
    catalogue = load_catalogue()
    result = solve(load_workload(example, catalogue), catalogue, SolveSettings(what_if=False))
    svg = placement_svg(result.plan_or_raise())
    return svg if svg.endswith("\n") else svg + "\n"


def main() -> None:
    """Write every picture."""
    for figure, example in FIGURES.items():
        figure.write_text(drawn(example), encoding="utf-8")
        print(f"wrote {figure.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
