"""A quote names its revision, and the stored text stays as the user wrote it."""

from __future__ import annotations

from ftopt.serve.revisions import stamped
from ftopt.serve.workloads import data_of

TEXT = "# the buyer's bid\nname: b  # as the customer calls it\nruns: [{name: r, model: m, method: lora}]\n"


def test_the_quote_carries_the_revision_number():
    assert data_of(stamped(TEXT, 3))["quote"] == {"revision": 3}
    numbered = TEXT + "quote: {number: Q-2027-0142}\n"
    assert data_of(stamped(numbered, 2))["quote"] == {"number": "Q-2027-0142", "revision": 2}


def test_a_revision_the_user_wrote_is_kept():
    assert data_of(stamped(TEXT + "quote: {revision: 7}\n", 2))["quote"] == {"revision": 7}


def test_the_comments_stay_and_an_unreadable_text_is_left_alone():
    assert stamped(TEXT, 1).startswith(TEXT)
    assert stamped("a: [b\n", 1) == "a: [b\n"
