"""A racked bid with every commercial line, solved once per test session (not a test module)."""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: A 1×1 PNG: the seller's logo.
LOGO = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
QUOTE: dict[str, Any] = {
    "number": "Q-2027-0142",
    "revision": 3,
    "seller": {"name": "Example Systems GmbH", "address": "Musterstraße 1, 10115 Berlin", "logo": "logo.png"},
    "customer": {"name": "ACME Labs", "contact": "Jane Doe"},
    "valid_until": "2027-01-31",
    "discount_percent": 8,
    "margin_percent": 18,
    "tax_percent": 19,
    "shipping": 1200,
    "services": [
        {"name": "Installation and burn-in", "price": 1500, "per": "server"},
        {"name": "Support", "price": 900, "per": "server", "years": 3},
    ],
    "payment_terms": "30 days net",
}


def write_bid(folder: Path, quote: dict[str, Any] | None = None, example: str = "two-racks.yaml") -> Path:
    """The example with `quote:` (QUOTE by default) and the logo beside it, written into `folder`."""
    bid = yaml.safe_load((EXAMPLES / example).read_text(encoding="utf-8"))
    bid["quote"] = QUOTE if quote is None else quote
    path = folder / "bid.yaml"
    text = yaml.safe_dump(bid, sort_keys=False, allow_unicode=True)
    path.write_text(text.replace("valid_until: '2027-01-31'", "valid_until: 2027-01-31"), encoding="utf-8")
    (folder / "logo.png").write_bytes(LOGO)
    return path


@cache
def solved(folder: Path) -> tuple[Plan, Workload, Catalogue]:
    """The bid in `folder` solved (cost prices: what the solver sees)."""
    catalogue = load_catalogue()
    workload = load_workload(write_bid(folder), catalogue)
    settings = SolveSettings(time_limit=30, what_if=False, workers=2)
    return solve(workload, catalogue, settings).plan_or_raise(), workload, catalogue
