"""Sizings shared by runs that differ only in name, copies, GPU count or checkpoints kept: the same
modes as sizing each run afresh, each under its own name and with its own NVMe."""

from __future__ import annotations

from ftopt import load_catalogue
from ftopt.model.sizing import all_sizings, profile_run
from ftopt.model.sizing_memo import SizingMemo, sizing_memo
from ftopt.model.workload import Workload

RUNS = [
    {"name": "a", "model": "llama-3.1-8b", "method": "lora", "keep_checkpoints": 1},
    {"name": "b", "model": "llama-3.1-8b", "method": "lora", "keep_checkpoints": 40, "concurrent": 3},
    {"name": "c", "model": "llama-3.1-8b", "method": "lora", "seq_len": 8192},
]


def _sized(memo: SizingMemo | None) -> dict[str, list[tuple[str, float, float]]]:
    catalogue = load_catalogue()
    workload = Workload.model_validate({"site": {"feed": "400v-3p-32a"}, "runs": RUNS})
    gpu = catalogue.gpu("h100-nvl")
    found = {}
    for run in workload.runs:
        profile = profile_run(run, catalogue)
        if memo is None:
            sizings = all_sizings(profile, gpu, workload.sizing)
        else:
            with sizing_memo(memo):
                sizings = all_sizings(profile, gpu, workload.sizing)
        found[run.name] = [(s.run, s.nvme_gb, s.total_gb) for s in sizings]
    return found


def test_shared_sizings_are_the_ones_each_run_gets_alone_under_its_own_name_and_nvme() -> None:
    memo = SizingMemo()
    shared, alone = _sized(memo), _sized(None)
    assert shared == alone
    assert memo.hits > 0 and memo.misses > 0, "b reuses a's sizings; c (another length) does not"
    assert {n for n, *_ in shared["b"]} == {"b"}
    assert shared["b"][0][1] > shared["a"][0][1], "40 checkpoints take more NVMe than one"
