"""A quote names its revision, and the stored text stays as the user wrote it."""

from __future__ import annotations

from ftopt.serve.revisions import MAX_REFERENCE, stamped
from ftopt.serve.workloads import data_of

TEXT = "# the buyer's bid\nname: b  # as the customer calls it\nruns: [{name: r, model: m, method: lora}]\n"


def test_the_revision_follows_the_reference_or_stands_alone():
    assert data_of(stamped(TEXT, 3))["quote"] == {"reference": "revision 3"}
    with_ref = TEXT + "quote: {reference: Q-2027-0142}\n"
    assert data_of(stamped(with_ref, 2))["quote"] == {"reference": "Q-2027-0142, revision 2"}


def test_a_long_reference_is_cut_to_what_the_schema_takes_and_keeps_the_revision():
    long = TEXT + f"quote: {{reference: {'x' * MAX_REFERENCE}}}\n"
    reference = data_of(stamped(long, 12))["quote"]["reference"]
    assert len(reference) <= MAX_REFERENCE and reference.endswith(", revision 12")


def test_the_comments_stay_and_an_unreadable_text_is_left_alone():
    assert stamped(TEXT, 1).startswith(TEXT)
    assert stamped("a: [b\n", 1) == "a: [b\n"
