"""User text made inert in each output format: Markdown, spreadsheet and CSV cells.

Why: a bid name, a run name or a vendor's catalogue description reaches every quote. In Markdown a
renderer that allows HTML would run `<script>` and `*`, `[`, `|` would restyle or break a table; in a
spreadsheet a cell that starts with `=`, `+`, `-` or `@` is read as a formula (CSV injection, OWASP).
HTML escaping is `html.escape`, used directly by the HTML renderers.
"""

from __future__ import annotations

import re
import string

#: Characters Markdown gives a meaning anywhere in a line (inline code, emphasis, links, tables,
#: strike-through, escapes); HTML-significant ones become entities instead.
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: An ordered-list marker at the start of a line: digits, then `.` or `)`, then a space or the end.
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
#: What a spreadsheet reads as the start of a formula (tab and carriage return as well, per OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def markdown_text(text: str) -> str:
    """`text` as literal Markdown inline text, wherever the line starts: entities for & < >,
    backslashes before the characters that would make emphasis, code, links or table cells and
    before a leading character that would open a block (heading, list, rule, quote), newlines as
    spaces."""
    text = "".join(_ENTITIES.get(c, c) for c in text)
    text = _MARKDOWN.sub(r"\\\1", text).replace("\r", " ").replace("\n", " ").strip()
    text = _ORDERED.sub(r"\1\\\2", text)
    opens_block = bool(text) and text[0] in string.punctuation and text[0] not in ("\\", "&")
    return "\\" + text if opens_block else text


def cell_text(text: str) -> str:
    """`text` as a spreadsheet or CSV cell that can never be a formula: a leading quote when it
    starts like one."""
    return "'" + text if text.startswith(FORMULA_START) else text
