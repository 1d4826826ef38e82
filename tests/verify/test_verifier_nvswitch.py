"""NVSwitch servers: an HGX system's eight modules form one NVLink domain without bridges.

The case is an HGX H200 system holding four two-module LoRA copies. Any GPU pair shares the
NVSwitch domain, even across the two sockets, so copies may sit anywhere; bridges, a split domain
list or a PCIe card in the system are faults.
"""

from __future__ import annotations


def _moved(c, run, places):
    plan = c.plan
    for copy, gpus in places.items():
        plan = c.with_assignment(run, copy, plan=plan, gpus=gpus)
    return plan


def test_the_solved_hgx_plan_has_one_domain_and_no_bridge(solved) -> None:
    c = solved("hgx-llama70-lora")
    (server,) = c.plan.servers
    assert (server.chassis, server.gpu, server.gpu_count) == ("hgx-h200-8gpu", "h200-sxm", 8)
    assert server.bridge is None and server.bridge_count == 0
    assert server.nvlink_domains == [list(range(8))]
    assert not any("nvlink" in line.item for line in server.bill_of_materials)
    assert {a.link for a in c.plan.assignments} == {"nvlink"}
    assert c.verify() == []


def test_a_shard_across_sockets_stays_on_nvlink(solved) -> None:
    """GPUs 3 and 4 hang under different sockets but share the NVSwitch: valid, and NVLink."""
    c = solved("hgx-llama70-lora")
    assert c.verify(_moved(c, "l70-lora", {1: [3, 4], 2: [0, 1], 3: [2, 5], 4: [6, 7]})) == []


def test_a_bridge_on_an_nvswitch_baseboard(solved) -> None:
    c = solved("hgx-llama70-lora")
    violations = c.verify(c.with_server(bridge="nvlink-h200-4way", bridge_count=2))
    assert (
        "bridge: server s1: bridge nvlink-h200-4way on hgx-h200-8gpu, an NVSwitch baseboard takes no bridges"
        in map(str, violations)
    )


def test_domains_split_in_two(solved) -> None:
    c = solved("hgx-llama70-lora")
    violations = c.verify(c.with_server(nvlink_domains=[[0, 1, 2, 3], [4, 5, 6, 7]]))
    assert [str(v) for v in violations] == [
        "nvlink-domains: server s1: domains [[0, 1, 2, 3], [4, 5, 6, 7]], "
        "the NVSwitch baseboard of hgx-h200-8gpu make [[0, 1, 2, 3, 4, 5, 6, 7]]"
    ]


def test_a_pcie_card_in_an_hgx_system(solved) -> None:
    c = solved("hgx-llama70-lora")
    violations = c.verify(c.with_server(gpu="h200-nvl"))
    assert "gpu-slots: server s1: pcie card h200-nvl, hgx-h200-8gpu takes h200-sxm" in map(str, violations)


def test_a_misstated_hgx_power_draw(solved) -> None:
    """The HGX baseboard's own draw (base_watts 1,906 W: NVSwitches, PCIe switches, BMC, fans) counts
    at the wall."""
    c = solved("hgx-llama70-lora")
    server = c.server()
    # (8 × 700 W + 2 × 280 W + 24 × 10 W DIMMs + 2 × 20 W drives + 8 W boot + 1,906 W) / 0.96
    assert server.parts_power_w == 8703
    assert "power-estimate" in c.rules(c.with_server(power_w=7084))  # the old (cards + CPUs) × 1.15


def test_the_dgx_h200_maximum_is_the_floor_the_verifier_re_derives(solved) -> None:
    """The parts explain 8,703 W; NVIDIA's DGX H200 figure (10,200 W at full card power) is larger,
    so the plan sizes the feed by it and says so. A plan that states the parts' figure as its draw,
    or that puts the server on a feed between the two, is refused."""
    c = solved("hgx-llama70-lora")
    server = c.server()
    assert (server.power_w, server.vendor_max_w, server.power_basis) == (10200, 10200, "vendor maximum")
    assert server.psu_load_w == 9792  # 10,200 W × 0.96 from the supplies
    as_parts = c.with_server(power_w=8703, psu_load_w=8355, vendor_max_w=None, power_basis="parts")
    found = [str(v) for v in c.verify(as_parts)]
    assert [line for line in found if line.startswith("power-")] == [
        "power-estimate: server s1: 8703 W at the wall, supplies 8355 W, "
        "supplies 9792 W / efficiency 0.96 = 10200 W",
        "power-estimate: server s1: parts 8703 W, no vendor maximum, planned with the parts, "
        "parts 8703 W, vendor maximum 10200 W, planned with the vendor maximum",
    ]
    assert "power-feed" in c.rules(c.with_server(feed_usable_w=9000))


def test_a_server_states_its_cards_own_link_name(solved) -> None:
    """Every format prints the server's link name for its copies: an HGX H200 that claims AMD's
    Infinity Fabric is refused; the solved plan names NVLink."""
    c = solved("hgx-llama70-lora")
    assert c.server().link_name == "NVLink"
    assert [str(v) for v in c.verify(c.with_server(link_name="Infinity Fabric"))] == [
        "link-report: server s1: link name Infinity Fabric, h200-sxm links over NVLink"
    ]
