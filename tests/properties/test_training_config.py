"""Choosing the training configuration never raises a price without deadlines (issue 19).

`micro_batch: auto` and `gradient_checkpointing: auto` only add configurations to what micro-batch 1
with full recomputation (ftopt's configuration before it chose one) allows, and only undominated
ones are dropped, so on the same bid without deadlines the chosen plan costs at most what the fixed
one did, and a bid the fixed configuration can plan is never refused. Stacks with tensor, pipeline
and context parallelism are drawn as well. The examples that compared two proven prices are counted,
and the test fails if too few did.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, note, settings
from hypothesis import strategies as st

from tests.properties.support import describe, outcome, price_cents, proven
from tests.strategies import dump, to_workload, workload_dicts

STACKS = ("hf-fsdp", "hf-deepspeed", "torchtune", "megatron")
EXAMPLES = 30
MIN_COMPARED = 10


@st.composite
def _bids(draw: st.DrawFn) -> dict[str, Any]:
    data = draw(workload_dicts(max_runs=2, max_concurrent=2))
    data["stack"] = draw(st.sampled_from(STACKS))
    for run in data["runs"]:
        run.pop("deadline_hours", None)
        run.pop("micro_batch", None)
        if draw(st.booleans()):
            run["seq_len"] = draw(st.sampled_from((16384, 32768)))  # context parallelism may apply
    return data


def _fixed(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    for run in out["runs"]:
        run["micro_batch"] = 1
        run["gradient_checkpointing"] = True
    return out


def _chosen(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    for run in out["runs"]:
        run["micro_batch"] = "auto"
        run["gradient_checkpointing"] = "auto"
    return out


def test_choosing_the_configuration_never_raises_the_price() -> None:
    compared: list[int] = []

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(_bids())
    def check(data: dict[str, Any]) -> None:
        note(dump(data))
        fixed = outcome(to_workload(_fixed(data)))
        chosen = outcome(to_workload(_chosen(data)))
        note(f"fixed: {describe(fixed)}; chosen: {describe(chosen)}")
        if fixed is not None:
            assert chosen is not None, "a bid the fixed configuration plans was refused"
        if proven(fixed) and proven(chosen):
            assert fixed is not None and chosen is not None
            assert price_cents(chosen) <= price_cents(fixed)
            compared.append(1)

    check()
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} of {EXAMPLES} examples compared prices"
