"""A quote names its revision: the text a version's quote is made from carries the version's number.

Why here and not in the stored text: every save of a bid is a revision (a version in the store),
numbered by the store; the user's text stays as they wrote it, and the quote made from it (in the
worker, `answer`, and for every download, `bids.quote_of`) says which revision it prices, in
`quote.revision` (the quote's letterhead shows it beside the quote number). A revision the user
wrote themselves (a numbering of their own) is left as they wrote it.
"""

from __future__ import annotations

from functools import lru_cache

from ruamel.yaml.error import YAMLError

from ftopt.serve.roundtrip import Document, RoundTripError


@lru_cache(maxsize=256)
def stamped(text: str, number: int) -> str:
    """`text` with `quote.revision: number` unless it names one (comments and the rest kept); a
    text the round-trip reader cannot take (it is stricter than ftopt's loader) is left as it is.
    Cached: a pure function of a stored text, and a round-trip parse on every page view of a solved
    version was most of its time under load."""
    try:
        doc = Document(text)
    except (RoundTripError, YAMLError):
        return text
    if doc.get("quote.revision") is None:
        doc.set("quote.revision", number)
    return doc.dump()
