"""Light copies the sized model counts on a heavy configuration: on its servers, within their room."""

from __future__ import annotations

from ftopt.solver.decode.layout import HeavyServer
from ftopt.solver.decode.sharing import lay_out_sharing
from ftopt.solver.problem.configs import holds, needs_room
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import Mode
from tests.solver.tiny import SHARING, copies_placed, no_gpu_shared, problem


def _sized() -> ProblemData:
    return problem(SHARING).with_sized_configs()


def _open_config_and_light(data: ProblemData) -> tuple[int, Mode]:
    """An open configuration of least NVMe room and a light mode needing room that one of its
    servers holds."""
    pairs = [
        (config.nvme_room_gb, c, data.modes[m])
        for c, config in enumerate(data.configs)
        if config.free_blocks
        for m, f in data.pool
        if f == config.build and needs_room(data.modes[m]) and holds(config, data.modes[m])
    ]
    assert pairs, "SHARING must have a light copy that fits next to its heavy copy"
    _, c, mode = min(pairs, key=lambda p: (p[0], p[1], p[2].run))
    return c, mode


def _heavy_server(data: ProblemData, c: int) -> HeavyServer:
    config = data.configs[c]
    heavy = [data.modes[data.heavy_classes[k].modes[0]] for k, n in config.heavy for _ in range(n)]
    return HeavyServer(config.ram, config.disk, heavy, True, c)


def test_a_copy_counted_on_a_configuration_stands_on_its_server_within_its_room() -> None:
    data = _sized()
    c, mode = _open_config_and_light(data)
    build = data.builds[data.configs[c].build]
    reserve = data.catalogue.rules.host_ram_reserve_gb
    servers = lay_out_sharing(build, [_heavy_server(data, c)], 1, [], [(mode, c)], reserve)
    [server] = servers  # the plain server held nothing and was dropped
    assert mode in [m for m, _ in server.copies] and len(server.copies) > 1
    assert sum(m.nvme_gb for m, _ in server.copies) <= server.disk.gb


def test_copies_beyond_the_room_are_still_all_placed_on_aligned_gpus() -> None:
    """More copies than one server's room holds: the phased deal gives up and the build is laid out
    as the optimistic model's plans are; right-sizing then prices the disk they need."""
    data = _sized()
    c, mode = _open_config_and_light(data)
    config = data.configs[c]
    build = data.builds[config.build]
    many = int(config.nvme_room_gb // mode.nvme_gb) + 1
    reserve = data.catalogue.rules.host_ram_reserve_gb
    servers = lay_out_sharing(build, [_heavy_server(data, c)], many, [], [(mode, c)] * many, reserve)
    assert copies_placed(servers)[mode.run] == many
    assert no_gpu_shared(servers)
    assert all(gpus[0] % len(gpus) == 0 for s in servers for m, gpus in s.copies if m is mode)
