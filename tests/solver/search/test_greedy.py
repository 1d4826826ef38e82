"""The first-fit plan in hand: every copy placed on disjoint GPUs, servers right-sized."""

from __future__ import annotations

from ftopt.solver.decode.layout import price_of
from ftopt.solver.search.greedy import _nic_of, _option_cost, fabric_nic_for, greedy_plan, memory_need
from tests.solver.tiny import HEAVY, MULTINODE, SMALL, copies_placed, no_gpu_shared, problem


def test_every_copy_is_placed_once_on_its_own_gpus() -> None:
    for text in (SMALL, HEAVY):
        data = problem(text)
        servers = greedy_plan(data)
        assert servers is not None
        assert copies_placed(servers) == dict(enumerate(data.copies))
        assert no_gpu_shared(servers)


def test_five_single_card_gpus_of_copies_fill_a_few_servers() -> None:
    data = problem(SMALL)  # 3 one-card copies and 2 two-card copies: 7 GPUs (or slices) in all
    servers = greedy_plan(data)
    assert servers is not None
    assert sum(s.build.slots for s in servers) >= 7
    assert price_of(servers) > 0


def test_the_memory_need_is_gpus_times_gb_per_gpu() -> None:
    data = problem(SMALL)
    for mode in data.modes:
        assert memory_need(mode) == mode.gpus * mode.sizing.total_gb


def test_copies_no_server_holds_take_whole_servers_of_a_multinode_option() -> None:
    data = problem(MULTINODE)
    servers = greedy_plan(data)
    assert servers is not None, "a bid of multi-node copies has a plan in hand"
    assert copies_placed(servers) == dict(enumerate(data.copies))
    groups = {s.group for s in servers}
    assert None not in groups and len(groups) == sum(data.copies)
    option = next(o for o in data.multinode if data.modes[o.mode] is servers[0].copies[0][0])
    assert len(servers) == option.nodes * sum(data.copies)
    assert all(s.build is option.build for s in servers)


TWO_NICS = """
site: {feed: 400v-3p-32a}
runs:
  - {name: l405-full, model: llama-3.1-405b, method: full, seq_len: 4096}
  - {name: l70-full, model: llama-3.3-70b, method: full, seq_len: 4096, gpus: 16, optimizer: adamw-32bit}
"""


def test_multinode_copies_of_several_runs_share_one_nic_model() -> None:
    """The 405B's cheapest multi-node option is on 800G NICs, the 70B's on 400G ones; a plan has one
    fabric of one NIC model, so the greedy plan puts both on the model that costs least for both
    (before, each took its own and decoding the plan failed: benchmarks/instances/multinode-01)."""
    data = problem(TWO_NICS)
    cheapest = {
        run: _nic_of(min((o for o in data.multinode if data.modes[o.mode].run == run), key=_option_cost))
        for run in range(len(data.copies))
    }
    assert len(set(cheapest.values())) == 2, "the bid no longer shows two NIC models"
    servers = greedy_plan(data)
    assert servers is not None and copies_placed(servers) == dict(enumerate(data.copies))
    nics = {s.build.nic.id for s in servers if s.build.nic}
    assert nics == {fabric_nic_for(data, [0, 1])}


MANY_SINGLE_CARD = """
site: {feed: 400v-3p-32a}
hardware: {gpus: [l40s]}
runs:
  - {name: adapters, model: qwen3-8b, method: lora, gpus: 1, concurrent: 30}
"""


def test_many_copies_fill_the_cheapest_servers_per_gpu_not_the_cheapest_servers() -> None:
    """Thirty one-card copies: an eight-card L40S server costs less per card than a two-card one, so
    the plan in hand is never dearer than packing them into servers of the cheapest build per card
    (issue 38: 3,060 two-GPU servers where eight-GPU ones were 12-29 % cheaper per GPU)."""
    data = problem(MANY_SINGLE_CARD)
    servers = greedy_plan(data)
    assert servers is not None and copies_placed(servers) == dict(enumerate(data.copies))
    per_card = {b.slots: b.price for b in data.builds}
    packed = min(-(-30 // slots) * price for slots, price in per_card.items())
    assert price_of(servers) <= packed + 1e-6
    assert min(per_card) < 8 and max(s.build.slots for s in servers) >= 8, "the bid offers both shapes"
