"""A rule family's own data: the site policy fields it adds to the workload and its catalogue items.

Why data and not a field of `Site` or a kind of `Catalogue`: a hard rule that brings new inputs (a
site's PDU outlets, say) should land in its own files, not in the workload model, the catalogue
model and the loader at once. Its data file (`ftopt/catalogue/data/families/<name>.yaml`) declares
the fields a workload may write under `site.policy` (each an id of the file's items or a number in
a range) and holds the items with their sources. The catalogue loads every such file; the
workload's references check (`ftopt.model.references`) holds `site.policy` to the declared fields,
with the file's lines; `ftopt schema` lists them. The family's solver module reads its items by id
and its policy by name; the verifier reads the same raw data on its own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

#: A policy value or an item's figure: an id, a number or a switch.
Value = str | int | float | bool


class PolicyField(BaseModel):
    """One field a family adds under the workload's `site.policy`."""

    model_config = _FROZEN
    kind: Literal["id", "number"] = Field(description="id: one of the family's items; number: a figure")
    description: str = Field(min_length=1, description="what the field means, for the schema")
    minimum: float | None = Field(default=None, description="number only: the least value allowed")
    maximum: float | None = Field(default=None, description="number only: the largest value allowed")

    def problem(self, value: Value, ids: tuple[str, ...]) -> str | None:
        """Why `value` is not one this field takes, or None when it is."""
        if self.kind == "id":
            return None if isinstance(value, str) and value in ids else f"one of: {', '.join(ids)}"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "a number"
        low = self.minimum if self.minimum is not None else float("-inf")
        high = self.maximum if self.maximum is not None else float("inf")
        return None if low <= value <= high else f"a number from {low:g} to {high:g}"


class FamilyData(BaseModel):
    """One family's data file: the policy fields it declares, its items and their sources."""

    model_config = _FROZEN
    fields: dict[str, PolicyField] = Field(default_factory=dict, description="site.policy fields")
    figures: dict[str, Literal["number", "text"]] = Field(
        default_factory=dict, description="each figure every item states, and whether it is a number or text"
    )
    items: tuple[dict[str, Value], ...] = Field(default=(), description="the family's catalogue items")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from, with dates")

    @model_validator(mode="after")
    def _items_have_ids(self) -> FamilyData:
        """Every item has a unique string id, so a policy names one and a plan's check finds it."""
        seen: set[str] = set()
        for index, item in enumerate(self.items):
            item_id = item.get("id")
            if not isinstance(item_id, str) or not item_id:
                raise ValueError(f"@items[{index}].id: every item has a string id")
            if item_id in seen:
                raise ValueError(f"@items[{index}].id: id {item_id!r} is used twice")
            seen.add(item_id)
            self._check_figures(index, item)
        return self

    def _check_figures(self, index: int, item: dict[str, Value]) -> None:
        """Each declared figure is on the item with its kind: the family's module and the verifier read
        them as they are (volts × amps), so a vendor's "amps: ten" is named at load, not met mid-solve."""
        for name, kind in self.figures.items():
            value = item.get(name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if kind == "number" and not number:
                raise ValueError(f"@items[{index}].{name}: expected a number")
            if kind == "text" and not (isinstance(value, str) and value):
                raise ValueError(f"@items[{index}].{name}: expected text")

    @property
    def ids(self) -> tuple[str, ...]:
        """The items' ids, in file order."""
        return tuple(str(item["id"]) for item in self.items)

    def item(self, item_id: str) -> dict[str, Value]:
        """The item with this id (the references check has made sure it exists)."""
        return next(item for item in self.items if item["id"] == item_id)
