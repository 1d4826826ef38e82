"""Rules on a server's parts: catalogue ids, stated figures, slots, channels, bays, hardware limits."""

from __future__ import annotations

from ftopt.verify import components


def _lines(violations, rule):
    return [str(v) for v in violations if v.rule == rule]


def test_unknown_card_id_is_named(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_server(gpu="h300-nvl"))
    assert _lines(violations, "catalogue-id") == [
        "catalogue-id: server s1: gpu 'h300-nvl', no such card in the catalogue"
    ]


def test_id_of_another_kind_does_not_resolve(solved) -> None:
    c = solved("first-project")
    assert "catalogue-id" in c.rules(c.with_server(cpu="ddr5-32gb"))


def test_unknown_bridge_and_feed_ids(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.with_server(bridge="nvlink-h200-8way", feed="400v-3p-999a"))
    assert _lines(violations, "catalogue-id") == [
        "catalogue-id: server s1: bridge 'nvlink-h200-8way', no such NVLink bridge in the catalogue",
        "catalogue-id: server s1: feed '400v-3p-999a', no such feed in the catalogue",
    ]


def test_boot_drive_used_as_data_drive(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.rebuild(data_drive="nvme-boot-960gb", data_drive_count=8))
    assert "catalogue-id: server s1: data_drive 'nvme-boot-960gb' is a boot drive, needs a data drive" in [
        str(v) for v in violations
    ]


def test_stated_cores_disagree_with_the_cpus(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_server(cores=999))
    assert _lines(violations, "server-fields") == [
        "server-fields: server s1: cores 999, 2 × 16 (epyc-9135) = 32"
    ]
    assert {v.rule for v in violations} == {"server-fields"}


def test_stated_ram_dimm_size_and_nvme_disagree_with_the_parts(solved) -> None:
    c = solved("first-project")
    assert c.rules(c.with_server(ram_gb=9999)) == {"server-fields"}
    assert c.rules(c.with_server(dimm_gb=64)) == {"server-fields"}
    assert c.rules(c.with_server(nvme_tb=100.0)) == {"server-fields"}


def test_nvme_tb_to_its_rounding_is_accepted(solved) -> None:
    c = solved("first-project")
    assert c.verify(c.with_server(nvme_tb=c.server().nvme_tb + 0.004)) == []


def test_more_cards_than_slots(solved) -> None:
    c = solved("first-project")
    assert "gpu-slots" in c.rules(c.with_server(gpu_count=8))


def test_empty_slots(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.rebuild(gpu_count=3))
    assert "gpu-slots: server s1: 3 cards, gpu-server-4 has 4 slots, each holding a card" in map(
        str, violations
    )


def test_dimm_count_changed(solved) -> None:
    c = solved("first-project")
    assert "dimm-channels" in c.rules(c.with_server(dimm_count=16))
    # Even with RAM, bill and price made consistent, half-populated channels break the rule.
    assert c.rules(c.rebuild(dimm_count=16, dimm="ddr5-64gb")) == {"dimm-channels"}


def test_more_data_drives_than_bays(solved) -> None:
    c = solved("first-project")
    # nine 20 W drives also take the 16 A feed's server past its 2,944 W
    assert c.rules(c.rebuild(data_drive_count=9)) == {"drive-bays", "power-feed"}


def test_card_not_in_the_workloads_hardware_limits(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(workload=c.with_limits(gpus=("rtx-pro-6000-se",)))
    assert [str(v) for v in violations] == [
        "hardware-limits: server s1: card h200-nvl, workload allows only rtx-pro-6000-se"
    ]


def test_chassis_not_in_the_workloads_hardware_limits(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert c.rules(workload=c.with_limits(chassis=("gpu-server-4",))) == {"hardware-limits"}


def test_the_parts_rules_alone_find_an_unknown_card(solved) -> None:
    c = solved("first-project")
    assert c.alone(components) == set()
    assert c.alone(components, c.with_server(gpu="h300-nvl")) >= {"catalogue-id"}
