"""The fabric arithmetic and multi-node sizing (ftopt/model/fabric.py)."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.fabric import (
    Network,
    cheapest_fabric,
    fabric_kits,
    intra_bus_gbps,
    multinode_speed,
    node_bus_gbps,
    size_fabric,
    size_multinode,
)
from ftopt.model.memory import GB
from ftopt.model.sizing import CopySetup, profile_run
from ftopt.model.speed import SpeedContext, planning_host
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy

CATALOGUE = load_catalogue()
CX7 = CATALOGUE.nic("cx7-400g-osfp")


def _kit(switch: str):
    return next(k for k in fabric_kits(CATALOGUE, CX7) if k.switch.id == switch)


@pytest.mark.parametrize(
    ("ports", "leaves", "spines", "uplinks"),
    [(1, 1, 0, 0), (64, 1, 0, 0), (65, 3, 2, 96), (96, 3, 2, 96), (2048, 64, 32, 2048)],
)
def test_one_leaf_then_a_non_blocking_leaf_spine(ports, leaves, spines, uplinks) -> None:
    size = size_fabric(_kit("qm9700"), ports)
    assert size is not None
    assert (size.leaves, size.spines, size.uplinks) == (leaves, spines, uplinks)
    assert size.nic_cables == -(-ports // 2) and size.link_cables == uplinks // 2


def test_beyond_two_levels_there_is_no_fabric() -> None:
    assert size_fabric(_kit("qm9700"), 2049) is None
    assert size_fabric(_kit("qm9700"), 0) is None


def test_the_cheapest_kit_changes_with_the_ports() -> None:
    assert cheapest_fabric(CATALOGUE, CX7, 64).kit.switch.id == "qm9700"  # one 64-port leaf
    assert (
        cheapest_fabric(CATALOGUE, CX7, 65).kit.switch.id == "sn5600"
    )  # one 128-port leaf beats three + two


def test_measured_network_bandwidth_per_nic() -> None:
    nic = CATALOGUE.nic("cx7-400g-osfp")
    assert node_bus_gbps(nic, 8, CATALOGUE.speed) == 8 * 47
    assert node_bus_gbps(CATALOGUE.nic("cx7-200g-qsfp112"), 1, CATALOGUE.speed) == 2 * 24


def _net(gpu_id: str) -> tuple[object, Network]:
    gpu = CATALOGUE.gpu(gpu_id)
    nic = CATALOGUE.nic("cx7-400g-osfp")
    return gpu, Network(8, intra_bus_gbps(gpu, 8, CATALOGUE.speed), node_bus_gbps(nic, 8, CATALOGUE.speed))


@pytest.mark.parametrize(("strategy", "shards"), [(Strategy.FSDP, 32), (Strategy.HSDP, 8)])
def test_states_divide_by_the_shard_count(strategy, shards) -> None:
    run = Run(name="r", model="llama-3.1-405b", method="full", gpus=32)
    profile = profile_run(run, CATALOGUE)
    gpu, net = _net("b200-sxm")
    sizing = size_multinode(
        CopySetup(profile, gpu, 32, strategy, Optimizer.ADAMW_8BIT, Offload.NONE, SizingOptions()), net
    )
    assert sizing.gpus == 32 and sizing.strategy == strategy and sizing.link == "network"
    assert sizing.states_gb == pytest.approx(10 * profile.counts.total / shards / GB)


def test_hybrid_shard_moves_less_over_the_network_than_full_shard() -> None:
    run = Run(name="r", model="llama-3.3-70b", method="full", gpus=16)
    profile = profile_run(run, CATALOGUE)
    gpu, net = _net("b200-sxm")
    full = size_multinode(
        CopySetup(profile, gpu, 16, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, SizingOptions()), net
    )
    hybrid = size_multinode(
        CopySetup(profile, gpu, 16, Strategy.HSDP, Optimizer.ADAMW_32BIT, Offload.NONE, SizingOptions()), net
    )
    assert hybrid.transfer_seconds < full.transfer_seconds
    speed = multinode_speed(
        profile,
        full,
        gpu,
        SpeedContext(
            CATALOGUE.stack("hf-fsdp"), CATALOGUE.speed, planning_host(CATALOGUE, 16, CATALOGUE.speed)
        ),
        net,
    )
    assert speed.tokens_per_step == 16 * 4096 and speed.tokens_per_s > 0 and speed.comm_seconds > 0
