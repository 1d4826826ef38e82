"""A stored plan in each download format, through the functions `ftopt solve --format X` uses.

Why through `ftopt.quote.formats.render` and `write_xlsx`: the browser's quote must be the CLI's quote,
byte for byte, and a change to a renderer must reach both. The HTML quote is the one the worker
rendered at solve time, each copy with the frontier's three bids at its prices; PDF is Chromium's
print of that page, as a person would print it, and answers "not available" where no Chromium is
installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary
from ftopt.quote.formats import QuoteOptions, render, render_bytes
from ftopt.quote.xlsx import write_xlsx

#: format → (the renderer's format name, media type, file suffix).
FORMATS = {
    "html": ("html", "text/html; charset=utf-8", "html"),
    "json": ("json", "application/json", "json"),
    "yaml": ("yaml", "application/yaml", "yaml"),
    "md": ("markdown", "text/markdown; charset=utf-8", "md"),
    "xlsx": ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "pdf": ("pdf", "application/pdf", "pdf"),
}
PDF_TIMEOUT_S = 90
#: Chromium's switches for a headless run with no network: this machine's closed network refuses
#: the background connections Chromium otherwise makes at every start (the browser tests use them too).
HEADLESS_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: ... and for the quote's print: no header or footer of Chromium's own.
CHROMIUM_ARGS = (*HEADLESS_ARGS, "--no-pdf-header-footer")


class NoPdf(Exception):
    """PDF cannot be made here: no Chromium, or its print failed; the message says which."""


@dataclass(frozen=True)
class Download:
    """A quote file: its bytes, media type and file suffix."""

    body: bytes
    media_type: str
    suffix: str


def find_chromium() -> str | None:
    """Debian's Chromium, where installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def quote(plan: Plan, quote_html: str | None, fmt: str, summary: PlanSummary, logo: str = "") -> Download:
    """The quote of `plan` in `fmt` (a key of FORMATS), from its summary with the workload's
    commercial lines, as `ftopt solve` renders it; `quote_html`, the worker's HTML of the copy asked
    for (with the frontier's three bids; None for a solve stored before the worker rendered the
    seller's copy, which is then rendered here without them); `logo` a data: URI for
    HTML and PDF; `NoPdf` when a PDF cannot be made."""
    name, media, suffix = FORMATS[fmt]
    html = quote_html or render_bytes(plan, "html", summary, QuoteOptions(None, True, logo)).decode("utf-8")
    if fmt == "html":
        return Download(html.encode("utf-8"), media, suffix)
    if fmt == "pdf":
        return Download(print_pdf(html), media, suffix)
    if fmt == "xlsx":
        with tempfile.TemporaryDirectory(prefix="ftopt-xlsx-") as folder:
            path = Path(folder) / "quote.xlsx"
            write_xlsx(plan, path, True, summary)
            return Download(path.read_bytes(), media, suffix)
    return Download((render(plan, name, None, True, summary) or "").encode("utf-8"), media, suffix)


def print_pdf(html: str) -> bytes:
    """Chromium's print of an HTML page (A4, as the quote's print styles lay it out)."""
    chromium = find_chromium()
    if chromium is None:
        raise NoPdf("PDF needs Chromium (apt-get install chromium); download the HTML quote and print it")
    with tempfile.TemporaryDirectory(prefix="ftopt-pdf-") as folder:
        page, pdf = Path(folder) / "quote.html", Path(folder) / "quote.pdf"
        page.write_text(html, encoding="utf-8")
        command = [
            chromium,
            *CHROMIUM_ARGS,
            f"--user-data-dir={folder}/profile",
            f"--print-to-pdf={pdf}",
            page.as_uri(),
        ]
        try:
            subprocess.run(command, capture_output=True, timeout=PDF_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NoPdf(f"Chromium's print failed ({type(exc).__name__})") from None
        if not pdf.is_file() or pdf.stat().st_size == 0:
            raise NoPdf("Chromium's print wrote no PDF")
        return pdf.read_bytes()
