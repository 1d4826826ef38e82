"""The one page shell every HTML view shares: the quote, the frontier page and the sweep report.

Why one shell: three pages that a buyer may receive side by side should read as one document set,
and a fix to the style (print layout, a colour, the font) should land once. The shell is inline CSS
only (no scripts, no external stylesheets, fonts or images), so each page opens offline, mails and
prints as it is. `FONT` is the same font for the inline SVG charts, which do not inherit CSS when
saved on their own. Every renderer passes already-escaped HTML into `page` and `table`.
"""

from __future__ import annotations

from html import escape

FONT_FAMILY = "'DejaVu Sans', Verdana, Arial, sans-serif"
#: The style attribute of every inline SVG chart and diagram.
FONT = f"font-family:{FONT_FAMILY}"
#: The quote's heading blue, used for chart lines as well.
ACCENT = "#0F4C81"

CSS = f"""
:root {{ color-scheme: light; }}
* {{ box-sizing: border-box; }}
body {{ font-family: {FONT_FAMILY}; font-size: 14px; line-height: 1.45;
       color: #1A1A1A; background: #FFFFFF; margin: 0 auto; padding: 24px 32px; max-width: 1500px; }}
h1 {{ font-size: 24px; margin: 0 0 4px; }}
h2 {{ font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid {ACCENT}; }}
h3 {{ font-size: 16px; margin: 20px 0 6px; }}
p {{ margin: 6px 0; }}
.lead {{ font-size: 15px; color: #333333; margin-bottom: 16px; }}
.summary {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 10px;
           margin: 12px 0; }}
.summary div {{ border: 1px solid #CCCCCC; border-radius: 6px; padding: 8px 12px; background: #FAFAFA; }}
.summary dt {{ font-size: 12px; color: #555555; text-transform: uppercase; letter-spacing: 0.04em; }}
.summary dd {{ margin: 2px 0 0; font-size: 17px; font-weight: bold; }}
.status-optimal {{ color: #00663D; }}
.status-feasible {{ color: #8A5A00; }}
.status-infeasible {{ color: #A11A1A; }}
.late {{ color: #A11A1A; font-weight: bold; }}
table {{ border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }}
th, td {{ border-bottom: 1px solid #DDDDDD; padding: 4px 8px; text-align: left; vertical-align: top; }}
th {{ background: #EEF2F6; font-weight: bold; position: sticky; top: 0; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
tfoot td {{ font-weight: bold; border-top: 2px solid #888888; border-bottom: none; }}
.wide {{ overflow-x: auto; }}
.diagram svg {{ max-width: 100%; height: auto; }}
.charts {{ display: flex; flex-wrap: wrap; gap: 16px; }}
.charts svg, .breakdown svg {{ max-width: 100%; height: auto; border: 1px solid #E5E5E5; }}
.swatch {{ display: inline-block; min-width: 20px; padding: 0 4px; margin-right: 6px;
          border: 1px solid #333333; border-radius: 2px; text-align: center; font-weight: bold;
          font-size: 11px; }}
.power {{ display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin: 6px 0; }}
.bar {{ width: 260px; height: 14px; border: 1px solid #777777; background: #EEEEEE; border-radius: 3px;
       overflow: hidden; }}
.bar span {{ display: block; height: 100%; background: {ACCENT}; }}
.bar.over span {{ background: #A11A1A; }}
.muted {{ color: #555555; }}
.appendix {{ margin-top: 40px; padding-top: 8px; border-top: 4px double #888888; }}
ul {{ margin: 6px 0; padding-left: 22px; }}
footer {{ margin-top: 32px; font-size: 12px; color: #555555; }}
.letterhead {{ display: flex; gap: 16px; align-items: center; margin-bottom: 8px; }}
.letterhead .logo {{ max-height: 60px; max-width: 200px; }}
.elevation {{ max-width: 100%; height: auto; }}
tfoot tr + tr td {{ border-top: 1px solid #CCCCCC; }}
* {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
@media print {{
  @page {{ size: A4 landscape; margin: 12mm; }}
  body {{ padding: 0; max-width: none; font-size: 11px; }}
  h2 {{ break-after: avoid; }}
  section, section.server, .diagram, table, tr, svg, .summary div {{ break-inside: avoid; }}
  .appendix {{ break-before: page; }}
  .summary {{ grid-template-columns: repeat(4, 1fr); }}
  .wide {{ overflow: visible; }}
  table {{ font-size: 10px; width: 100%; }}
  th, td {{ overflow-wrap: anywhere; }}
  td.num, th.num {{ white-space: normal; }}
  .appendix table {{ font-size: 8px; }}
  svg {{ max-width: 100%; height: auto; }}
  th {{ position: static; }}
}}
"""


def page(title: str, body: str, subtitle: str = "") -> str:
    """A whole HTML5 document: `title` (plain text, escaped here) over `body` (already HTML)."""
    sub = f'<p class="muted">{subtitle}</p>' if subtitle else ""
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en"><head><meta charset="utf-8">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{escape(title)}</title>",
                f"<style>{CSS}</style></head><body>",
                f"<header><h1>{escape(title)}</h1>{sub}</header>",
                "<main>",
                body,
                "</main>",
                "</body></html>",
            ]
        )
        + "\n"
    )


def _cells(tag: str, cells: list[str], numeric: list[bool]) -> str:
    return "".join(
        f"<{tag}{' class=num' if n else ''}>{c}</{tag}>" for c, n in zip(cells, numeric, strict=True)
    )


def table(
    headers: list[tuple[str, bool]],
    rows: list[list[str]],
    foot: list[str] | None = None,
    feet: list[list[str]] | None = None,
) -> str:
    """A scrollable table; `headers` are (plain label, numeric) and cells are already-escaped HTML;
    `foot` is one closing row, `feet` several (totals)."""
    numeric = [n for _, n in headers]
    head = _cells("th", [escape(h) for h, _ in headers], numeric)
    body = "".join(f"<tr>{_cells('td', row, numeric)}</tr>" for row in rows)
    closing = ([foot] if foot is not None else []) + (feet or [])
    tail = "".join(f"<tr>{_cells('td', row, numeric)}</tr>" for row in closing)
    tail = f"<tfoot>{tail}</tfoot>" if tail else ""
    return f"<div class=wide><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{tail}</table></div>"
