"""The fabric arithmetic and multi-node sizing (ftopt/model/fabric.py)."""

from __future__ import annotations

from dataclasses import replace

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
from ftopt.model.sizing import CopySetup, profile_run, size_run
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


def test_a_multinode_copy_never_offloads_whatever_its_setup_says() -> None:
    """ZeRO-Offload across servers is not modelled: a setup asking for CPU offload is sized as one
    without (no host RAM for the states), so the solver and the verifier agree whatever they pass."""
    profile = profile_run(Run(name="r", model="llama-3.3-70b", method="full", gpus=16), CATALOGUE)
    gpu, net = _net("b200-sxm")
    setup = CopySetup(profile, gpu, 16, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, SizingOptions())
    asked = size_multinode(replace(setup, offload=Offload.CPU), net)
    assert asked == size_multinode(setup, net)
    single = size_run(replace(setup, gpus=8, offload=Offload.CPU))  # on one server it does offload
    assert single.host_ram_gb > asked.host_ram_gb


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
