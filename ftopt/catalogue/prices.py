"""A user's price list laid over the catalogue's prices (`--prices FILE`).

Prices live with the catalogue: an overlay may only price items the catalogue has, in one currency.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError, field_validator

from ftopt.errors import InputError, quoted
from ftopt.model.hardware import Catalogue, Price
from ftopt.reading.safe_yaml import expected_text, locate, read_yaml, require_mapping, validate

#: Dearest unit price a price list may give. Prices enter the solver as integer cents summed over up
#: to 10,000 servers; beyond about 1e300 a float sum is infinite and the cents cannot be counted.
#: No server part costs a billion, and totals stay well inside CP-SAT's 64-bit integers.
MAX_PRICE = 1e9


class _PriceList(BaseModel):
    model_config = {"frozen": True, "extra": "forbid"}
    prices: tuple[Price, ...]

    @field_validator("prices")
    @classmethod
    def _not_astronomical(cls, prices: tuple[Price, ...]) -> tuple[Price, ...]:
        for index, price in enumerate(prices):
            if price.amount > MAX_PRICE:
                raise ValueError(f"@[{index}].amount: expected at most {MAX_PRICE:,.0f} per unit")
        return prices


def _check_overlay(
    catalogue: Catalogue, overlay: tuple[Price, ...], node: yaml.Node | None, file: str
) -> None:
    """Each entry prices a catalogue item, in the currency the merged list will have."""
    priced = {p.item for p in catalogue.prices}
    covers_all = priced <= {p.item for p in overlay}
    currency = overlay[0].currency if covers_all and overlay else catalogue.currency
    for index, price in enumerate(overlay):
        if price.item not in priced:
            path, line = locate(node, ("prices", index, "item"), False)
            expected = f"unknown item {quoted(price.item)}; expected a priced catalogue id"
            raise InputError(file, path, expected, line)
        if price.currency != currency:
            path, line = locate(node, ("prices", index, "currency"), False)
            raise InputError(
                file,
                path,
                f"expected {currency} like the other prices (or price every item in one currency)",
                line,
            )


def load_price_list(path: Path, catalogue: Catalogue | None = None) -> tuple[Price, ...]:
    """A user's price list: a mapping with `prices:`, a list of entries like the catalogue's."""
    data, node = read_yaml(path)
    require_mapping(data, str(path), "a prices list")
    overlay = validate(_PriceList, data, node, str(path)).prices
    if catalogue is not None:
        _check_overlay(catalogue, overlay, node, str(path))
    return overlay


def apply_price_list(catalogue: Catalogue, path: Path) -> Catalogue:
    """The catalogue with a user's price list laid over it; bad references name the price file."""
    overlay = load_price_list(path, catalogue)
    try:
        return catalogue.with_prices(overlay)
    except ValidationError as exc:
        raise InputError(str(path), "prices", expected_text(exc.errors()[0])) from None
