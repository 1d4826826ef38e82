"""The problem data the model is built from: what the solver is offered before it searches."""

from __future__ import annotations

from ftopt.solver.problem.data import build_problem
from tests.solver.conftest import workload_from

OFFLOAD_RUN = """
site: {feed: 400v-3p-16a, inlet_c: 25}
runs: [{name: offload-32b, model: qwen3-32b, method: full, offload: cpu, gpus: 1, seq_len: 2048,
        concurrent: %d}]
"""


def heavy_per_config(copies: int, catalogue) -> set[int]:
    data = build_problem(workload_from(OFFLOAD_RUN % copies), catalogue)
    assert data.heavy_classes, "the offloaded run must make heavy copies"
    return {sum(count for _, count in config.heavy) for config in [*data.configs, *data.safe_configs]}


def test_configurations_hold_no_more_heavy_copies_than_the_bid_has(catalogue):
    # A server could hold several offloaded copies side by side, but a bid with one copy can only
    # ever buy configurations holding one: the others are not offered to the solver.
    assert heavy_per_config(1, catalogue) == {1}
    assert max(heavy_per_config(3, catalogue)) > 1


#: Sized as before issue 28 (no planning margin, the 5 % reserve) so that the 70B LoRA still fits two
#: cards: the power-cap confinement, not the margin, is what this probes.
POWER_RUN = """
site: {feed: 230v-16a, inlet_c: 25}
sizing: {memory_margin: 0, allocator_reserve: 0.05}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: lora70, model: llama-3.3-70b, method: lora, train_tokens: 500000000,
        deadline_hours: %g}]
"""


def test_a_deadline_met_only_uncapped_confines_the_mode_to_uncapped_builds(catalogue):
    """On a 16 A feed a four-card RTX PRO 6000 server runs its cards at 450 W and a two-card one at
    600 W. A deadline the two-card copy meets only at 600 W keeps that mode with `min_power_w` 600,
    and it is compatible only with builds whose cards run at 600 W."""
    from ftopt.solver.problem.modes import compatible, lowest_caps

    open_data = build_problem(workload_from(POWER_RUN % 1e6), catalogue)
    assert lowest_caps(open_data.builds) == {"rtx-pro-6000-se": 450}
    assert {b.power_cap_w for b in open_data.builds} == {450, 600}
    assert all(m.min_power_w == 0 for m in open_data.modes)
    assert catalogue.spread is not None
    p90 = catalogue.spread.of("hf-fsdp").p90  # the default stack's P90 hours factor
    tight = build_problem(workload_from(POWER_RUN % (222 * p90)), catalogue)  # 222 bare hours at P90
    confined = [m for m in tight.modes if m.gpus == 2 and m.min_power_w == 600]
    assert confined, [(m.gpus, m.min_power_w, m.sizing.strategy) for m in tight.modes]
    for mode in confined:
        assert {b.power_cap_w for b in tight.builds if compatible(mode, b)} == {600}


#: Light copies on eight-card L40S servers: two chassis take eight of them at different prices.
TWINS = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [l40s]}
runs: [{name: lora8, model: llama-3.1-8b, method: lora, gpus: 1, concurrent: 20}]
"""


def _eight_card(data, chassis: str) -> int:
    return next(f for f, b in enumerate(data.builds) if b.chassis.id == chassis and b.gpu_count == 8)


def test_a_dearer_chassis_for_the_same_light_copies_is_offered_none(catalogue):
    """Both eight-card chassis hold the copies on their GPUs alone; the dearer one (more RAM, another
    CPU) gets no light pairs, and the cheapest plan is the same with or without it."""
    from ftopt import SolveSettings, solve
    from ftopt.solver.problem import data as problem_data

    workload = workload_from(TWINS)
    data = build_problem(workload, catalogue)
    cheap, dear = _eight_card(data, "gpu-server-8"), _eight_card(data, "dell-xe7740")
    assert data.builds[cheap].price < data.builds[dear].price
    on = {f for _, f in data.pool}
    assert cheap in on and dear not in on
    settings = SolveSettings(time_limit=20, workers=1, what_if=False)
    price = solve(workload, catalogue, settings).price
    kept = problem_data.light_dominated
    try:
        problem_data.light_dominated = lambda *_: set()
        assert dear in {f for _, f in build_problem(workload, catalogue).pool}
        assert solve(workload, catalogue, settings).price == price
    finally:
        problem_data.light_dominated = kept


def test_a_site_rule_that_may_prefer_the_dearer_chassis_keeps_it(catalogue):
    """Limited stock may leave only the dearer chassis (and racks, servers owned or a queue may
    count them apart): then nothing is dropped."""
    prices = tuple(
        p.model_copy(update={"stock": 1}) if p.item == "gpu-server-8" else p for p in catalogue.prices
    )
    stocked = catalogue.model_copy(update={"prices": prices})
    data = build_problem(workload_from(TWINS), stocked)
    assert _eight_card(data, "dell-xe7740") in {f for _, f in data.pool}
