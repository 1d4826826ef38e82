"""The buyer's and the seller's copy of a quote: which prices each shows, and the commercial block.

Why a step of its own between the solve and the formats: a margin turns every catalogue price into
the seller's cost, and the buyer must read sell prices everywhere (servers, bills, bound, savings,
alternatives, buy-or-rent) and never a cost. Doing it once here, on a copy of the plan
(`ftopt.model.commercial.sell_plan`), lets every format stay ignorant of margins; the seller's copy
shows the same sell prices with cost and margin beside each line.
"""

from __future__ import annotations

import base64
from pathlib import Path

from ftopt.errors import InputError, quoted
from ftopt.model.commercial import Copy, sell_plan
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.model.workload import Workload

COPIES: tuple[Copy, ...] = ("buyer", "seller")


def check_currency(workload: Workload, catalogue: Catalogue, file: str) -> None:
    """`quote.currency` must be the catalogue prices' currency: ftopt converts no money."""
    quote = workload.quote
    if quote is not None and quote.currency is not None and quote.currency != catalogue.currency:
        raise InputError(
            file,
            "quote.currency",
            f"the catalogue's prices are in {catalogue.currency}, not {quote.currency}; ftopt converts "
            f"no currency: give a price list in {quote.currency} (--prices) or write {catalogue.currency}",
        )


#: The largest logo a quote embeds: a letterhead's image, not a photograph.
LOGO_MAX_BYTES = 1_000_000
_LOGO_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}


def logo_uri(workload_file: Path, workload: Workload) -> str:
    """The seller's logo (`quote.seller.logo`, a path relative to the bid's file) as a data: URI, so
    that the HTML quote stays one self-contained file; "" without a logo. A missing, oversized or
    unreadable file is the bid's error (exit 2), found before any solve."""
    quote = workload.quote
    if quote is None or quote.seller is None or quote.seller.logo is None:
        return ""
    path = workload_file.parent / quote.seller.logo
    field = "quote.seller.logo"
    try:
        data = path.read_bytes() if path.stat().st_size <= LOGO_MAX_BYTES else None
    except OSError as exc:
        raise InputError(
            str(workload_file), field, f"cannot read {quoted(str(path))}: {exc.strerror}"
        ) from None
    if data is None:
        raise InputError(str(workload_file), field, f"a logo of at most {LOGO_MAX_BYTES:,} bytes")
    media = _LOGO_TYPES[path.suffix.lower()]
    return f"data:{media};base64,{base64.b64encode(data).decode('ascii')}"


def quote_copy(
    plan: Plan, workload: Workload | None, catalogue: Catalogue | None, copy: Copy = "buyer"
) -> tuple[Plan, PlanSummary]:
    """The plan as `copy` shows it (at sell prices when the quote has a margin) and its summary, with
    the commercial block when the workload has `quote:` and the facility sheet with a catalogue."""
    quote = workload.quote if workload is not None else None
    margin = quote.margin_percent if quote is not None else None
    shown = sell_plan(plan, margin) if margin else plan
    return shown, summarize(shown, workload, catalogue, copy, cost=plan)
