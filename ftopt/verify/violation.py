"""A broken rule, as one line a person can act on, and the number formatting those lines share.

Why a module of its own: every rule module builds `Violation`s and formats figures the same way
("1128 GB", "0.01", never "1.128e+03"), and the command line prints them one per line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Reported GB figures are rounded to the cent of a GB; a re-computation may differ by this much.
GB_TOLERANCE = 0.01
#: Prices are compared to the cent: two prices each rounded to the cent agree within half of one.
PRICE_TOLERANCE = 0.005
#: Float noise allowed in comparisons of figures that should be equal.
EPS = 1e-9


@dataclass(frozen=True)
class Violation:
    """One rule a plan breaks: which rule, on what (a server or a run copy), what was found and allowed."""

    rule: str
    subject: str
    found: str
    allowed: str

    def __str__(self) -> str:
        """`rule: subject: found, allowed` on one line."""
        tail = f", {self.allowed}" if self.allowed else ""
        return f"{self.rule}: {self.subject}: {self.found}{tail}"


def num(value: float) -> str:
    """A figure without exponent or trailing zeros: 1128, 987.66, 0.5, nan."""
    if not math.isfinite(value):
        return str(value)
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def money(value: float) -> str:
    """A price to the cent with thousands separators."""
    return f"{value:,.2f}" if math.isfinite(value) else str(value)


def close(a: float, b: float, tolerance: float) -> bool:
    """Whether two figures agree within `tolerance` (never for NaN)."""
    return abs(a - b) <= tolerance + EPS


def at_most(value: float, limit: float) -> bool:
    """`value ≤ limit` with float noise allowed (False for NaN)."""
    return value <= limit + EPS


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 server', '2 servers'; '1 copy', '2 copies' with `many` given."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
