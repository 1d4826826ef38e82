"""The registry of quote formats: one entry per format, each laying out the same summary.

Why a registry: `ftopt solve --format X`, the workbench's downloads and the tests all ask for "the
quote in X"; each used to pick its renderer with its own chain of ifs, so a format added to one was
missing from another. Here a format is a name, a media type, a file suffix and a function from
(plan, summary, options) to bytes; `render_bytes` is the one door every caller goes through.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from rich.console import Console

from ftopt.errors import FtoptError
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.quote.html import render_html
from ftopt.quote.markdown import render_markdown
from ftopt.quote.table import UNBOUNDED_WIDTH, render_table
from ftopt.quote.xlsx import write_xlsx

if TYPE_CHECKING:
    from ftopt.solver.frontier import Frontier


@dataclass(frozen=True)
class QuoteOptions:
    """What a caller may choose about a quote beyond its format: the frontier's three bids (HTML),
    and whether the technical appendix is shown (JSON and YAML keep every field regardless)."""

    bids: Frontier | None = None
    internals: bool = True
    logo: str = ""  # the seller's logo as a data: URI (`ftopt.quote.copies.logo_uri`), for HTML and PDF
    bids_cost: Frontier | None = None  # the seller's copy with a margin: `bids` at cost (quote.bids)


@dataclass(frozen=True)
class Format:
    """One quote format: its name, media type, file suffix, and how the quote becomes bytes."""

    name: str
    media_type: str
    suffix: str
    write: Callable[[Plan, PlanSummary, QuoteOptions], bytes]
    binary: bool = False


def plan_record(plan: Plan, summary: PlanSummary) -> dict[str, Any]:
    """The plan's JSON fields and, last, the summary every quote format renders (which `ftopt verify`
    re-derives from the plan and compares)."""
    return {**plan.model_dump(mode="json", by_alias=True), "summary": summary.model_dump(mode="json")}


def _json(plan: Plan, summary: PlanSummary, _: QuoteOptions) -> bytes:
    return (json.dumps(plan_record(plan, summary), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _yaml(plan: Plan, summary: PlanSummary, _: QuoteOptions) -> bytes:
    text = yaml.safe_dump(plan_record(plan, summary), sort_keys=False, allow_unicode=True)
    return text.encode("utf-8")


def _markdown(plan: Plan, summary: PlanSummary, options: QuoteOptions) -> bytes:
    return render_markdown(plan, options.internals, summary).encode("utf-8")


def _html(plan: Plan, summary: PlanSummary, options: QuoteOptions) -> bytes:
    return render_html(
        plan, options.bids, options.internals, summary, options.logo, options.bids_cost
    ).encode("utf-8")


class NoPdfLibrary(FtoptError):
    """`--format pdf` without WeasyPrint or the system libraries it draws with (Pango)."""

    exit_code = 2


def _pdf(plan: Plan, summary: PlanSummary, options: QuoteOptions) -> bytes:
    """The HTML quote printed to PDF by WeasyPrint, with the page's print styles (A4, sections whole).

    Why WeasyPrint: it lays out the same HTML and CSS the browser prints, so the PDF is the HTML
    quote, figure for figure, without a browser; it needs Pango from the system (Debian: libpango)."""
    try:
        from weasyprint import HTML
    except (ImportError, OSError) as exc:  # OSError: WeasyPrint without the system's Pango
        raise NoPdfLibrary(
            f"--format pdf needs WeasyPrint and Pango ({type(exc).__name__}: {exc}); install the pdf "
            "extra, pip install 'ftopt[pdf]', and Pango (apt-get install libpango-1.0-0 libpangoft2-1.0-0)"
        ) from None
    html = render_html(plan, options.bids, options.internals, summary, options.logo, options.bids_cost)
    pdf: bytes = HTML(string=html).write_pdf()
    return pdf


def _table(plan: Plan, summary: PlanSummary, options: QuoteOptions) -> bytes:
    """The terminal table as plain text, no colour, every cell whole (as into a file)."""
    out = io.StringIO()
    console = Console(file=out, width=UNBOUNDED_WIDTH, no_color=True, highlight=False, soft_wrap=False)
    render_table(plan, console, options.internals, summary)
    return out.getvalue().encode("utf-8")


def _xlsx(plan: Plan, summary: PlanSummary, options: QuoteOptions) -> bytes:
    with tempfile.TemporaryDirectory(prefix="ftopt-xlsx-") as folder:
        path = Path(folder) / "quote.xlsx"
        write_xlsx(plan, path, options.internals, summary)
        return path.read_bytes()


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("table", "text/plain; charset=utf-8", "txt", _table),
        Format("json", "application/json", "json", _json),
        Format("yaml", "application/yaml", "yaml", _yaml),
        Format("markdown", "text/markdown; charset=utf-8", "md", _markdown),
        Format("html", "text/html; charset=utf-8", "html", _html),
        Format(
            "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", _xlsx, True
        ),
        Format("pdf", "application/pdf", "pdf", _pdf, True),
    )
}


def render_bytes(
    plan: Plan, fmt: str, summary: PlanSummary | None = None, options: QuoteOptions | None = None
) -> bytes:
    """The quote of `plan` in `fmt` (a key of FORMATS) as the bytes of its file."""
    summary = summary if summary is not None else summarize(plan)
    return FORMATS[fmt].write(plan, summary, options or QuoteOptions())


def render(
    plan: Plan,
    fmt: str,
    bids: Frontier | None = None,
    internals: bool = True,
    summary: PlanSummary | None = None,
) -> str:
    """The quote of `plan` in a text format `fmt` as text; the quote formats carry the technical
    appendix only with `internals`; JSON and YAML carry the plan with its summary under `summary`."""
    if FORMATS[fmt].binary:
        raise ValueError(f"{fmt} is not a text format; use render_bytes")
    return render_bytes(plan, fmt, summary, QuoteOptions(bids, internals)).decode("utf-8")
