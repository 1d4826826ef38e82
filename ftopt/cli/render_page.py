"""The page shell every HTML document ftopt writes shares: one style sheet, inline, print-ready.

The quote and the frontier page both use it, so a change of colour or print layout is made once.
"""

from __future__ import annotations

CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; font-size: 14px; line-height: 1.45;
       color: #1A1A1A; background: #FFFFFF; margin: 0 auto; padding: 24px 32px; max-width: 1500px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #0F4C81; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p { margin: 6px 0; }
.lead { font-size: 15px; color: #333333; margin-bottom: 16px; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 10px;
           margin: 12px 0; }
.summary div { border: 1px solid #CCCCCC; border-radius: 6px; padding: 8px 12px; background: #FAFAFA; }
.summary dt { font-size: 12px; color: #555555; text-transform: uppercase; letter-spacing: 0.04em; }
.summary dd { margin: 2px 0 0; font-size: 17px; font-weight: bold; }
.status-optimal { color: #00663D; }
.status-feasible { color: #8A5A00; }
.status-infeasible { color: #A11A1A; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border-bottom: 1px solid #DDDDDD; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #EEF2F6; font-weight: bold; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tfoot td { font-weight: bold; border-top: 2px solid #888888; border-bottom: none; }
.wide { overflow-x: auto; }
.diagram svg { max-width: 100%; height: auto; }
.swatch { display: inline-block; min-width: 20px; padding: 0 4px; margin-right: 6px;
          border: 1px solid #333333; border-radius: 2px; text-align: center; font-weight: bold;
          font-size: 11px; }
.power { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin: 6px 0; }
.bar { width: 260px; height: 14px; border: 1px solid #777777; background: #EEEEEE; border-radius: 3px;
       overflow: hidden; }
.bar span { display: block; height: 100%; background: #0F4C81; }
.bar.over span { background: #A11A1A; }
.muted { color: #555555; }
ul { margin: 6px 0; padding-left: 22px; }
footer { margin-top: 32px; font-size: 12px; color: #555555; }
* { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media print {
  @page { size: A4 landscape; margin: 12mm; }
  body { padding: 0; max-width: none; font-size: 11px; }
  h2 { break-after: avoid; }
  section.server, .diagram, table { break-inside: avoid; }
  .wide { overflow: visible; }
  table { font-size: 10px; }
}
"""
