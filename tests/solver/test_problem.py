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
