"""Token counts and dates as people write them (issue 36, item 8): `2B`, `2e9`, `2_000_000_000`,
`500M`, `1.5T`; a date YAML reads as a date. Each is read exactly, or refused with what is accepted."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from ftopt.model.written import SUFFIXES, count_value, date_text


@pytest.mark.parametrize(
    ("written", "count"),
    [
        ("2B", 2_000_000_000),
        ("2b", 2_000_000_000),
        ("2G", 2_000_000_000),
        ("2e9", 2_000_000_000),
        ("2E9", 2_000_000_000),
        ("2_000_000_000", 2_000_000_000),
        ("500M", 500_000_000),
        ("500 M", 500_000_000),
        ("1.5T", 1_500_000_000_000),
        ("0.25B", 250_000_000),
        ("750k", 750_000),
        ("1.5e9", 1_500_000_000),
        (" 42 ", 42),
        (2e9, 2_000_000_000),
        (2_000_000_000, 2_000_000_000),
    ],
)
def test_a_count_reads_as_written(written: object, count: int) -> None:
    value = count_value(written)
    assert value == count and type(value) is int


@pytest.mark.parametrize(
    "written", ["2X", "two billion", "2.5", "1.0000000001B", "-2B", "1e999", "2,000", "B"]
)
def test_a_count_that_is_no_whole_number_of_tokens_is_refused(written: str) -> None:
    with pytest.raises(ValueError, match="expected"):
        count_value(written)


def test_what_the_field_itself_refuses_is_left_to_it() -> None:
    assert count_value(True) is True and count_value([1]) == [1] and count_value(2.5) == 2.5


@given(
    st.integers(1, 999_999),
    st.integers(0, 3),
    st.sampled_from(["", *SUFFIXES, *(s.upper() for s in SUFFIXES)]),
)
def test_every_written_form_is_the_exact_count(whole: int, decimals: int, suffix: str) -> None:
    """A number with up to three decimals and a suffix is exactly that decimal times the suffix; a
    fraction of a token is refused, never rounded."""
    text = f"{whole / 10**decimals:.{decimals}f}{suffix}"
    exact = Decimal(text.rstrip("kmbgtKMBGT")) * SUFFIXES.get(suffix.lower(), 1)
    if exact == exact.to_integral_value():
        event("whole")
        assert count_value(text) == int(exact)
    else:
        event("fraction of a token")
        with pytest.raises(ValueError, match="whole number"):
            count_value(text)


def test_a_date_reads_as_its_text() -> None:
    assert date_text(datetime.date(2027, 1, 31)) == "2027-01-31"
    assert date_text(datetime.datetime(2027, 1, 31)) == "2027-01-31"
    assert date_text("2027-01-31") == "2027-01-31"
    with pytest.raises(ValueError, match="time stamp"):
        date_text(datetime.datetime(2027, 1, 31, 12, 30))
