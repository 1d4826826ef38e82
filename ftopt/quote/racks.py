"""The racks table of a plan whose site is given as racks: units used and the load on each circuit.

One row per circuit, shared by the terminal, Markdown and HTML renderers so that they say the same.
A redundant rack's circuits each show the whole rack's load: each must carry it alone.
"""

from __future__ import annotations

from ftopt.model.plan import Plan

RACK_HEADERS = ("rack", "units", "circuit", "feed", "servers", "load W", "usable W", "load")
#: (header, numeric) of each column, so that every format right-aligns the same ones.
RACK_COLUMNS = tuple((h, h in ("load W", "usable W", "load")) for h in RACK_HEADERS)


def rack_rows(plan: Plan) -> list[list[str]]:
    """Rows of the racks table; empty when the plan's site has no racks."""
    rows = []
    for rack in plan.racks:
        units = f"{rack.units_used} of {rack.units} U"
        for index, circuit in enumerate(rack.circuits):
            load = rack.load_w if rack.redundant else circuit.load_w
            side = f"{index} ({'AB'[index] if index < 2 else index} side)" if rack.redundant else str(index)
            share = f"{load / circuit.usable_w:.0%}" if circuit.usable_w else "-"
            rows.append(
                [
                    rack.name if index == 0 else "",
                    units if index == 0 else "",
                    side,
                    circuit.feed,
                    ", ".join(circuit.servers) or "-",
                    f"{load:,}",
                    f"{circuit.usable_w:,}",
                    share,
                ]
            )
    return rows


def racks_note(plan: Plan) -> str:
    """The sentence above the table."""
    redundant = any(rack.redundant for rack in plan.racks)
    extra = "; in an A+B (redundant) rack each circuit must carry the whole rack" if redundant else ""
    return f"Racks: each server draws from one circuit, within its usable watts{extra}."
