"""Each hard rule on a tiny bid where it binds and changes the answer (issue: `ftopt solve`, §3).

The expected figures are worked from the catalogue in each test, not copied from solver output.
"""

from __future__ import annotations

import math

import pytest

from ftopt.errors import InfeasibleError
from ftopt.model.plan import Plan, Status
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from tests.examples.test_examples import EXAMPLES
from tests.solver.conftest import workload_from

SITE = "site: {feed: 400v-3p-16a, inlet_c: 25}\n"


def gpu_sets(plan: Plan) -> dict[str, list[list[int]]]:
    sets: dict[str, list[list[int]]] = {}
    for a in plan.assignments:
        sets.setdefault(a.server, []).append(a.gpus)
    return sets


def test_one_copy_per_gpu_opens_a_second_server(solve_yaml):
    # Three single-GPU QLoRA copies, two-card servers only: 3 GPUs need ⌈3 / 2⌉ = 2 servers.
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-2]}
sizing: {mig: false}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 3}]
"""
    )
    assert len(plan.servers) == 2
    for gpus in gpu_sets(plan).values():
        flat = [g for group in gpus for g in group]
        assert len(flat) == len(set(flat)), "a GPU holds two copies"
    assert sorted(a.copy_ for a in plan.assignments) == [1, 2, 3]


def test_memory_per_gpu_forces_sharding_over_four_cards(solve_yaml, catalogue):
    # LoRA on a BF16 70B base holds 144.4 GB of states (reference row 2): no 96 GB card takes it alone,
    # and two leave less than its measured memory margin (issue 28).
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: big, model: llama-3.3-70b, method: lora, seq_len: 2048}]
"""
    )
    (a,) = plan.assignments
    assert len(a.gpus) == 4 and a.strategy == "fsdp" and a.memory_margin is not None
    assert a.memory_per_gpu_gb.total * (1 + a.memory_margin) <= catalogue.gpu("rtx-pro-6000-se").memory_gb
    assert a.link == "pcie"  # no NVLink on the RTX PRO 6000: the plan says so


def test_sharded_run_stays_inside_one_nvlink_domain(solve_yaml):
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [h200-nvl]}
runs: [{name: big, model: llama-3.3-70b, method: lora, seq_len: 2048}]
"""
    )
    (server,) = plan.servers
    (a,) = plan.assignments
    assert server.bridge is not None, "sharding on H200 NVL needs a bridge"
    assert any(set(a.gpus) <= set(d) for d in server.nvlink_domains)
    assert a.link == "nvlink"


def test_replicated_runs_need_no_bridge(solve_yaml):
    # The same cards without sharding: a bridge would only add cost, so the cheapest plan has none.
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [h200-nvl]}
runs: [{name: small, model: llama-3.1-8b, method: qlora, gpus: 2}]
"""
    )
    (server,) = plan.servers
    (a,) = plan.assignments
    assert a.strategy == "ddp"
    assert server.bridge is None


def test_host_ram_holds_offloaded_states(solve_yaml, catalogue):
    # Qwen3-32B with CPU offload keeps 14 B/param = 458.7 GB on the host (reference row 9), beyond the
    # 2 × 192 GB = 384 GB a two-card RTX server needs for the 2 × GPU-memory rule alone.
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-2]}
runs: [{name: offload-32b, model: qwen3-32b, method: full, offload: cpu, gpus: 1, seq_len: 2048}]
"""
    )
    (server,) = plan.servers
    (a,) = plan.assignments
    rules = catalogue.rules
    assert a.offload == "cpu" and a.host_ram_gb == pytest.approx(458.67, abs=0.01)
    assert server.ram_gb >= a.host_ram_gb + rules.host_ram_reserve_gb
    assert server.ram_gb > rules.host_ram_per_gpu_memory * 2 * catalogue.gpu("rtx-pro-6000-se").memory_gb


def test_host_ram_is_twice_gpu_memory(solve_yaml, catalogue):
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [h200-nvl], chassis: [gpu-server-8]}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]
"""
    )
    (server,) = plan.servers
    need = catalogue.rules.host_ram_per_gpu_memory * 8 * catalogue.gpu("h200-nvl").memory_gb
    assert server.ram_gb >= need  # 2 × 1,128 GB
    smaller = [d.gb for d in catalogue.dimms if d.gb < server.dimm_gb]
    assert all(g * server.dimm_count < need for g in smaller), "a smaller DIMM would have done"
    assert server.dimm_count == catalogue.chassis_by_id("gpu-server-8").dimm_slots


