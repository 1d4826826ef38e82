"""Rules on NVLink: bridges fit and fill the server, domains are the bridges', sharded copies stay on NVLink.

The NVLink cases are H200 NVL servers of eight cards: two 4-way bridges (domains 0–3 and 4–7) or,
priced so, four 2-way ones (0–1, 2–3, 4–5, 6–7).
"""

from __future__ import annotations

from ftopt.verify import nvlink


def _moved(c, run, places):
    plan = c.plan
    for copy, gpus in places.items():
        plan = c.with_assignment(run, copy, plan=plan, gpus=gpus)
    return plan


def test_domains_misreported(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.with_server(nvlink_domains=[[0, 1], [2, 3], [4, 5], [6, 7]]))
    assert [str(v) for v in violations] == [
        "nvlink-domains: server s1: domains [[0, 1], [2, 3], [4, 5], [6, 7]], "
        "2 × nvlink-h200-4way make [[0, 1, 2, 3], [4, 5, 6, 7]]"
    ]


def test_bridges_do_not_join_every_card(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert "bridge" in c.rules(c.with_server(bridge_count=1))


def test_bridge_for_another_card(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.rebuild(bridge="nvlink-h100-2way"))
    assert "bridge: server s1: bridge nvlink-h100-2way, it fits h100-nvl, not h200-nvl" in map(
        str, violations
    )


def test_bridge_on_a_card_without_nvlink(solved) -> None:
    c = solved("first-project")
    assert "bridge" in c.rules(c.rebuild(bridge="nvlink-h200-2way"))


def test_bridge_count_without_a_bridge(solved) -> None:
    c = solved("first-project")
    assert "bridge" in c.rules(c.with_server(bridge_count=2))


def test_two_gpu_shard_anywhere_inside_a_4way_domain_is_valid(solved) -> None:
    """fsdp on GPUs [1, 2] of a 4-way-bridged server: both lie in domain 0–3, all NVLink."""
    c = solved("nvl-llama70-lora")
    assert c.verify(_moved(c, "l70-lora", {1: [1, 2], 2: [0, 3]})) == []


def test_two_gpu_shard_across_4way_domains(solved) -> None:
    c = solved("nvl-llama70-lora")
    violations = c.verify(_moved(c, "l70-lora", {2: [3, 4], 3: [2, 5]}))
    sharded = [v for v in violations if v.rule == "sharded-domain"]
    assert [v.subject for v in sharded] == ["run l70-lora copy 2", "run l70-lora copy 3"]
    assert str(sharded[0]) == (
        "sharded-domain: run l70-lora copy 2: fsdp on GPUs [3, 4] of server s1 "
        "(domains [[0, 1, 2, 3], [4, 5, 6, 7]]), a sharded copy of 2 h200-nvl stays inside one NVLink "
        "domain (the card's bridges join up to 4)"
    )


def test_two_gpu_shard_on_gpus_1_2_across_2way_domains(solved) -> None:
    c = solved("nvl-llama70-lora-2way")
    violations = c.verify(_moved(c, "l70-lora", {1: [1, 2], 2: [0, 3]}))
    assert [v.subject for v in violations if v.rule == "sharded-domain"] == [
        "run l70-lora copy 1",
        "run l70-lora copy 2",
    ]


def test_sharded_run_moved_across_domains(solved) -> None:
    c = solved("nvl-qwen32-full")
    plan = _moved(c, "q32-full", {1: [2, 3, 4, 5], 2: [0, 1, 6, 7]})
    violations = c.verify(plan)
    assert [v.subject for v in violations if v.rule == "sharded-domain"] == [
        "run q32-full copy 1",
        "run q32-full copy 2",
    ]


def test_four_gpu_shard_needs_a_4way_domain(solved) -> None:
    """Two 2-way bridges give NVLink pairs only; a 4-card shard the card could keep on NVLink must be."""
    c = solved("nvl-qwen32-full")
    rules = c.rules(c.rebuild(bridge="nvlink-h200-2way"))
    assert "sharded-domain" in rules
    assert not rules & {"bridge", "nvlink-domains", "bill-of-materials", "total-price"}


def test_eight_gpu_shard_spans_whole_4way_domains_only(solved) -> None:
    c = solved("nvl-llama70-full")
    assert c.rules(c.rebuild(bridge="nvlink-h200-2way")) == {"sharded-domain"}
    assert c.rules(c.rebuild(bridge=None)) == {"sharded-domain"}


def test_link_misreported(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.with_assignment("q32-full", 1, link="pcie"))
    assert [str(v) for v in violations] == [
        "link-report: run q32-full copy 1: link pcie, its GPUs share nvlink"
    ]


def test_the_nvlink_rules_alone_find_a_missing_bridge(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert c.alone(nvlink) == set()
    assert "bridge" in c.alone(nvlink, c.with_server(bridge_count=1))
