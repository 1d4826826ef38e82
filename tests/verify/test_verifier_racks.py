"""Rules of a site given as racks: each server's rack and circuit, rack units, circuit load, the report.

The plans here are the solved "mix" case (two 4 × L40S servers of 2,338 W, 2U each) placed in racks
by hand, with the plan's `racks` list written out as figures, so that the tests do not lean on the
code they check.
"""

from __future__ import annotations

from typing import Any

from ftopt.model.plan import CircuitLoad, Plan, RackUse
from ftopt.model.workload import Workload
from ftopt.verify import racks

FEED_32A_W = 5888  # 230 V × 32 A × 0.8
FEED_16A_W = 2944  # 230 V × 16 A × 0.8
SERVER_W = 2338


def racked(
    case: Any, racks: list[dict[str, Any]], places: dict[str, tuple[str, int]]
) -> tuple[Plan, Workload]:
    """The case's workload with `site.racks`, and its plan with each server placed and its feed
    set to its circuit's (no `racks` report yet)."""
    site = {"inlet_c": case.workload.site.inlet_c, "racks": racks}
    workload = Workload.model_validate({**case.workload.model_dump(), "site": site})
    feeds = {rack["name"]: rack["feeds"] for rack in racks}
    usable = {"230v-16a": FEED_16A_W, "230v-32a": FEED_32A_W}
    servers = []
    for server in case.plan.servers:
        rack, circuit = places[server.id]
        feed = feeds[rack][circuit]
        servers.append(
            server.model_copy(
                update={"rack": rack, "circuit": circuit, "feed": feed, "feed_usable_w": usable[feed]}
            )
        )
    return case.plan.model_copy(update={"servers": servers}), workload


def report(plan: Plan, *uses: RackUse) -> Plan:
    return plan.model_copy(update={"racks": list(uses)})


ONE_RACK = [{"name": "r1", "units": 4, "feeds": ["230v-32a", "230v-16a"]}]
BOTH_ON_32A = RackUse(
    name="r1",
    units=4,
    units_used=4,
    load_w=2 * SERVER_W,
    circuits=[
        CircuitLoad(feed="230v-32a", usable_w=FEED_32A_W, load_w=2 * SERVER_W, servers=["s1", "s2"]),
        CircuitLoad(feed="230v-16a", usable_w=FEED_16A_W, load_w=0, servers=[]),
    ],
)


def test_two_servers_sharing_a_circuit_within_its_watts_are_valid(solved) -> None:
    c = solved("mix")
    plan, workload = racked(c, ONE_RACK, {"s1": ("r1", 0), "s2": ("r1", 0)})
    assert c.verify(report(plan, BOTH_ON_32A), workload) == []


def test_two_servers_overload_a_16a_circuit(solved) -> None:
    c = solved("mix")
    plan, workload = racked(c, ONE_RACK, {"s1": ("r1", 1), "s2": ("r1", 1)})
    use = BOTH_ON_32A.model_copy(
        update={
            "circuits": [
                CircuitLoad(feed="230v-32a", usable_w=FEED_32A_W, load_w=0, servers=[]),
                CircuitLoad(feed="230v-16a", usable_w=FEED_16A_W, load_w=4676, servers=["s1", "s2"]),
            ]
        }
    )
    assert [str(v) for v in c.verify(report(plan, use), workload)] == [
        "circuit-load: rack r1 circuit 1: 4676 W for its servers, 230v-16a gives 2944 W usable"
    ]


def test_a_rack_too_short_for_its_servers(solved) -> None:
    c = solved("mix")
    short = [{**ONE_RACK[0], "units": 3}]
    plan, workload = racked(c, short, {"s1": ("r1", 0), "s2": ("r1", 0)})
    violations = c.verify(report(plan, BOTH_ON_32A.model_copy(update={"units": 3})), workload)
    assert [str(v) for v in violations] == ["rack-units: rack r1: 4 U of servers, the rack has 3 U"]


