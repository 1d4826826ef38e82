"""A vendor's catalogue directory merged by id over the packaged catalogue, and its error lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.catalogue.overlay import apply_catalogue_dir
from ftopt.errors import InputError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vendor" / "catalogue"

CARD = """\
- id: acme-card
  name: ACME card
  memory_gb: 48
  power_w: 300
  pcie_gbps: 64
  bf16_dense_tflops: 200
  memory_bandwidth_gbps: 900
  card_class: gddr
  max_inlet_c: 35
"""
PRICE = """\
- item: acme-card
  amount: 5000
  currency: USD
  date: "2026-12"
  source: vendor list
"""


def write(tmp_path: Path, **files: str) -> Path:
    for kind, text in files.items():
        (tmp_path / f"{kind}.yaml").write_text(text)
    return tmp_path


def error(directory: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        apply_catalogue_dir(load_catalogue(), directory)
    return caught.value


def test_the_example_adds_a_card_and_a_chassis_and_replaces_a_price() -> None:
    base = load_catalogue()
    merged = apply_catalogue_dir(base, EXAMPLE)
    assert merged.gpu("l4").memory_gb == 24
    assert merged.chassis_by_id("acme-l4-2u").gpus == ("l4",)
    assert merged.price("gpu-server-8").amount == 15500 != base.price("gpu-server-8").amount
    # everything else is the packaged catalogue, in its order, with the new ids last
    assert merged.ids("gpus")[: len(base.gpus)] == base.ids("gpus")
    assert merged.models == base.models and merged.feeds == base.feeds


def test_an_existing_id_replaces_the_packaged_entry_in_place(tmp_path: Path) -> None:
    base = load_catalogue()
    l40s = base.gpu("l40s")
    text = CARD.replace("acme-card", "l40s").replace("ACME card", "L40S, vendor's figures")
    merged = apply_catalogue_dir(base, write(tmp_path, gpus=text))
    assert merged.ids("gpus") == base.ids("gpus")
    assert merged.gpu("l40s").name == "L40S, vendor's figures" != l40s.name


def test_a_card_without_a_price_names_file_line_and_id(tmp_path: Path) -> None:
    e = error(write(tmp_path, gpus="# first\n" + CARD))
    assert (e.file, e.line) == (str(tmp_path / "gpus.yaml"), 2)
    assert "gpu 'acme-card' has no price" in e.expected


def test_a_chassis_naming_an_unknown_card_says_which_and_suggests(tmp_path: Path) -> None:
    chassis = (EXAMPLE / "chassis.yaml").read_text().replace("gpus: [l4]", "gpus: [l40]")
    e = error(
        write(
            tmp_path,
            chassis=chassis,
            prices=(EXAMPLE / "prices.yaml").read_text().split("- item: l4\n")[0]
            + "- item: acme-l4-2u\n  amount: 1\n  currency: USD\n  date: '2026-12'\n  source: x\n",
        )
    )
    assert e.file == str(tmp_path / "chassis.yaml") and e.line is not None
    assert "chassis 'acme-l4-2u' names unknown card 'l40' (did you mean 'l40s'?)" in e.expected


def test_a_price_for_an_unknown_item(tmp_path: Path) -> None:
    e = error(write(tmp_path, prices=PRICE.replace("acme-card", "h200-nvll")))
    assert e.line == 1 and e.field == "item"
    assert "unknown item 'h200-nvll' (did you mean 'h200-nvl'?)" in e.expected


def test_a_bad_field_in_an_entry_names_its_line(tmp_path: Path) -> None:
    e = error(write(tmp_path, gpus=CARD.replace("memory_gb: 48", "memory_gb: -1"), prices=PRICE))
    assert (e.line, e.field) == (3, "memory_gb")


def test_an_unknown_file_name_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    e = error(write(tmp_path, gpu=CARD))
    assert e.file == str(tmp_path / "gpu.yaml")
    assert "not a catalogue file (did you mean 'gpus.yaml'?)" in e.expected


def test_an_id_given_twice_in_one_file(tmp_path: Path) -> None:
    e = error(write(tmp_path, gpus=CARD + CARD, prices=PRICE))
    assert e.line == 10 and "given twice, first on line 1" in e.expected


def test_rules_keys_replace_the_packaged_ones(tmp_path: Path) -> None:
    merged = apply_catalogue_dir(load_catalogue(), write(tmp_path, rules="host_ram_reserve_gb: 32\n"))
    assert merged.rules.host_ram_reserve_gb == 32
    assert merged.rules.cores_per_gpu == load_catalogue().rules.cores_per_gpu


def test_a_price_in_another_currency(tmp_path: Path) -> None:
    e = error(write(tmp_path, gpus=CARD, prices=PRICE.replace("USD", "EUR")))
    assert e.field == "currency" and "expected USD" in e.expected


def test_not_a_directory(tmp_path: Path) -> None:
    e = error(tmp_path / "missing")
    assert "expected a directory" in e.expected


def test_a_price_list_is_laid_over_the_merged_catalogue(tmp_path: Path) -> None:
    """--catalogue first, then --prices: a user's price list may price the vendor's new card."""
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "prices:\n"
        + "".join(
            "  " + line + "\n"
            for line in PRICE.replace("acme-card", "l4").replace("5000", "1999").splitlines()
        )
    )
    merged = load_catalogue(prices=prices, overlay=EXAMPLE)
    assert merged.price("l4").amount == 1999


def test_every_packaged_chassis_has_a_height_with_a_source() -> None:
    for chassis in load_catalogue().chassis:
        assert chassis.rack_units is not None, chassis.id
        assert any("Rack units" in source for source in chassis.sources), chassis.id


def test_the_eight_card_class_takes_the_rtx_pro_6000_only_up_to_25_c() -> None:
    catalogue = load_catalogue()
    rtx = catalogue.gpu("rtx-pro-6000-se")
    assert catalogue.chassis_by_id("gpu-server-8").inlet_limit_c(rtx) == 25
    assert catalogue.chassis_by_id("gpu-server-4").inlet_limit_c(rtx) == rtx.max_inlet_c == 35


def test_rollout_constants_are_catalogue_data_a_directory_replaces(tmp_path: Path) -> None:
    from ftopt.model.estimate import estimate
    from ftopt.reading.workload_file import load_workload

    merged = apply_catalogue_dir(load_catalogue(), write(tmp_path, rollout="separate_memory_fraction: 0.5\n"))
    assert merged.rollout.separate_memory_fraction == 0.5
    assert merged.rollout.prefill_mfu == load_catalogue().rollout.prefill_mfu
    workload = load_workload(EXAMPLE.parents[1] / "grpo-8b.yaml", merged)

    def separate_shares(catalogue) -> set[float]:
        return {
            round(o.sizing.rollout_gb / catalogue.gpu(o.sizing.gpu).memory_gb, 3)
            for r in estimate(workload, catalogue)
            for o in r.options
            if o.sizing.placement == "separate"
        }

    assert separate_shares(load_catalogue()) == {0.9} and separate_shares(merged) == {0.5}


def test_cloud_rates_are_catalogue_data_the_plan_and_the_verifier_read(tmp_path: Path) -> None:
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.solve import SolveSettings, solve
    from ftopt.verify import verify_plan

    rate = (
        "currency: USD\nread_by_ftopt: '2026-12-03'\nrates:\n"
        "  - {card: rtx-pro-6000-se, match: exact, provider: ACME, offer: one card, kind: on-demand,\n"
        "     usd_per_gpu_hour: 1.0, url: 'https://example.com/acme', read: '2026-12'}\n"
    )
    merged = apply_catalogue_dir(load_catalogue(), write(tmp_path, cloud=rate))
    workload = load_workload(EXAMPLE.parents[1] / "dora-8b.yaml", merged)
    plan = solve(workload, merged, SolveSettings(time_limit=20, workers=1)).plan_or_raise()
    assert plan.rent is not None and plan.rent.cost == pytest.approx(plan.rent.gpu_hours * 1.0, abs=0.01)
    assert verify_plan(plan, workload, merged) == []
    assert {v.rule for v in verify_plan(plan, workload, load_catalogue())} == {"rent"}


def test_a_directory_sets_the_decode_step_cost_per_engine(tmp_path: Path) -> None:
    from ftopt.model.workload import RolloutEngine

    directory = write(tmp_path, rollout="decode_step_overhead_ms: {vllm: 4}\n")
    merged = apply_catalogue_dir(load_catalogue(), directory)
    # The mapping replaces the packaged one whole: an engine it leaves out pays no fixed cost.
    assert merged.rollout.step_overhead_s(RolloutEngine.VLLM) == pytest.approx(0.004)
    assert merged.rollout.step_overhead_s(RolloutEngine.SGLANG) == 0.0


def test_a_directory_naming_an_unknown_engine_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"decode_step_overhead_ms.tgi: expected 'vllm' or 'sglang'"):
        directory = write(tmp_path, rollout="decode_step_overhead_ms: {tgi: 4}\n")
        apply_catalogue_dir(load_catalogue(), directory)
