"""A quote names its revision, and the stored text stays as the user wrote it."""

from __future__ import annotations

from ftopt.serve.revisions import MAX_REFERENCE, stamped
from ftopt.serve.workloads import data_of

TEXT = "# the buyer's bid\nname: b  # as the customer calls it\nruns: [{name: r, model: m, method: lora}]\n"


def test_the_revision_goes_to_the_quotes_revision_field_unless_the_user_set_one():
    """The quote schema has `quote.revision` (issue 39): the store's number goes there, the user's
    reference stays as written, and a revision the user wrote is theirs."""
    assert data_of(stamped(TEXT, 3))["quote"] == {"revision": 3}
    with_ref = TEXT + "quote: {reference: Q-2027-0142}\n"
    assert data_of(stamped(with_ref, 2))["quote"] == {"reference": "Q-2027-0142", "revision": 2}
    own = TEXT + "quote: {number: Q-1, revision: 7}\n"
    assert data_of(stamped(own, 2))["quote"] == {"number": "Q-1", "revision": 7}


def test_a_long_reference_is_kept_whole_beside_the_revision():
    long = TEXT + f"quote: {{reference: {'x' * MAX_REFERENCE}}}\n"
    quote = data_of(stamped(long, 12))["quote"]
    assert quote == {"reference": "x" * MAX_REFERENCE, "revision": 12}


def test_the_comments_stay_and_an_unreadable_text_is_left_alone():
    assert stamped(TEXT, 1).startswith(TEXT)
    assert stamped("a: [b\n", 1) == "a: [b\n"
