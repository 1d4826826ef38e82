"""Values as people write them: token counts with a suffix or an exponent, and dates YAML reads as
dates. Each is read into the one form the model works with (an integer, a `YYYY-MM-DD` text).

Why a module of its own: a bid is written by hand, and people write two billion tokens as `2B`,
`2e9` or `2_000_000_000`, and a date as `2027-01-31` without quotes. YAML reads `2e9` and `2B` as
text (it needs `2.0e9` for a number) and an unquoted date as a date, so each field that takes one
would refuse what its own documentation shows unless it reads these forms. Exactness matters: a
count is parsed as a decimal, so `1.5T` is exactly 1,500,000,000,000 and `2.5` tokens is refused
rather than rounded.
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import BeforeValidator

#: Suffixes of a count: thousand, million, billion (B or G), trillion. Case-insensitive.
SUFFIXES = {"k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_COUNT = re.compile(r"^([0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:e[+]?[0-9]{1,3})?)\s*([kmbgt])?$", re.IGNORECASE)
#: Counts beyond 10^30 are refused before they are built (`1e999` would be a 1,000-digit integer).
MAX_DIGITS = 30
#: What a count field accepts, in the words every error prints.
COUNT_FORMS = "a whole number of tokens such as 2000000000, 2_000_000_000, 2e9, 2B, 500M or 1.5T"


def count_value(value: Any) -> Any:
    """A count written with a suffix (2B, 500M, 1.5T), an exponent (2e9) or underscores
    (2_000_000_000) as an integer; a number with no fraction as an integer; anything
    else unchanged, for the field's own validation to refuse (a boolean, a list, a fraction)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, str):
        return value
    match = _COUNT.match(value.strip())
    if match is None:
        raise ValueError(f"expected {COUNT_FORMS}, got {value.strip()[:40]!r}")
    digits, suffix = match[1].replace("_", ""), match[2]
    try:
        exact = Decimal(digits) * SUFFIXES[suffix.lower()] if suffix else Decimal(digits)
    except InvalidOperation:
        raise ValueError(f"expected {COUNT_FORMS}, got {value.strip()[:40]!r}") from None
    if exact.adjusted() >= MAX_DIGITS:
        raise ValueError(f"expected a count below 10^{MAX_DIGITS}, got {value.strip()[:40]!r}")
    if exact != exact.to_integral_value():
        raise ValueError(f"expected a whole number of tokens, got {value.strip()[:40]!r} = {exact:f}")
    return int(exact)


def date_text(value: Any) -> Any:
    """A date YAML read as a date (`valid_until: 2027-01-31` unquoted) as its `YYYY-MM-DD` text; a
    time stamp keeps its date only when it is midnight (a time of day is no date)."""
    if isinstance(value, datetime.datetime):
        if value.time() != datetime.time(0) or value.tzinfo is not None:
            raise ValueError(f"expected a date (YYYY-MM-DD), got the time stamp {value.isoformat()}")
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


#: An integer count of tokens, read from any of COUNT_FORMS.
TokenCount = Annotated[int, BeforeValidator(count_value)]
#: A date as `YYYY-MM-DD` text, quoted or not.
DateText = Annotated[str, BeforeValidator(date_text)]
