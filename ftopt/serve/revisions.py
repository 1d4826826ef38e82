"""A quote names its revision: the text a version's quote is made from carries the version's number.

Why here and not in the stored text: every save of a bid is a revision (a version in the store),
numbered by the store; the user's text stays as they wrote it, and the quote made from it (in the
worker, `answer`, and for every download, `bids.summary_of`) says which revision it prices. Where
the quote schema has a `quote.revision` field and the user set none, the number goes there;
otherwise it follows the quote's reference (`Q-2027-0142, revision 3`).
"""

from __future__ import annotations

from ruamel.yaml.error import YAMLError

from ftopt.model.workload import QuoteDetails
from ftopt.serve.roundtrip import Document, RoundTripError

#: The longest reference the schema takes.
MAX_REFERENCE = 100


def stamped(text: str, number: int) -> str:
    """`text` with its quote naming revision `number` (comments and the rest kept); a text the
    round-trip reader cannot take (it is stricter than ftopt's loader) is left as it is."""
    try:
        doc = Document(text)
    except (RoundTripError, YAMLError):
        return text
    if "revision" in QuoteDetails.model_fields:
        if doc.get("quote.revision") is None:
            doc.set("quote.revision", number)
        return doc.dump()
    reference, said = doc.get("quote.reference"), f"revision {number}"
    if reference:
        said = f"{str(reference)[: MAX_REFERENCE - len(said) - 2]}, {said}"
    doc.set("quote.reference", said)
    return doc.dump()
