"""Multi-node copies and the fabric: the solved 405B plan verifies, and each new rule rejects a plan
broken by hand in the one way it is about."""

from __future__ import annotations

from ftopt.model.plan import Assignment, Node
from ftopt.verify import multinode


def _copy(c):
    return c.assignment("l405-full", 1)


def _nodes(c, nodes):
    first = nodes[0]
    return c.with_assignment("l405-full", 1, nodes=nodes, server=first.server, gpus=first.gpus)


def _fabric(c, **update):
    return c.plan.model_copy(update={"fabric": c.plan.fabric.model_copy(update=update)})


def test_the_solved_405b_plan_spans_four_hgx_servers(solved) -> None:
    c = solved("multinode-405b")
    a = _copy(c)
    assert [n.server for n in a.nodes] == ["s1", "s2", "s3", "s4"]
    assert a.gpu_count == 32 and a.link == "network" and (a.server, a.gpus) == ("s1", list(range(8)))
    assert {(s.chassis, s.nic, s.nic_count) for s in c.plan.servers} == {
        ("hgx-b200-8gpu", "cx7-400g-osfp", 8)
    }
    fabric = c.plan.fabric
    assert fabric is not None and fabric.nic_ports == 32
    assert [(sw.id, sw.role, sw.count) for sw in fabric.switches] == [("qm9700", "leaf", 1)]
    assert c.plan.total_price == round(sum(s.price for s in c.plan.servers) + fabric.price, 2)
    assert c.verify() == []


def test_version_1_assignments_get_one_node() -> None:
    data = {
        "run": "r",
        "copy": 1,
        "server": "s1",
        "gpus": [0, 1],
        "strategy": "ddp",
        "optimizer": "adamw-32bit",
        "offload": "none",
        "memory_per_gpu_gb": {"states": 1, "activations": 1, "overhead": 1, "total": 3},
        "free_gb": 1,
        "host_ram_gb": 0,
        "nvme_gb": 1,
        "traffic_gb_per_step": 0,
        "step_seconds": 1,
    }
    a = Assignment.model_validate(data)
    assert a.nodes == [Node(server="s1", gpus=[0, 1])] and not a.multinode and a.gpu_count == 2


def test_a_node_on_a_server_twice(solved) -> None:
    c = solved("multinode-405b")
    nodes = list(_copy(c).nodes)
    assert "multinode-nodes" in c.rules(_nodes(c, [nodes[0], nodes[0], nodes[2], nodes[3]]))


def test_first_node_is_not_server_and_gpus(solved) -> None:
    c = solved("multinode-405b")
    violations = map(str, c.verify(c.with_assignment("l405-full", 1, server="s2")))
    assert any(v.startswith("multinode-nodes: run l405-full copy 1: server s2") for v in violations)


def test_nodes_of_two_builds(solved) -> None:
    c = solved("multinode-405b")
    plan = c.with_server("s2", gpu_power_cap_w=900)
    assert "multinode-nodes" in c.rules(plan)


def test_a_node_with_half_its_gpus(solved) -> None:
    c = solved("multinode-405b")
    nodes = list(_copy(c).nodes)
    half = Node(server="s2", gpus=[0, 1, 2, 3])
    rules = c.rules(_nodes(c, [nodes[0], half, nodes[2], nodes[3]]))
    assert "multinode-servers" in rules


def test_another_copy_on_a_multinode_server(solved) -> None:
    c = solved("multinode-405b")
    a = _copy(c)
    extra = a.model_copy(
        update={"copy_": 2, "server": "s3", "gpus": [0], "nodes": [Node(server="s3", gpus=[0])]}
    )
    plan = c.plan.model_copy(update={"assignments": [*c.plan.assignments, extra]})
    assert "multinode-servers" in c.rules(plan)


def test_ddp_over_servers(solved) -> None:
    c = solved("multinode-405b")
    assert "multinode-strategy" in c.rules(c.with_assignment("l405-full", 1, strategy="ddp"))


def test_hybrid_shard_needs_the_memory_of_eight_shards(solved) -> None:
    """hsdp divides 405B's states by a server's eight GPUs, not by 32: they no longer fit."""
    c = solved("multinode-405b")
    rules = c.rules(c.with_assignment("l405-full", 1, strategy="hsdp"))
    assert "gpu-memory" in rules and "sizing-report" in rules


def test_a_server_without_nics(solved) -> None:
    c = solved("multinode-405b")
    assert "nic" in c.rules(c.with_server("s3", nic=None, nic_count=0))


def test_an_unknown_nic(solved) -> None:
    c = solved("multinode-405b")
    assert "nic" in c.rules(c.with_server("s3", nic="cx9-1600g"))


def test_no_fabric(solved) -> None:
    c = solved("multinode-405b")
    assert "fabric-ports" in c.rules(c.plan.model_copy(update={"fabric": None}))


def test_fabric_counts_fewer_nic_ports(solved) -> None:
    c = solved("multinode-405b")
    assert "fabric-ports" in c.rules(_fabric(c, nic_ports=24))


def test_too_few_leaf_ports(solved) -> None:
    """No leaf at all for 32 NIC ports."""
    c = solved("multinode-405b")
    leaf = c.plan.fabric.switches[0].model_copy(update={"count": 0})
    assert "fabric-ports" in c.rules(_fabric(c, switches=[leaf]))


def test_fewer_cables_than_links(solved) -> None:
    c = solved("multinode-405b")
    links = [c.plan.fabric.links[0].model_copy(update={"cables": 15})]
    assert "fabric-ports" in c.rules(_fabric(c, links=links))


def test_a_mispriced_fabric(solved) -> None:
    c = solved("multinode-405b")
    assert "fabric-price" in c.rules(_fabric(c, price=1000.0))
    line = c.plan.fabric.bill_of_materials[0].model_copy(update={"unit_price": 1.0, "price": 1.0})
    assert "fabric-price" in c.rules(
        _fabric(c, bill_of_materials=[line, *c.plan.fabric.bill_of_materials[1:]])
    )


def test_the_total_leaves_out_the_fabric(solved) -> None:
    c = solved("multinode-405b")
    total = round(sum(s.price for s in c.plan.servers), 2)
    assert "total-price" in c.rules(c.plan.model_copy(update={"total_price": total}))


def test_an_800g_nic_in_gen5_slots(solved) -> None:
    """Issue 30: a ConnectX-8 needs PCIe Gen6 positions; the B200 system's Gen5 slots would halve it."""
    c = solved("multinode-405b")
    violations = [str(v) for v in c.verify(c.with_server("s3", nic="cx8-800g-osfp")) if v.rule == "nic"]
    assert violations == [
        "nic: server s3: cx8-800g-osfp (256 GB/s host link), hgx-b200-8gpu's NIC slots carry 128 GB/s"
    ]


def test_a_fabric_of_another_rate(solved) -> None:
    c = solved("multinode-405b")
    leaf = c.plan.fabric.switches[0].model_copy(update={"id": "q3400"})
    assert "fabric-ports" in c.rules(_fabric(c, switches=[leaf]))


def test_the_multinode_rules_alone_find_a_server_used_twice(solved) -> None:
    c = solved("multinode-405b")
    nodes = list(_copy(c).nodes)
    assert c.alone(multinode) == set()
    assert "multinode-nodes" in c.alone(multinode, _nodes(c, [nodes[0], nodes[0], nodes[2], nodes[3]]))
