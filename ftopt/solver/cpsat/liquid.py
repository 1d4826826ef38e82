"""Constraint family: liquid cooling, the per-rack heat a rack's liquid loop removes.

A chassis with `cooling: liquid` takes its temperature limit from the site's coolant supply
(`site.coolant_c` ≤ the chassis' `coolant_max_c`, checked where builds are made) rather than from
the room's inlet air, and still draws its full-load watts from its circuit. Its heat goes to the
rack's liquid loop: per rack, Σ full-load watts of its liquid-cooled servers ≤ `rack.liquid_kw`
(the rack's CDU or manifold share). Counting the whole draw as heat to the liquid is the safe side:
cold plates take most of it, the rest leaves as air. A rack without `liquid_kw` takes no
liquid-cooled server. The constraint is a `RackLimit` of the racks family, so the model, first-fit
placement, the exact placement and the queue model all keep it; this module owns the rest: the
what-if (a larger loop), the binding lines (a full loop, chassis the coolant rules out) and the
reason a bid has no plan when no loop can carry even one liquid-cooled server.

The worked example of docs/contributing/add-a-rule-family.md: the family is this module, its data
(`site.racks[].liquid_kw`, `site.coolant_c`, the chassis' `cooling`), the verifier's `liquid-loop`
rule (`ftopt.verify.racks.check_liquid_loop`) and tests/solver/cpsat/test_liquid.py.
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import Rack
from ftopt.solver.cpsat.family import Family, Relaxation, site
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import compatible

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


def relax(data: ProblemData) -> list[Relaxation]:
    """Each rack's liquid loop as large as its circuits can feed (a loop beyond that carries nothing
    more), when the coolant admits some liquid-cooled build and some loop is smaller. A rack without
    a loop keeps none: plumbing a new one is a project, not an eased figure."""
    racks = data.workload.site.racks
    if racks is None or not any(is_liquid(b) for b in data.builds):
        return []
    bigger = tuple(
        rack.model_copy(update={"liquid_kw": _circuits_kw(data, rack)})
        if rack.liquid_kw is not None and rack.liquid_kw < _circuits_kw(data, rack)
        else rack
        for rack in racks
    )
    if bigger == tuple(racks):
        return []
    words = "a larger liquid_kw (each rack's loop as large as its circuits)"
    return [Relaxation(RelaxationId.LIQUID_LOOP, words, site(data, racks=bigger))]


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """Chassis the coolant rules out, and racks whose liquid loop the plan fills to within a server."""
    lines = [reason for reason in data.excluded if reason.kind == FindingKind.COOLANT]
    liquid = [s for s in plan.servers if data.catalogue.chassis_by_id(s.chassis).cooling == "liquid"]
    for rack in data.workload.site.racks or ():
        on = [s.power_w for s in liquid if s.rack == rack.name]
        if _loop_full(rack, on):
            load_kw = round(sum(on) / WATTS_PER_KW, 2)
            lines.append(finding(FindingKind.LIQUID, rack.name, load_kw=load_kw, liquid_kw=rack.liquid_kw))
    return lines


def impossible(data: ProblemData) -> list[Finding]:
    """Runs that only liquid-cooled servers can hold, none of which the largest liquid loop carries:
    no plan, and the loop is why (not the racks' units or circuits)."""
    racks = data.workload.site.racks
    if racks is None:
        return []
    largest = max((rack.liquid_kw for rack in racks if rack.liquid_kw is not None), default=0.0)
    found = []
    for r, profile in enumerate(data.profiles):
        holding = [b for m in data.modes_of(r) for b in data.builds if compatible(data.modes[m], b)]
        if not holding or data.has_multinode(r) or not all(is_liquid(b) for b in holding):
            continue
        need = min(b.power_w for b in holding)
        if largest * WATTS_PER_KW < need:
            found.append(
                finding(
                    FindingKind.LIQUID_SMALL, profile.run.name, liquid_kw=largest, need_kw=need / WATTS_PER_KW
                )
            )
    return found


#: The liquid loops: its constraint is a rack limit the racks family keeps (`LiquidLoop`).
Liquid = Family(
    name="liquid",
    relaxations=(RelaxationId.LIQUID_LOOP,),
    verifier_rules=("liquid-loop", "coolant"),
    workload_fields=("site.coolant_c", "site.racks[].liquid_kw"),
    catalogue_fields=("chassis[].cooling", "chassis[].coolant_max_c"),
    relax=relax,
    explain=explain,
    impossible=impossible,
    rack_limit=LiquidLoop(),
)


def _loop_full(rack: Rack, on: list[int]) -> bool:
    """Whether the rack's liquid loop, carrying the draws `on`, lacks room for one more of its
    smallest liquid-cooled servers: the loop bound the plan."""
    return rack.liquid_kw is not None and bool(on) and sum(on) + min(on) > rack.liquid_kw * WATTS_PER_KW


def _circuits_kw(data: ProblemData, rack: Rack) -> float:
    """What the rack's circuits can feed, kW (one circuit in a redundant rack: each carries it alone)."""
    usable = [data.catalogue.feed(f).usable_w for f in rack.feeds]
    return (min(usable) if rack.redundant else sum(usable)) / WATTS_PER_KW
