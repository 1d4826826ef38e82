"""The ids a workload names that the catalogue lacks, each with its field path and what would do."""

from __future__ import annotations

from typing import Any

from ftopt.model.hardware import Catalogue
from ftopt.model.references import NO_OFFLOAD, allowed_gpus, unknown_references
from ftopt.model.workload import Workload


def _workload(**extra: Any) -> Workload:
    data: dict[str, Any] = {
        "runs": [{"name": "a", "model": "llama-3.1-8b", "method": "qlora"}],
        "site": {"feed": "230v-16a", "inlet_c": 25},
    }
    data.update(extra)
    return Workload.model_validate(data)


def test_a_clean_workload_names_nothing_unknown(catalogue: Catalogue) -> None:
    assert unknown_references(_workload(), catalogue) == []


def test_each_unknown_id_is_named_by_its_field_with_the_known_ids(catalogue: Catalogue) -> None:
    workload = _workload(
        runs=[{"name": "a", "model": "llama-9-8b", "method": "qlora", "stack": "tensorflow"}],
        site={"feed": "999v", "inlet_c": 25},
        hardware={"gpus": ["h200-nvl", "h300-nvl"]},
    )
    found = {(u.field, u.what, u.value) for u in unknown_references(workload, catalogue)}
    assert found == {
        ("runs[0].model", "model", "llama-9-8b"),
        ("runs[0].stack", "stack", "tensorflow"),
        ("site.feed", "feed", "999v"),
        ("hardware.gpus[1]", "card", "h300-nvl"),
    }
    model = next(u for u in unknown_references(workload, catalogue) if u.what == "model")
    assert "llama-3.1-8b" in model.known


def test_a_rack_circuit_is_named_by_rack_and_circuit(catalogue: Catalogue) -> None:
    racks = [{"name": "r1", "units": 42, "feeds": ["230v-16a", "230v-99a"]}]
    workload = _workload(site={"inlet_c": 25, "racks": racks})
    assert [u.field for u in unknown_references(workload, catalogue)] == ["site.racks[0].feeds[1]"]


def test_a_cuda_stack_on_amd_cards_only_is_off_platform(catalogue: Catalogue) -> None:
    workload = _workload(hardware={"gpus": ["mi300x"]}, stack="hf-fsdp")
    (found,) = unknown_references(workload, catalogue)
    assert found.field == "runs[0].stack" and found.value == "hf-fsdp"  # the run inherits it
    amd = catalogue.gpu("mi300x")
    assert found.known and all(catalogue.stack(s).runs_on(amd.platform, amd.card_class) for s in found.known)


def test_a_method_is_checked_against_the_catalogues_registry(catalogue: Catalogue) -> None:
    """The registry, not an enum, says which methods exist: `sft` is an algorithm, `lorra` a typo,
    and an RL run's adapter must be an adapter method (or none)."""
    runs = [
        {"name": "a", "model": "llama-3.1-8b", "method": "sft"},
        {"name": "b", "model": "llama-3.1-8b", "method": "lorra"},
        {"name": "c", "model": "llama-3.1-8b", "method": "dpo", "adapter": "lorra"},
        {"name": "d", "model": "llama-3.1-8b", "method": "dpo", "adapter": "qlora"},
    ]
    found = unknown_references(_workload(runs=runs), catalogue)
    assert [(u.field, u.what, u.value) for u in found] == [
        ("runs[0].method", "method", "sft"),
        ("runs[1].method", "method", "lorra"),
        ("runs[2].adapter", "adapter", "lorra"),
    ]
    assert found[0].known == catalogue.methods.ids
    assert found[2].known[0] == "none" and "full" not in found[2].known


def test_offload_cpu_needs_a_method_that_offers_it(catalogue: Catalogue) -> None:
    """The offload rule is the registry entry's `offers.cpu_offload`: LoRA's states are small."""
    runs = [
        {"name": "a", "model": "llama-3.1-8b", "method": "lora", "offload": "cpu"},
        {"name": "b", "model": "llama-3.1-8b", "method": "full", "offload": "cpu"},
    ]
    (found,) = unknown_references(_workload(runs=runs), catalogue)
    assert (found.field, found.what, found.value) == ("runs[0].offload", NO_OFFLOAD, "lora")
    assert found.known == tuple(m.id for m in catalogue.methods.methods if m.offers.cpu_offload)
    assert "full" in found.known and "lora" not in found.known


def test_allowed_gpus_keep_the_catalogue_order(catalogue: Catalogue) -> None:
    assert allowed_gpus(catalogue, _workload()) == list(catalogue.gpus)
    named = allowed_gpus(catalogue, _workload(hardware={"gpus": ["h200-nvl", "l40s"]}))
    order = [g.id for g in catalogue.gpus]
    assert [g.id for g in named] == sorted(["h200-nvl", "l40s"], key=order.index)
