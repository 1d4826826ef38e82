"""Constraint family: liquid cooling, the per-rack heat a rack's liquid loop removes.

A chassis with `cooling: liquid` takes its temperature limit from the site's coolant supply
(`site.coolant_c` ≤ the chassis' `coolant_max_c`, checked where builds are made) rather than from
the room's inlet air, and still draws its full-load watts from its circuit. Its heat goes to the
rack's liquid loop: per rack, Σ full-load watts of its liquid-cooled servers ≤ `rack.liquid_kw`
(the rack's CDU or manifold share). Counting the whole draw as heat to the liquid is the safe side:
cold plates take most of it, the rest leaves as air. A rack without `liquid_kw` takes no
liquid-cooled server. The constraint is a `RackLimit` of the racks family, so the model, first-fit
placement, the exact placement and the queue model all keep it; this module owns the rest: the
what-if (a larger loop), the binding lines (a full loop, chassis the coolant rules out).
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.workload import Rack, Workload
from ftopt.solver.cpsat.family import Fleet
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

WATTS_PER_KW = 1000


def is_liquid(build: Build) -> bool:
    """Whether the build's chassis sends its heat to a liquid loop."""
    return build.chassis.cooling == "liquid"


class LiquidLoop:
    """The rack limit: a liquid-cooled server takes its full-load watts of the rack's liquid kW."""

    def need(self, build: Build) -> int:
        """Its full-load draw, when liquid-cooled; nothing otherwise."""
        return build.power_w if is_liquid(build) else 0

    def capacity(self, rack: Rack) -> int | None:
        """The rack's liquid loop in watts; None without one."""
        return round(rack.liquid_kw * WATTS_PER_KW) if rack.liquid_kw is not None else None


class Liquid:
    """The family's part outside the racks: constraints there are the loop's (`LiquidLoop`)."""

    name = "liquid"
    loop = LiquidLoop()

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        """Nothing beyond the racks family's rack limit: a site of one feed per server has no loops."""

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        """The racks family's placement already keeps every loop."""
        return True

    def relax(self, data: ProblemData) -> list[tuple[str, Workload]]:
        """Each rack's liquid loop as large as its circuits can feed (a loop beyond that carries nothing
        more), when the coolant admits some liquid-cooled build and some loop is smaller. A rack without
        a loop keeps none: plumbing a new one is a project, not an eased figure."""
        site = data.workload.site
        if site.racks is None or not any(is_liquid(b) for b in data.builds):
            return []
        bigger = [
            rack.model_copy(update={"liquid_kw": _circuits_kw(data, rack)})
            if rack.liquid_kw is not None and rack.liquid_kw < _circuits_kw(data, rack)
            else rack
            for rack in site.racks
        ]
        if bigger == list(site.racks):
            return []
        words = "a larger liquid_kw (each rack's loop as large as its circuits)"
        return [
            (
                words,
                data.workload.model_copy(update={"site": site.model_copy(update={"racks": tuple(bigger)})}),
            )
        ]

    def findings(self, data: ProblemData, plan: Plan) -> list[Finding]:
        """Chassis the coolant rules out, and racks whose liquid loop the plan fills to within a server."""
        lines = [reason for reason in data.excluded if reason.kind == FindingKind.COOLANT]
        liquid = [s for s in plan.servers if data.catalogue.chassis_by_id(s.chassis).cooling == "liquid"]
        for rack in data.workload.site.racks or ():
            on = [s.power_w for s in liquid if s.rack == rack.name]
            if _loop_full(rack, on):
                load_kw = round(sum(on) / WATTS_PER_KW, 2)
                lines.append(
                    finding(FindingKind.LIQUID, rack.name, load_kw=load_kw, liquid_kw=rack.liquid_kw)
                )
        return lines


def _loop_full(rack: Rack, on: list[int]) -> bool:
    """Whether the rack's liquid loop, carrying the draws `on`, lacks room for one more of its
    smallest liquid-cooled servers: the loop bound the plan."""
    return rack.liquid_kw is not None and bool(on) and sum(on) + min(on) > rack.liquid_kw * WATTS_PER_KW


def _circuits_kw(data: ProblemData, rack: Rack) -> float:
    """What the rack's circuits can feed, kW (one circuit in a redundant rack: each carries it alone)."""
    usable = [data.catalogue.feed(f).usable_w for f in rack.feeds]
    return (min(usable) if rack.redundant else sum(usable)) / WATTS_PER_KW
