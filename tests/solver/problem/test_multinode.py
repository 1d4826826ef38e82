"""Multi-node options: whole networked servers per copy, NICs in their price and power."""

from __future__ import annotations

from dataclasses import replace

from ftopt.model.fabric import MULTI_NODE_STRATEGIES
from ftopt.solver.problem.builds import enumerate_builds
from ftopt.solver.problem.multinode import networked_build
from tests.solver.tiny import MULTINODE, SMALL, catalogue, problem


def test_each_option_takes_whole_servers_of_one_networked_build() -> None:
    data = problem(MULTINODE)
    assert data.multinode
    for option in data.multinode:
        mode = data.modes[option.mode]
        assert option.nodes > 1 and option.nodes * option.build.gpu_count == mode.gpus
        assert option.build.nic is not None and option.build.nic_count > 0
        assert mode.sizing.strategy in MULTI_NODE_STRATEGIES
        assert option.price == option.nodes * option.server_price


def test_a_networked_build_carries_its_nics_in_price_and_power() -> None:
    data = problem(MULTINODE)
    option = data.multinode[0]
    nic = option.build.nic
    assert nic is not None
    every = enumerate_builds(catalogue(), data.workload).builds
    plain = next(
        b for b in every if replace(b, nic=nic, nic_count=option.build.nic_count).key == option.build.key
    )
    networked = networked_build(catalogue(), plain, nic)
    assert networked is not None
    assert networked.fixed_price > plain.fixed_price
    assert networked.load_w == plain.load_w + networked.nic_count * nic.power_w
    # The NICs add to the parts; the draw planned is the larger of the parts and NVIDIA's DGX maximum,
    # which counts the DGX's own ten NICs already: never less than without them.
    assert networked.power_w >= plain.power_w


def test_a_bid_that_fits_one_server_gets_no_multinode_options() -> None:
    assert problem(SMALL).multinode == []


ADAPTER_AND_BIG = """
site: {feed: 400v-3p-32a}
hardware: {gpus: [h200-sxm]}
runs:
  - {name: big, model: llama-3.1-405b, method: full, seq_len: 4096}
  - {name: adapter, model: llama-3.1-8b, method: lora, concurrent: 3}
"""


def test_a_run_one_cheap_server_holds_at_its_most_preferred_is_never_sized_over_servers(monkeypatch) -> None:
    """The 8B LoRA trains on one card at preference 0 for less than two networked servers cost, so
    no multi-node option of it can survive: none is sized (issue 38: a fifth of the build of
    5,000 runs); the 405B, which no server holds, still gets its options."""
    import ftopt.solver.problem.multinode as multinode

    sized: list[str] = []
    real = multinode._candidates

    def spy(bid, run, f, networked, nic):  # type: ignore[no-untyped-def]
        sized.append(bid.profiles[run].run.name)
        return real(bid, run, f, networked, nic)

    monkeypatch.setattr(multinode, "_candidates", spy)
    data = problem(ADAPTER_AND_BIG)
    assert "big" in sized and "adapter" not in sized
    assert {data.modes[o.mode].run for o in data.multinode} == {0}
