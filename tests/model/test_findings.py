"""Findings: records worded from their figures, refused when the figures do not fit their kind."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.model.findings import Finding, FindingKind, finding, money


def test_a_finding_is_worded_from_its_figures() -> None:
    f = finding(FindingKind.SERVER_LIMIT, "site", max_servers=3)
    assert f.text == "site.max_servers = 3 is reached" == str(f)
    saving = finding(
        FindingKind.SAVING, "no server limit", saved=10.5, eased_price=89.5, price=100, currency="USD"
    )
    assert saving.text == "no server limit would save USD 10.50 (USD 89.50 instead of USD 100)"


def test_a_stated_sentence_is_kept() -> None:
    f = Finding(kind=FindingKind.SERVER_LIMIT, subject="site", figures={"max_servers": 3}, text="as read")
    assert f.text == "as read"


def test_figures_that_do_not_fit_the_kind_are_refused_by_name() -> None:
    with pytest.raises(ValidationError, match=r"@figures.max_servers: expected a valid integer, got '3'"):
        finding(FindingKind.SERVER_LIMIT, "site", max_servers="3")
    with pytest.raises(ValidationError, match=r"@figures.max_servers: required figure is missing"):
        Finding(kind=FindingKind.SERVER_LIMIT, subject="site", figures={}, text="stated")


def test_money_shows_cents_only_when_there_are_any() -> None:
    assert money(81_840) == "81,840"
    assert money(81_840.5, "USD") == "USD 81,840.50"
