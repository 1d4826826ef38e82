"""Rules of the site: power caps, the draw against the feed, the site's feed, inlet temperature."""

from __future__ import annotations

from ftopt.verify import site


def test_power_cap_the_card_does_not_accept(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_server(gpu_power_cap_w=500))
    assert "power-cap: server s1: 500 W per card, rtx-pro-6000-se runs at 600 W or 450 W" in map(
        str, violations
    )


def test_power_misreported(solved) -> None:
    c = solved("first-project")
    # The TCO's energy follows the stated draw, so it no longer adds up either.
    assert c.rules(c.with_server(power_w=c.server().power_w + 1)) == {"power-estimate", "tco"}


def test_power_raised_above_the_feed(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_server(power_w=3000))
    assert {v.rule for v in violations} == {"power-estimate", "power-feed", "tco"}
    assert "power-feed: server s1: 3000 W, feed 230v-16a gives 2944 W usable" in map(str, violations)


def test_uncapped_cards_exceed_a_16a_feed(solved) -> None:
    """(4 × 600 W + 2 × 200 W + 24 × 6 W DIMMs + 2 × 20 W data drives + 8 W boot + 300 W chassis) / 0.96
    = 3,430 W > 2,944 W: the solver capped the cards at 450 W."""
    c = solved("first-project")
    violations = c.verify(c.rebuild(gpu_power_cap_w=600))
    assert [str(v) for v in violations if v.rule != "deadline"] == [
        "power-feed: server s1: 3430 W, feed 230v-16a gives 2944 W usable"
    ]
    # at 600 W the cards also compute faster than the 450 W speeds the plan reports
    assert {v.rule for v in violations} == {"power-feed", "deadline"}


def test_server_on_another_feed_than_the_sites(solved) -> None:
    c = solved("first-project")
    violations = c.verify(workload=c.with_site(feed="230v-32a"))
    assert [str(v) for v in violations] == [
        "feed: server s1: feed 230v-16a, the site has 230v-32a at every position"
    ]


def test_feed_watts_misreported(solved) -> None:
    c = solved("first-project")
    assert c.rules(c.with_server(feed_usable_w=5000)) == {"feed"}


def test_inlet_raised_in_the_workload(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(workload=c.with_site(inlet_c=32))
    assert [str(v) for v in violations] == [
        "inlet: server s1: site inlet 32 °C, h200-nvl in gpu-server-8 accepts at most 30 °C"
    ]


def test_inlet_limit_misreported(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert c.rules(c.with_server(max_inlet_c=35.0)) == {"inlet"}


def test_a_chassis_that_qualifies_the_card_only_in_cooler_air(solved) -> None:
    """gpu-server-4 qualified for the RTX PRO 6000 at 25 °C only: the 27 °C room is too warm."""
    c = solved("first-project")
    catalogue = c.catalogue_with("chassis", "gpu-server-4", inlet_limits={"rtx-pro-6000-se": 25.0})
    assert [str(v) for v in c.verify(catalogue=catalogue)] == [
        "inlet: server s1: site inlet 27 °C, rtx-pro-6000-se in gpu-server-4 accepts at most 25 °C",
        "inlet: server s1: max_inlet_c 35, rtx-pro-6000-se in gpu-server-4 accepts at most 25 °C",
    ]


def test_the_pair_limit_of_another_card_does_not_apply(solved) -> None:
    c = solved("first-project")
    catalogue = c.catalogue_with("chassis", "gpu-server-4", inlet_limits={"h200-nvl": 20.0})
    assert c.verify(catalogue=catalogue) == []


def test_the_site_rules_alone_find_a_misstated_feed(solved) -> None:
    c = solved("first-project")
    assert c.alone(site) == set()
    assert c.alone(site, c.with_server(feed_usable_w=5000)) == {"feed"}
