"""User text made inert: whatever a bid or a catalogue says, Markdown shows it as the same text
(in a paragraph and in a table cell) and a spreadsheet never reads it as a formula."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ftopt.quote.escape import FORMULA_START, cell_text, markdown_text

#: Printable text with the characters Markdown and HTML give meaning to made frequent.
TEXT = st.lists(
    st.one_of(
        st.sampled_from([*"<>&\"'`*_[]()|~#+-=@!\\:/.{} \t\n", "&amp;", "&#35;", "<script>", "http://x"]),
        st.characters(min_codepoint=32, max_codepoint=0x24F, exclude_categories=("Cs", "Cc")),
    ),
    max_size=30,
).map("".join)
EXAMPLES = 300
MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")


class Shown(HTMLParser):
    """The text and the tags of rendered HTML."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[tuple[str, str]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append((self.tags[-1] if self.tags else "", data))


def _words(text: str) -> str:
    """Markdown ends a line's spaces and turns the escaped newlines into spaces: compare word runs."""
    return " ".join(text.replace("\t", " ").split())


def test_markdown_shows_any_text_as_that_text_in_a_paragraph_a_list_item_and_a_table_cell() -> None:
    reached = []

    @settings(max_examples=EXAMPLES, database=None, deadline=None)
    @given(TEXT)
    def shown_as_itself(text: str) -> None:
        paragraph = Shown(MARKDOWN.render("x " + markdown_text(text)))
        assert paragraph.tags == ["p"], paragraph.tags
        assert _words("".join(d for _, d in paragraph.text)) == _words("x " + text)
        item = Shown(MARKDOWN.render("- " + markdown_text(text)))
        assert item.tags == ["ul", "li"], item.tags  # no heading, rule, nested list or code block
        assert _words("".join(d for tag, d in item.text if tag == "li")) == _words(text)
        table = MARKDOWN.render(f"| a | b |\n| --- | --- |\n| {markdown_text(text)} | z |\n")
        cells = re.findall(r"<td>(.*?)</td>", table, re.S)
        assert len(cells) == 2 and cells[1] == "z" and "<" not in cells[0]  # one cell, no markup in it
        assert _words(unescape(cells[0])) == _words(text)
        reached.append(text)

    shown_as_itself()
    assert len(reached) >= EXAMPLES * 0.9
    assert sum(any(c in t for c in "<*_[|`") for t in reached) >= EXAMPLES // 4  # the hard cases came up


def test_no_spreadsheet_cell_starts_like_a_formula() -> None:
    reached = []

    @settings(max_examples=EXAMPLES, database=None, deadline=None)
    @given(TEXT)
    def inert(text: str) -> None:
        cell = cell_text(text)
        assert not cell.startswith(FORMULA_START)
        assert cell == text or cell == "'" + text
        reached.append(text.startswith(FORMULA_START))

    inert()
    assert len(reached) >= EXAMPLES * 0.9 and sum(reached) >= EXAMPLES // 20  # formula-like text came up


def test_text_that_would_open_a_block_stays_inline_text() -> None:
    starts = ("1. first", "2) second", "---", "***", "# heading", "> quote", "    code", "- item", "+ item")
    for text in (*starts, "===", "<div>", "```", "[x]: http://x.invalid"):
        item = Shown(MARKDOWN.render("- " + markdown_text(text)))
        assert item.tags == ["ul", "li"], (text, item.tags)
        assert _words("".join(d for tag, d in item.text if tag == "li")) == _words(text)
    assert markdown_text("33.7") == "33.7" and markdown_text("USD 1,000") == "USD 1,000"  # figures stay clean
