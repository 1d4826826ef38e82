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
from ftopt.model.commercial import Commercial, Copy, commercial, sell_plan
from ftopt.model.facility import facility
from ftopt.model.findings import money
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.summary import Figure, PlanSummary, summarize
from ftopt.model.workload import Energy, Workload

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
    the commercial block when the workload has `quote:`."""
    quote = workload.quote if workload is not None else None
    margin = quote.margin_percent if quote is not None else None
    shown = sell_plan(plan, margin) if margin else plan
    summary = summarize(shown, workload, catalogue)
    if catalogue is not None:
        utilisation = workload.energy.utilisation if workload is not None else Energy().utilisation
        summary = summary.model_copy(update={"facility": facility(plan, catalogue, utilisation)})
    if quote is None:
        return shown, summary
    lead = {p.item: p.lead_weeks for p in catalogue.prices if p.lead_weeks is not None} if catalogue else {}
    return shown, with_commercial(summary, commercial(plan, shown, quote, lead, copy))


def total_words(block: Commercial) -> str:
    """The headline's clause for the total: what is added to the hardware, and the total."""
    added = [
        name
        for name, amount in (
            ("services", block.services_total),
            ("shipping", block.shipping),
            (f"{block.tax_percent:g} % tax", block.tax),
        )
        if amount
    ]
    if not added:
        return ""
    return f"; {money(block.total, block.currency)} in total with " + " and ".join(
        [", ".join(added[:-1]), added[-1]] if len(added) > 1 else added
    )


def commercial_figures(block: Commercial) -> list[Figure]:
    """The key figures the commercial block adds: services, shipping, tax, total, cost and margin in
    the seller's copy, delivery."""
    c = block.currency
    out = []
    if block.services_total:
        out.append(Figure(label="Services", value=money(block.services_total, c)))
    if block.shipping:
        out.append(Figure(label="Shipping", value=money(block.shipping, c)))
    if block.tax_percent:
        out.append(Figure(label=f"Tax ({block.tax_percent:g} %)", value=money(block.tax, c)))
    out.append(Figure(label="Total to pay", value=money(block.total, c)))
    if block.cost is not None and block.margin is not None:
        out.append(Figure(label="Cost (seller's copy)", value=money(block.cost, c)))
        out.append(Figure(label="Margin after discount (seller's copy)", value=money(block.margin, c)))
    if block.delivery is not None:
        out.append(Figure(label="Delivery by", value=block.delivery.isoformat()))
    elif block.lead_weeks:
        out.append(Figure(label="Delivery", value=f"{block.lead_weeks:g} weeks after the order"))
    return out


def with_commercial(summary: PlanSummary, block: Commercial) -> PlanSummary:
    """The summary with its commercial block, the total in the headline and the block's figures after
    the price figures."""
    figures = [
        f.model_copy(update={"label": "Hardware after discount"}) if f.label == "Price to pay" else f
        for f in summary.figures
    ]
    at = next((i + 1 for i, f in enumerate(figures) if f.label == "Hardware after discount"), None)
    if at is None:
        at = next((i + 1 for i, f in enumerate(figures) if f.label == "Price"), 0)
    figures[at:at] = commercial_figures(block)
    return summary.model_copy(
        update={
            "commercial": block,
            "headline": summary.headline + total_words(block),
            "figures": tuple(figures),
        }
    )
