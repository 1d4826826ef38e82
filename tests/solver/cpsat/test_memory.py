"""The memory family alone: a copy on several cards is memory's only when fewer cannot hold it; a
deadline that needs more cards than memory gets the line instead; its what-if allows larger cards."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import memory
from tests.solver.cpsat.test_deadline import RUSHED
from tests.solver.tiny import problem

#: A 70B LoRA on 96 GB cards: memory alone puts each copy on four cards.
LARGE = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: lora-70b, model: llama-3.3-70b, method: lora, seq_len: 4096}]
"""


def test_a_deadline_bound_copy_gets_the_deadline_line_not_memory(solve_yaml: Callable[..., Plan]) -> None:
    plan = solve_yaml(RUSHED, time_limit=20)
    [line] = memory.explain(problem(RUSHED), plan)
    assert line.kind == FindingKind.DEADLINE_BOUND and line.subject == "small-lora"
    assert line.figures["fewest_gpus"] == 1 and line.figures["gpus"] == plan.assignments[0].gpu_count > 1
    assert "deadline of 8 h, not memory" in line.text
    assert not [f for f in plan.binding if f.kind == FindingKind.MULTI_GPU]
    assert [f.kind for f in plan.binding if f.subject == "small-lora"] == [FindingKind.DEADLINE_BOUND]


def test_a_copy_memory_splits_is_memory_s(solve_yaml: Callable[..., Plan]) -> None:
    plan = solve_yaml(LARGE, time_limit=20)
    [line] = memory.explain(problem(LARGE), plan)
    assert line.kind == FindingKind.MULTI_GPU and line.figures["gpus"] > 1


def test_the_what_if_allows_the_cards_with_more_memory() -> None:
    data = problem(LARGE)
    [eased] = memory.relax(data)
    allowed = eased.workload.hardware.gpus
    assert eased.id == RelaxationId.MEMORY and allowed is not None and allowed[0] == "rtx-pro-6000-se"
    assert all(data.catalogue.gpu(g).memory_gb > 96 for g in allowed[1:]) and len(allowed) > 1
    assert memory.relax(problem(LARGE.replace("hardware: {gpus: [rtx-pro-6000-se]}\n", ""))) == []


def test_no_larger_card_is_offered_where_memory_does_not_bind() -> None:
    """The rushed LoRA fits one H200; a B200 would be cheaper for its speed, not its memory."""
    assert memory.relax(problem(RUSHED)) == []


#: A 70B full fine-tune over whole B200 servers: memory needs two servers, the deadline four.
SPANNING = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [b200-sxm]}
runs:
  - {name: wide, model: llama-3.3-70b, method: full, optimizer: adamw-32bit, offload: none,
     seq_len: 4096, gradient_checkpointing: true, train_tokens: 2000000000, deadline_hours: 20}
"""


def test_a_copy_spread_over_more_servers_by_its_deadline_is_the_deadline_s(
    solve_yaml: Callable[..., Plan],
) -> None:
    plan = solve_yaml(SPANNING, time_limit=30)
    [copy] = plan.assignments
    relaxed = solve_yaml(SPANNING.replace(", deadline_hours: 20", ""), time_limit=30)
    fewest = relaxed.assignments[0].gpu_count  # the cheapest copy without the deadline
    assert copy.multinode and copy.gpu_count > fewest
    [line] = memory.explain(problem(SPANNING), plan)
    assert line.kind == FindingKind.DEADLINE_BOUND and line.figures["fewest_gpus"] <= fewest