def test_six_cores_per_gpu_rules_out_the_cheapest_cpu_on_eight_cards(solve_yaml, catalogue):
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [h200-nvl], chassis: [gpu-server-8]}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]
"""
    )
    (server,) = plan.servers
    cheapest = min(catalogue.cpus, key=lambda c: catalogue.price(c.id).amount)
    assert cheapest.cores * 2 < 6 * 8  # the EPYC 9135 pair has 32 cores, 48 are needed
    assert server.cores >= 6 * 8 and server.cpu != cheapest.id and server.cpu_count == 2


def test_nvme_holds_the_checkpoints_kept(solve_yaml, catalogue):
    # 80 resumable checkpoints of an 8B full fine-tune: 80 × 14 B × 8.03 B ≈ 9 TB, beyond the
    # 2 TB-per-socket default.
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [h200-nvl], chassis: [gpu-server-2]}
runs: [{name: keep, model: llama-3.1-8b, method: full, optimizer: adamw-32bit, gpus: 2,
        keep_checkpoints: 80, seq_len: 2048}]
"""
    )
    (server,) = plan.servers
    (a,) = plan.assignments
    assert a.nvme_gb > 2 * catalogue.rules.data_tb_per_socket * 1000
    assert server.nvme_tb * 1000 >= a.nvme_gb


def test_small_feed_caps_card_power(solve_yaml, catalogue):
    # Four RTX PRO 6000 at 600 W with two EPYC 9135, 24 × 32 GB (6 W), 2 × 3.84 TB (20 W), a boot
    # drive (8 W) and the chassis' 300 W: 3,292 W / 0.96 = 3,430 W > 2,944 W (230 V 16 A at 80 %), so
    # the cards run capped at 450 W: 2,692 W / 0.96 = 2,805 W.
    text = """
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-4]}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 4}]
"""
    capped = solve_yaml("site: {feed: 230v-16a, inlet_c: 25}\n" + text)
    full = solve_yaml("site: {feed: 230v-32a, inlet_c: 25}\n" + text)
    (server,) = capped.servers
    assert server.gpu_power_cap_w == 450 and server.power_w == math.ceil(
        (1800 + 400 + 24 * 6 + 2 * 20 + 8 + 300) / 0.96
    )
    assert server.power_w <= catalogue.feed("230v-16a").usable_w
    assert full.servers[0].gpu_power_cap_w == 600


def test_feed_too_small_for_eight_cards_is_explained(solve_yaml):
    with pytest.raises(InfeasibleError) as info:
        solve_yaml("""
site: {feed: 230v-16a, inlet_c: 25}
hardware: {chassis: [gpu-server-8]}
runs: [{name: q, model: llama-3.1-8b, method: qlora}]
""")
    assert "230v-16a" in str(info.value)


def test_warm_room_rules_out_h200(solve_yaml):
    with pytest.raises(InfeasibleError) as info:
        solve_yaml("""
site: {feed: 400v-3p-16a, inlet_c: 32}
hardware: {gpus: [h200-nvl]}
runs: [{name: q, model: llama-3.1-8b, method: qlora}]
""")
    assert "inlet 32 °C rules out h200-nvl" in str(info.value)
    plan = solve_yaml("""
site: {feed: 400v-3p-16a, inlet_c: 32}
hardware: {gpus: [h200-nvl, rtx-pro-6000-se]}
runs: [{name: q, model: llama-3.1-8b, method: qlora}]
""")
    assert {s.gpu for s in plan.servers} == {"rtx-pro-6000-se"}


def test_max_servers_binds_and_the_core_names_it(solve_yaml):
    text = """
hardware: {{gpus: [rtx-pro-6000-se], chassis: [gpu-server-4]}}
site: {{feed: 400v-3p-16a, inlet_c: 25, max_servers: {limit}}}
runs:
  - {{name: lora, model: llama-3.3-70b, method: lora, seq_len: 2048, concurrent: 2}}
  - {{name: q, model: llama-3.1-8b, method: qlora}}
"""
    assert len(solve_yaml(text.format(limit=3)).servers) == 3  # 2 × 4 GPUs + 1 GPU on 4-card servers
    with pytest.raises(InfeasibleError) as info:
        solve_yaml(text.format(limit=2))
    assert "max_servers = 2" in str(info.value)


