"""A rule family's data file: the site policy fields it declares and the items they name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.model.family_data import FamilyData, PolicyField


def test_a_policy_field_takes_an_item_id_or_a_number_in_its_range() -> None:
    by_id = PolicyField(kind="id", description="an outlet")
    assert by_id.problem("c19", ("c13", "c19")) is None
    assert by_id.problem("c20", ("c13", "c19")) == "one of: c13, c19"
    ranged = PolicyField(kind="number", description="kW", minimum=0.5, maximum=20)
    assert ranged.problem(3, ()) is None and ranged.problem(2.5, ()) is None
    assert ranged.problem(30, ()) == "a number from 0.5 to 20"
    assert ranged.problem("3", ()) == "a number" and ranged.problem(True, ()) == "a number"


def test_items_need_unique_string_ids_and_are_found_by_them() -> None:
    data = FamilyData(items=({"id": "c13", "amps": 10}, {"id": "c19", "amps": 16}))
    assert data.ids == ("c13", "c19") and data.item("c19")["amps"] == 16
    with pytest.raises(ValidationError, match=r"@items\[1\]\.id: id 'c13' is used twice"):
        FamilyData(items=({"id": "c13"}, {"id": "c13"}))
    with pytest.raises(ValidationError, match=r"@items\[0\]\.id: every item has a string id"):
        FamilyData(items=({"amps": 10},))
