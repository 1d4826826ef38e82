"""One page shell for every HTML view, rendering only in ftopt/quote, and no import circle between
the renderers."""

from __future__ import annotations

import ast
from pathlib import Path

from ftopt.quote.page import CSS, FONT

PACKAGE = Path(__file__).resolve().parents[2] / "ftopt"


def _imports(path: Path) -> set[str]:
    """Every ftopt module `path` imports, function-level imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ftopt"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("ftopt")}
    return found


def _renderers() -> dict[str, set[str]]:
    return {f"ftopt.quote.{p.stem}": _imports(p) for p in sorted((PACKAGE / "quote").glob("*.py"))}


def test_the_renderers_import_each_other_without_a_circle() -> None:
    graph = {m: {i for i in imports if i in _renderers()} for m, imports in _renderers().items()}
    assert graph["ftopt.quote.frontier"].isdisjoint({"ftopt.quote.html"})

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph[start])

    assert [m for m in graph if reaches(m, m, set())] == []


def test_one_style_and_one_font_for_every_page() -> None:
    for path in (PACKAGE / "quote").glob("*.py"):
        if path.stem == "page":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}  # fmt: skip
        assert not assigned & {"CSS", "FONT"}, f"{path.name} defines its own style"
        assert "DejaVu Sans" not in path.read_text(encoding="utf-8"), path.name
    assert "DejaVu Sans" in CSS and "DejaVu Sans" in FONT


def test_the_sweep_package_renders_nothing() -> None:
    modules = sorted((PACKAGE / "sweep").glob("*.py"))
    assert len(modules) > 1, "the sweep package's modules are where this test looks"
    for path in modules:
        text = path.read_text(encoding="utf-8")
        assert "<svg" not in text and "<html" not in text and "<table" not in text, path.name
        assert not any(i.startswith(("ftopt.cli", "ftopt.quote")) for i in _imports(path)), path.name


def test_the_workbench_imports_nothing_of_the_command_line() -> None:
    """The workbench shows the quote through ftopt.quote, as the CLI does: never through click's package."""
    modules = sorted((PACKAGE / "serve").glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        assert not any(i.startswith("ftopt.cli") for i in _imports(path)), path.name


def test_the_quote_the_frontier_page_and_the_sweep_report_share_the_shell() -> None:
    from ftopt.model.plan import Plan, Status
    from ftopt.quote.frontier import render_frontier_html
    from ftopt.quote.html import render_html
    from ftopt.quote.sweep import render_html as render_sweep_html
    from ftopt.solver.frontier import Frontier

    plan = Plan(status=Status.INFEASIBLE, currency="EUR", total_price=0, bound=None, gap=None, wall_seconds=0)
    empty = Frontier(objective="price", points=[], stopped="infeasible", reason="", solves=0, seconds=0.0)
    pages = [render_html(plan), render_frontier_html(empty, "frontier"), render_sweep_html([], {})]
    for page in pages:
        assert f"<style>{CSS}</style>" in page and page.startswith("<!DOCTYPE html>")


def test_printed_pages_keep_every_section_whole_and_the_appendix_uncut() -> None:
    """Print styles: no section, table row or drawing split across pages; the appendix on its own
    page, its tables wrapping to the page's width rather than running off it."""
    printed = CSS.split("@media print", 1)[1]
    avoid = printed.split("break-inside: avoid", 1)[0].rsplit("}", 1)[-1]
    assert {"section", "table", "tr", "svg"} <= {s.strip() for s in avoid.replace("{", "").split(",")}
    assert ".appendix {{ break-before: page; }}".replace("{{", "{").replace("}}", "}") in printed
    assert "overflow-wrap: anywhere" in printed and "width: 100%" in printed
