"""A rack elevation as SVG: each rack's units, the servers drawn in their slots, circuits marked.

Why a drawing as well as the facility table: a data-centre team checks the heights, the order and
which circuit each server hangs on at a glance. It is drawn from the summary's facility sheet only
(`ftopt.model.facility.Facility`), so the HTML quote, the PDF and the workbench draw the same
picture. Servers fill each rack from the bottom in the plan's order (the plan names a server's rack
and circuit, not its slot: the drawing proposes slots, and says so). A plan without racks draws its
servers as one stack, unhoused.
"""

from __future__ import annotations

from html import escape

from ftopt.model.facility import Facility, FacilityServer
from ftopt.quote.page import FONT

UNIT_PX = 14
RACK_W = 220
GAP = 60
TOP = 34
#: One fill per circuit index (A, B, C, …), light enough for black text.
CIRCUIT_FILLS = ("#CFE3F5", "#F8D9B0", "#D5EFC9", "#E9D2F2", "#F5EFA8", "#D9D9D9")


def _circuit_label(circuit: int | None) -> str:
    return "—" if circuit is None else "ABCDEFGH"[circuit] if circuit < 8 else str(circuit)


def _rack_svg(x: int, name: str, height_u: int, servers: list[FacilityServer]) -> list[str]:
    """One rack: its frame, unit marks every 5 U, and its servers from the bottom."""
    h = height_u * UNIT_PX
    out = [
        f'<text x="{x + RACK_W / 2}" y="{TOP - 12}" text-anchor="middle" font-weight="bold">'
        f"{escape(name)}</text>",
        f'<rect x="{x}" y="{TOP}" width="{RACK_W}" height="{h}" fill="#FFFFFF" stroke="#333333" '
        'stroke-width="2"/>',
    ]
    for u in range(5, height_u + 1, 5):
        y = TOP + h - u * UNIT_PX
        out.append(f'<text x="{x - 4}" y="{y + UNIT_PX - 3}" text-anchor="end" font-size="9">{u}</text>')
    bottom = TOP + h
    for s in servers:
        units = s.units or 1
        bottom -= units * UNIT_PX
        fill = CIRCUIT_FILLS[(s.circuit or 0) % len(CIRCUIT_FILLS)] if s.circuit is not None else "#EEEEEE"
        label = f"{s.id} · {s.chassis} · {units} U · circuit {_circuit_label(s.circuit)} · {s.power_w:,} W"
        out.append(
            f'<g class="server" data-server="{escape(s.id)}"><title>{escape(label)}</title>'
            f'<rect x="{x + 4}" y="{bottom}" width="{RACK_W - 8}" height="{units * UNIT_PX - 1}" '
            f'fill="{fill}" stroke="#555555"/>'
            f'<text x="{x + 10}" y="{bottom + min(units * UNIT_PX, 28) / 2 + 4}" font-size="11">'
            f"{escape(s.id)} {escape(s.chassis)} [{_circuit_label(s.circuit)}]</text></g>"
        )
    return out


def elevation_svg(facility: Facility) -> str:
    """The racks side by side (or the bid's servers as one stack), each server in its slots."""
    groups: list[tuple[str, int, list[FacilityServer]]] = []
    if facility.racks:
        for rack in facility.racks:
            inside = [s for s in facility.servers if s.rack == rack.name]
            groups.append((rack.name, rack.units_available or rack.rack_units, inside))
    else:
        stack = list(facility.servers)
        groups.append(("servers (not racked)", max(sum(s.units or 1 for s in stack), 1), stack))
    tallest = max(max(h, sum(s.units or 1 for s in ss)) for _, h, ss in groups)
    width = len(groups) * (RACK_W + GAP) + GAP
    height = TOP + tallest * UNIT_PX + 40
    body = []
    for i, (name, units, servers) in enumerate(groups):
        body += _rack_svg(
            GAP + i * (RACK_W + GAP), name, max(units, sum(s.units or 1 for s in servers)), servers
        )
    legend = (
        "Circuits: [A] first feed, [B] second, …; slots are proposed from the bottom in the plan's order."
    )
    body.append(f'<text x="{GAP}" y="{height - 12}" font-size="11">{escape(legend)}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="elevation" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" style="{FONT}" font-size="12" role="img" '
        f'aria-label="rack elevation">' + "".join(body) + "</svg>"
    )