def test_a_redundant_rack_needs_every_circuit_to_carry_it_alone(solved) -> None:
    """4,140 W fits the 32 A side but not the 16 A side, which must carry the rack when A fails."""
    c = solved("mix")
    redundant = [{**ONE_RACK[0], "redundant": True}]
    plan, workload = racked(c, redundant, {"s1": ("r1", 0), "s2": ("r1", 0)})
    violations = c.verify(report(plan, BOTH_ON_32A.model_copy(update={"redundant": True})), workload)
    assert [str(v) for v in violations] == [
        "circuit-load: rack r1 circuit 1: 4676 W for the whole rack (redundant), 230v-16a gives 2944 W usable"
    ]


def test_a_server_in_an_unknown_rack_or_circuit(solved) -> None:
    c = solved("mix")
    plan, workload = racked(c, ONE_RACK, {"s1": ("r1", 0), "s2": ("r1", 0)})
    plan = report(plan, BOTH_ON_32A)
    assert c.rules(c.with_server("s2", plan=plan, rack="r9"), workload) >= {"rack"}
    broken = c.with_server("s2", plan=plan, circuit=2)
    assert "rack: server s2: circuit 2, a circuit 0 to 1 of rack r1" in map(str, c.verify(broken, workload))


def test_a_server_whose_feed_is_not_its_circuits(solved) -> None:
    c = solved("mix")
    plan, workload = racked(c, ONE_RACK, {"s1": ("r1", 0), "s2": ("r1", 0)})
    broken = c.with_server("s2", plan=report(plan, BOTH_ON_32A), feed="230v-16a", feed_usable_w=FEED_16A_W)
    assert [str(v) for v in c.verify(broken, workload)] == [
        "rack: server s2: feed 230v-16a, circuit 0 of rack r1 is 230v-32a"
    ]


def test_the_racks_report_must_match_the_servers(solved) -> None:
    c = solved("mix")
    plan, workload = racked(c, ONE_RACK, {"s1": ("r1", 0), "s2": ("r1", 0)})
    assert c.rules(plan, workload) == {"rack-report"}  # the plan forgot its racks list
    wrong = BOTH_ON_32A.model_copy(update={"units_used": 2})
    assert [str(v) for v in c.verify(report(plan, wrong), workload)] == [
        "rack-report: rack r1: units_used 2 (re-derived 4), as re-derived"
    ]


def test_a_plan_for_a_feed_site_names_no_rack(solved) -> None:
    c = solved("mix")
    assert c.verify() == []
    assert c.rules(c.with_server("s1", rack="r1", circuit=0)) == {"rack"}
    assert c.rules(report(c.plan, BOTH_ON_32A)) == {"rack-report"}


def test_two_racks_two_circuits_each(solved) -> None:
    c = solved("mix")
    two = [
        {"name": "a", "units": 2, "feeds": ["230v-16a", "230v-16a"]},
        {"name": "b", "units": 2, "feeds": ["230v-16a"]},
    ]
    plan, workload = racked(c, two, {"s1": ("a", 1), "s2": ("b", 0)})
    uses = [
        RackUse(
            name="a",
            units=2,
            units_used=2,
            load_w=SERVER_W,
            circuits=[
                CircuitLoad(feed="230v-16a", usable_w=FEED_16A_W, load_w=0, servers=[]),
                CircuitLoad(feed="230v-16a", usable_w=FEED_16A_W, load_w=SERVER_W, servers=["s1"]),
            ],
        ),
        RackUse(
            name="b",
            units=2,
            units_used=2,
            load_w=SERVER_W,
            circuits=[CircuitLoad(feed="230v-16a", usable_w=FEED_16A_W, load_w=SERVER_W, servers=["s2"])],
        ),
    ]
    assert c.verify(report(plan, *uses), workload) == []


def test_a_solved_racked_plan_breaks_when_a_server_moves_onto_a_full_circuit(solved) -> None:
    """The solver's own racked plan: moving one server changes the loads the report states."""
    c = solved("racks")
    assert c.verify() == []
    first = c.plan.servers[0]
    other = next(s for s in c.plan.servers if (s.rack, s.circuit) != (first.rack, first.circuit))
    moved = c.with_server(first.id, rack=other.rack, circuit=other.circuit, feed=other.feed)
    assert "rack-report" in c.rules(moved)


def test_the_rack_rules_alone_find_a_server_outside_any_rack(solved) -> None:
    c = solved("first-project")
    assert c.alone(racks) == set()
    assert c.alone(racks, c.with_server("s1", rack="r1", circuit=0)) == {"rack"}
