"""User text made inert in each output format: Markdown, spreadsheet and CSV cells.

Why: a bid name, a run name or a vendor's catalogue description reaches every quote. In Markdown a
renderer that allows HTML would run `<script>` and `*`, `[`, `|` would restyle or break a table; in a
spreadsheet a cell that starts with `=`, `+`, `-` or `@` is read as a formula (CSV injection, OWASP).
HTML escaping is `html.escape`, used directly by the HTML renderers.
"""

from __future__ import annotations

import re

#: Characters Markdown gives a meaning anywhere in a line (inline code, emphasis, links, tables,
#: strike-through, escapes); HTML-significant ones become entities instead.
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: What a spreadsheet reads as the start of a formula (tab and carriage return as well, per OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def markdown_text(text: str) -> str:
    """`text` as literal Markdown inline text: entities for & < >, backslashes before the
    characters that would make emphasis, code, links or table cells, newlines as spaces."""
    text = "".join(_ENTITIES.get(c, c) for c in text)
    text = _MARKDOWN.sub(r"\\\1", text).replace("\r", " ").replace("\n", " ")
    starts_block = text[:1] in ("#", ">") or (text[:1] in ("+", "-") and text[1:2] in ("", " "))
    return "\\" + text if starts_block and len(text) > 1 else text


def cell_text(text: str) -> str:
    """`text` as a spreadsheet or CSV cell that can never be a formula: a leading quote when it
    starts like one."""
    return "'" + text if text.startswith(FORMULA_START) else text