def test_run_that_fits_no_card_names_the_figure_and_the_relaxation(solve_yaml):
    # Reference row 4 (docs/reference-figures.md): a full 70B fine-tune with 32-bit Adam needs
    # 141.1 GB per H200 NVL on 8 cards.
    with pytest.raises(InfeasibleError) as info:
        solve_yaml(
            SITE
            + """
hardware: {gpus: [h200-nvl]}
sizing: {states_only: true, memory_margin: 0}
runs: [{name: full-70b, model: llama-3.3-70b, method: full, optimizer: adamw-32bit, gpus: 8}]
"""
        )
    message = str(info.value)
    assert "run full-70b: needs 141.1 GB per GPU on 8 × h200-nvl" in message
    assert "card holds 141 GB" in message and "adamw-8bit" in message and "offload cpu" in message


def test_copies_are_counts_and_every_copy_is_placed(solve_yaml):
    plan = solve_yaml(
        SITE
        + """
hardware: {gpus: [l40s], chassis: [gpu-server-8]}
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 200}]
"""
    )
    assert plan.status == "optimal"
    assert len(plan.assignments) == 200 and len(plan.servers) == 25  # 200 GPUs / 8 per server
    assert sorted(a.copy_ for a in plan.assignments) == list(range(1, 201))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_plan_at_the_proven_bound_is_called_optimal(catalogue, workers):
    # The first project on a 32 A feed with one rack position, as a sweep found it: CP-SAT's bound
    # came back as 8183999.999999999 cents for a plan of 8184000, which left it 'feasible' at gap 0.
    workload = load_workload(EXAMPLES / "first-project.yaml", catalogue)
    site = workload.site.model_copy(update={"feed": "230v-32a", "inlet_c": 25, "max_servers": 1})
    result = solve(
        workload.model_copy(update={"site": site}), catalogue, SolveSettings(time_limit=20, workers=workers)
    )
    assert result.plan is not None and result.gap == 0
    assert result.status == Status.OPTIMAL


def test_a_chassis_limit_for_one_card_rules_out_the_pair_in_a_warm_room(solve_yaml):
    """Eight RTX PRO 6000 need 25 °C in the generic eight-card class: at 25 °C a copy on eight of them
    is planned with that limit stated; at 27 °C it cannot be, and the refusal names the pair. The
    Dell XE7740 class takes them to 35 °C, so without the chassis limit 27 °C is answered there.
    (1,024-token sequences, as examples/warm-room-32b.yaml: at 2,048 the copy no longer leaves the
    18 % memory margin free on eight 96 GB cards.)"""
    text = """
site: {feed: 230v-32a, inlet_c: %s}
hardware: {gpus: [rtx-pro-6000-se], chassis: %s}
runs: [{name: q32, model: qwen3-32b, method: full, optimizer: adamw-32bit, gpus: 8, seq_len: 1024}]
"""
    generic = "[gpu-server-2, gpu-server-4, gpu-server-8]"
    cool = solve_yaml(text % (25, generic))
    assert {(s.chassis, s.max_inlet_c) for s in cool.servers} == {("gpu-server-8", 25)}
    with pytest.raises(InfeasibleError) as caught:  # eight GPUs per copy fit only the eight-card class
        solve_yaml(text % (27, generic))
    assert "site inlet 27 °C rules out rtx-pro-6000-se in gpu-server-8 (at most 25 °C)" in str(caught.value)
    warm = solve_yaml(text % (27, "[gpu-server-8, dell-xe7740]"))
    assert {(s.chassis, s.max_inlet_c) for s in warm.servers} == {("dell-xe7740", 35)}


def test_supplies_that_cannot_carry_the_cards_even_capped_are_why_nothing_fits(catalogue):
    # Two 800 W supplies N+N deliver 800 W with one failed; two RTX PRO 6000 at their lowest setting
    # (450 W) with two EPYC 9135 (200 W) already draw 1,300 W before memory, drives and fans.
    weak = catalogue.chassis_by_id("gpu-server-2").model_copy(update={"psu_watts": 800})
    chassis = tuple(weak if c.id == weak.id else c for c in catalogue.chassis)
    small = catalogue.model_copy(update={"chassis": chassis})
    small._lookups = {}  # the copy would share the session catalogue's lookup cache
    text = SITE + "hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-2]}\n"
    text += "runs: [{name: q, model: llama-3.1-8b, method: qlora}]\n"
    with pytest.raises(InfeasibleError) as info:
        solve(workload_from(text), small, SolveSettings(time_limit=10, workers=2)).plan_or_raise()
    assert "the supplies of gpu-server-2 (2 × 800 W, N+N: 800 W with the redundant ones failed)" in str(
        info.value
    )
    wide = solve(workload_from(text), catalogue, SolveSettings(time_limit=10, workers=2)).plan_or_raise()
    assert wide.servers[0].psu_load_w <= wide.servers[0].psu_capacity_w == 2400
