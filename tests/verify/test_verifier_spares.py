"""Rule spares: a copy over several servers lists its run's hot spares, each an idle server of its
nodes' build on the fabric; the failure and spread rules count the spares in its goodput."""

from __future__ import annotations

import pytest

from ftopt.verify import failures, spares
from ftopt.verify.context import Context


def test_the_solved_copy_lists_one_idle_spare_of_its_build(solved) -> None:
    c = solved("multinode-spare")
    (a,) = c.plan.assignments
    assert a.multinode and len(a.spares) == 1
    spare, node = c.server(a.spares[0]), c.server(a.nodes[0].server)
    assert spare.id not in {n.server for n in a.nodes}
    assert (spare.chassis, spare.gpu, spare.nic, spare.nic_count) == (
        node.chassis,
        node.gpu,
        node.nic,
        node.nic_count,
    )
    assert len(c.plan.servers) == len(a.nodes) + 1  # bought: in the servers and so in the price
    assert c.plan.fabric is not None and spare.id in c.plan.fabric.nics_per_server  # on the fabric
    assert c.alone(spares) == set() and "spares" not in c.rules()


def test_a_missing_spare_is_caught(solved) -> None:
    c = solved("multinode-spare")
    (a,) = c.plan.assignments
    assert c.alone(spares, c.with_assignment(a.run, a.copy_, spares=[])) == {"spares"}
    assert c.alone(spares, c.with_assignment(a.run, a.copy_, spares=["s99"])) == {"spares"}
    # a node listed as its own spare holds a copy: it cannot stand in for a broken node
    assert c.alone(spares, c.with_assignment(a.run, a.copy_, spares=[a.nodes[0].server])) == {"spares"}


def test_a_spare_of_another_build_is_caught(solved) -> None:
    c = solved("multinode-spare")
    (a,) = c.plan.assignments
    assert c.alone(spares, c.with_server(a.spares[0], nic=None, nic_count=0)) == {"spares"}
    assert c.alone(spares, c.with_server(a.spares[0], ram_gb=c.server(a.spares[0]).ram_gb // 2)) == {"spares"}


def test_the_run_asking_for_no_spare_refuses_one(solved) -> None:
    c = solved("multinode-spare")
    assert c.alone(spares, workload=c.with_run("wide-full", spares=0)) == {"spares"}


def test_the_goodput_counts_the_spare(solved) -> None:
    c = solved("multinode-spare")
    (a,) = c.plan.assignments
    ctx = Context.build(c.plan, c.workload, c.catalogue)
    with_spare, without = failures.goodput(ctx, a), failures.goodput(ctx, a, 0)
    assert with_spare is not None and without is not None and with_spare > without
    assert a.hours_p90 is not None and a.hours_p90_without_spares is not None
    assert a.hours_p90_without_spares / a.hours_p90 == pytest.approx(with_spare / without, rel=1e-5)
    # stating the restart or the P90 hours as if no spare stood by breaks the failure and spread rules
    bare = failures.restart(c.catalogue.reliability, a.gpu_count, 0)  # type: ignore[arg-type]
    assert "failures" in c.rules(c.with_assignment(a.run, a.copy_, restart_hours=bare))
    assert "spread" in c.rules(c.with_assignment(a.run, a.copy_, hours_p90=a.hours_p90_without_spares))
