"""Laying copies onto GPU indices: aligned blocks, largest first, servers right-sized."""

from __future__ import annotations

from ftopt.solver.decode.layout import lay_out_build, price_of, right_size
from tests.solver.tiny import SMALL, no_gpu_shared, problem


def test_light_copies_start_at_multiples_of_their_size() -> None:
    data = problem(SMALL)
    build = next(b for b in data.builds if b.gpu_count == 4)
    one = next(m for m in data.modes if m.gpus == 1)
    two = next(m for m in data.modes if m.gpus == 2)
    servers = lay_out_build(build, [], 2, [one, two, one, two, one])
    assert no_gpu_shared(servers)
    assert all(gpus[0] % len(gpus) == 0 for s in servers for _, gpus in s.copies)
    assert sum(len(s.copies) for s in servers) == 5


def test_empty_plain_servers_are_dropped() -> None:
    data = problem(SMALL)
    build = next(b for b in data.builds if b.gpu_count == 8)
    one = next(m for m in data.modes if m.gpus == 1)
    assert len(lay_out_build(build, [], 3, [one])) == 1


def test_right_size_keeps_the_copies_and_never_costs_more() -> None:
    data = problem(SMALL)
    build = next(b for b in data.builds if b.gpu_count == 2)
    one = next(m for m in data.modes if m.gpus == 1)
    [server] = lay_out_build(build, [], 1, [one])
    sized = right_size(server, data.catalogue.rules.host_ram_reserve_gb)
    assert sized is not None and sized.copies == server.copies
    assert price_of([sized]) <= price_of([server])
