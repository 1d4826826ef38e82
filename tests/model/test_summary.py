"""The plan summary: the figures every quote format renders, each derived once and right.

Each test names the defect it guards against (issue 26): owned servers counted where their GPUs
should be, a queue plan's headline taken from its longest job, hours claimed for runs without
train_tokens, RL runs named by their adapter, a vendor catalogue quoted as indicative, buy-or-rent
set against a purchase that trains other runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, link_words, method_words, summarize
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
VENDOR = EXAMPLES / "vendor" / "catalogue"


def solved(path: Path, catalogue: Catalogue | None = None) -> tuple[Plan, Workload, Catalogue]:
    catalogue = catalogue or load_catalogue()
    workload = load_workload(path, catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings, workload_name=workload.name).plan_or_raise()
    return plan, workload, catalogue


def summary_of(path: Path, catalogue: Catalogue | None = None) -> tuple[Plan, PlanSummary]:
    plan, workload, catalogue = solved(path, catalogue)
    return plan, summarize(plan, workload, catalogue)


def test_owned_gpus_are_counted_as_gpus_not_servers() -> None:
    """The headline said "(1 of them owned already)" for one owned 4-GPU server."""
    plan, s = summary_of(EXAMPLES / "owned-servers.yaml")
    owned = [x for x in plan.servers if x.owned]
    assert owned and s.servers_owned == len(owned)
    assert s.gpus_owned == sum(x.gpu_count for x in owned) > len(owned)
    assert f"{s.gpus} GPUs ({s.gpus_owned} of them owned already)" in s.headline


def test_a_queue_headline_gives_the_horizon_and_the_last_jobs_end() -> None:
    """A queue plan said "every run trained within 97.5 h" (its longest job) where its schedule ends
    at 655 h, and "every copy of every run at once", which queue mode does not do."""
    plan, s = summary_of(EXAMPLES / "monthly-queue.yaml")
    last = max(j.end_hours for j in plan.schedule)
    assert s.mode == "queue" and s.hours == s.last_job_end_hours == pytest.approx(last)
    longest = max(a.hours_p90 or 0.0 for a in plan.assignments)  # the figure it used to print
    assert plan.makespan_hours == pytest.approx(last) and longest < last
    assert f"{longest:,.1f} h" not in s.headline
    assert f"{last:,.1f} h" in s.headline and f"{plan.horizon_hours:,g} h horizon" in s.headline
    assert "every run trained within" not in s.headline
    assert "at once" not in s.proof and "within the horizon" in s.proof
    assert {(j.run, j.job) for j in s.schedule} == {(j.run, j.job) for j in plan.schedule}
    starts = [j.start_hours for j in s.schedule]
    assert starts == sorted(starts)  # what runs when, in order
    assert len(s.schedule) == len(plan.schedule)


def test_a_peak_plan_says_at_once() -> None:
    plan, s = summary_of(EXAMPLES / "deadline.yaml")
    assert s.mode == "peak" and s.together == "every copy of every run at once"
    assert s.hours_model == pytest.approx(plan.makespan_hours)


def test_the_headline_states_hours_at_the_confidence_the_plan_is_checked_at_with_p50_beside() -> None:
    """The headline said "every run trained within 61.7 h" (the speed model's hours) while the plan
    is checked at P90, 80.9 h. It now states the P90 figure the deadline holds, P50 beside it, and
    the JSON names both."""
    plan, s = summary_of(EXAMPLES / "deadline.yaml")
    p90 = max(a.hours_p90 for a in plan.assignments if a.hours_p90 is not None)
    p50 = max(a.hours_p50 for a in plan.assignments if a.hours_p50 is not None)
    assert s.confidence == 0.9 and s.hours_label == "P90"
    assert s.hours == pytest.approx(p90) and s.hours_p90 == pytest.approx(p90)
    assert s.hours_p50 == pytest.approx(p50) and p50 < p90
    assert s.hours_model is not None and s.hours_model < p90  # the figure it used to print
    assert f"every run trained within {p90:,.1f} h at P90 (P50 {p50:,.1f} h)" in s.headline
    assert f"{s.hours_model:,.1f} h" not in s.headline
    figure = next(f for f in s.figures if f.label == "Every run done within")
    assert figure.value == s.hours_words
    data = s.model_dump()
    assert data["hours_p50"] == s.hours_p50 and data["hours_p90"] == s.hours_p90


def test_a_bid_checked_at_p50_states_p50() -> None:
    """A workload with `deadline_confidence: 0.5` is checked at P50: its hours are the P50 ones."""
    plan, workload, catalogue = solved(EXAMPLES / "deadline.yaml")
    runs = [r.model_copy(update={"deadline_confidence": 0.5}) for r in plan.runs]
    s = summarize(plan.model_copy(update={"runs": runs}), workload, catalogue)
    assert s.confidence == 0.5 and s.hours_label == "P50" and s.hours == pytest.approx(s.hours_p50)
    assert s.hours_words == f"{s.hours_p50:,.1f} h at P50"


def test_hours_only_for_runs_that_have_them_and_no_rent_comparison_then(tmp_path: Path) -> None:
    """With two of three runs lacking train_tokens the headline said "every run trained within …"
    and buy-or-rent set renting one run against buying every server."""
    bid = yaml.safe_load((EXAMPLES / "first-project.yaml").read_text(encoding="utf-8"))
    bid["runs"][0]["train_tokens"] = 50_000_000
    path = tmp_path / "partial.yaml"
    path.write_text(yaml.safe_dump(bid), encoding="utf-8")
    plan, s = summary_of(path)
    without = tuple(r["name"] for r in bid["runs"][1:])
    assert s.runs_without_hours == without
    assert "every run trained within" not in s.headline
    assert all(name in s.headline for name in without)
    assert plan.rent is not None  # the plan still prices the one run's hours ...
    assert s.rent is not None and not s.rent.comparable and s.rent.rent_cost is None  # ... the quote does not
    assert "cannot be compared" in s.rent.words


def test_rent_is_compared_when_every_run_has_hours() -> None:
    plan, s = summary_of(EXAMPLES / "deadline.yaml")
    assert plan.rent is not None and s.rent is not None and s.rent.comparable
    assert s.rent.rent_cost == plan.rent.cost and s.rent.purchase == plan.total_price


def test_rl_runs_are_named_by_their_algorithm() -> None:
    """GRPO printed as "lora r32" and DPO as "full" in every quote format."""
    _, grpo = summary_of(EXAMPLES / "grpo-8b.yaml")
    _, dpo = summary_of(EXAMPLES / "dpo-70b-lora.yaml")
    assert [r.algorithm for r in grpo.runs] == ["grpo"] and grpo.runs[0].method.startswith("GRPO, ")
    assert [r.algorithm for r in dpo.runs] == ["dpo"] and dpo.runs[0].method.startswith("DPO, ")


def test_method_words_name_the_adapter_and_rank() -> None:
    from ftopt.model.plan import RunSummary

    base = {"name": "r", "model": "m", "seq_len": 1, "micro_batch": 1, "concurrent": 1}
    assert method_words(RunSummary(**base, method="full")) == "full"
    lora = RunSummary(**base, method="lora", method_label="LoRA", lora_rank=32)
    assert method_words(lora) == "LoRA r32"
    qlora = RunSummary(**base, method="qlora", method_label="QLoRA", lora_rank=16, algorithm="ppo")
    assert method_words(qlora) == "PPO, QLoRA r16"
    # A plan written before the label was stated prints the registry id.
    assert method_words(RunSummary(**base, method="dora", lora_rank=8)) == "dora r8"


def test_the_quote_prints_the_registrys_label() -> None:
    """DoRA was printed as `dora r16` by hand; the plan now states methods.yaml's label."""
    plan, s = summary_of(EXAMPLES / "dora-8b.yaml")
    dora = load_catalogue().methods.method("dora")
    assert plan.runs[0].method_label == dora.label == "DoRA"
    assert s.runs[0].method == f"DoRA r{plan.runs[0].lora_rank}"


def test_the_catalogue_in_use_is_named_with_a_content_hash() -> None:
    """Vendor-catalogue quotes called the prices indicative and never named the catalogue."""
    _, bundled = summary_of(EXAMPLES / "first-project.yaml")
    assert bundled.catalogue.kind == "bundled" and bundled.catalogue.prices == "indicative"
    vendor_catalogue = load_catalogue(overlay=VENDOR)
    _, vendor = summary_of(EXAMPLES / "vendor" / "l4-bid.yaml", vendor_catalogue)
    c = vendor.catalogue
    assert c.kind == "vendor" and c.directory == str(VENDOR) and c.prices == "vendor"
    assert c.content_hash is not None and len(c.content_hash) == 12 and c.content_hash in c.words
    assert "indicative" not in c.words


def test_the_content_hash_changes_with_the_files(tmp_path: Path) -> None:
    copy = tmp_path / "catalogue"
    copy.mkdir()
    for f in VENDOR.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    first = load_catalogue(overlay=copy).origin.content_hash
    prices = copy / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert load_catalogue(overlay=copy).origin.content_hash != first


def test_a_discount_lowers_the_price_the_buyer_reads_not_the_plan(tmp_path: Path) -> None:
    bid = yaml.safe_load((EXAMPLES / "first-project.yaml").read_text(encoding="utf-8"))
    bid["quote"] = {"customer": "ACME", "reference": "Q-1", "valid_until": "2027-01-31",
                    "discount_percent": 10, "notes": "Delivery in six weeks."}  # fmt: skip
    path = tmp_path / "quoted.yaml"
    path.write_text(yaml.safe_dump(bid), encoding="utf-8")
    plan, s = summary_of(path)
    plain, _ = summary_of(EXAMPLES / "first-project.yaml")
    assert plan.total_price == plain.total_price  # the solver's objective is untouched
    assert s.price == plan.total_price and s.price_to_pay == pytest.approx(plan.total_price * 0.9)
    assert s.buyer is not None and s.buyer.customer is not None and s.buyer.customer.name == "ACME"
    assert "less 10 % discount" in s.headline
    assert ("Price to pay", f"USD {s.price_to_pay:,.0f}") in [(f.label, f.value) for f in s.figures]


def test_a_result_without_a_plan_has_no_summary() -> None:
    from ftopt.model.plan import Status
    from ftopt.model.result import Result

    with pytest.raises(ValueError, match="no summary"):
        summarize(Result(status=Status.INFEASIBLE))


def test_identical_copies_share_one_headroom_line_that_states_free_memory_against_the_margin() -> None:
    """two-racks: twelve 8B LoRA copies on L40S (identical figures: one line naming copies 1-12) and
    two 70B LoRA copies; each line's free share is at least its margin and names the margin's basis."""
    plan, s = summary_of(EXAMPLES / "two-racks.yaml")
    lines = {h.run: h for h in s.headroom}
    assert [h.run for h in s.headroom].count("q8-lora") == 1 and lines["q8-lora"].copies == "1-12"
    assert lines["l70-lora"].copies == "1-2"
    for h in s.headroom:
        a = next(a for a in plan.assignments if a.run == h.run)
        assert (h.free_gb, h.memory_gb, h.basis) == (
            a.free_gb,
            a.memory_per_gpu_gb.total,
            a.memory_margin_basis,
        )
        assert h.margin_percent is not None and h.free_percent >= h.margin_percent
        assert h.measured_percent is None  # the workload sets no margin of its own
        assert h.words.startswith(f"{h.run} copies {h.copies} on {h.gpus} × {h.card}: ")
        assert f"against a {h.margin_percent:.0f} % margin ({h.basis})" in h.words


def test_the_queue_finish_at_p50_and_p90_by_hand() -> None:
    """Two jobs on one GPU scheduled back to back on P50 hours of 6 h (P90: 10 h): at P50 the last
    ends at 12 h; at P90 the first ends at 10 h and pushes the second to 10 + 10 = 20 h."""
    from ftopt.model.summary import queue_finish

    plan, _ = summary_of(EXAMPLES / "monthly-queue.yaml")
    first, second = [a for a in plan.assignments if a.run == plan.assignments[0].run][:2]
    same = {
        "server": first.server,
        "gpus": first.gpus,
        "nodes": first.nodes,
        "hours_p50": 6.0,
        "hours_p90": 10.0,
    }
    copies = [first.model_copy(update=same), second.model_copy(update=same)]
    job = next(j for j in plan.schedule if (j.run, j.job) == (first.run, first.copy_))
    schedule = [
        job.model_copy(update={"start_hours": 0.0, "end_hours": 6.0}),
        job.model_copy(update={"job": second.copy_, "start_hours": 6.0, "end_hours": 12.0}),
    ]
    two = plan.model_copy(update={"assignments": copies, "schedule": schedule})
    assert queue_finish(two, 0.5) == 12.0
    assert queue_finish(two, 0.9) == 20.0
    apart = [schedule[0], schedule[1].model_copy(update={"server": "elsewhere", "nodes": []})]
    elsewhere = plan.model_copy(update={"assignments": copies, "schedule": apart})
    assert queue_finish(elsewhere, 0.9) == 16.0  # on another server nothing pushes the second job
    assert queue_finish(plan.model_copy(update={"schedule": []}), 0.9) is None
    s = summarize(plan)
    assert s.queue_finish_p90 == pytest.approx(s.last_job_end_hours)  # scheduled at P90: its own end
    assert s.queue_finish_p50 is not None and s.queue_finish_p50 < s.queue_finish_p90
    assert f"{s.queue_finish_p50:,.1f} h / {s.queue_finish_p90:,.1f} h" in {f.value for f in s.figures}


def test_an_amd_boards_link_is_named_infinity_fabric_and_an_old_plan_reads_as_nvlink() -> None:
    """Defect: the plan kept only the link kind, so an AMD Instinct board printed "over nvlink"."""
    plan, summary = summary_of(EXAMPLES / "amd-70b-full.yaml")
    assert {s.link_name for s in plan.servers} == {"Infinity Fabric"}
    assert [(k.kind, k.words) for k in summary.links] == [("nvlink", "Infinity Fabric")] * len(summary.links)
    assert summary.links, "the 70B full fine-tune spans the board's eight GPUs"
    older = plan.model_copy(
        update={"servers": [s.model_copy(update={"link_name": None}) for s in plan.servers]}
    )
    assert {link_words(older, a) for a in older.assignments} == {"NVLink"}


def test_proven_is_said_only_at_gap_zero() -> None:
    """An optimal status with a gap left is stated with its gap, never as proven."""
    plan, workload, catalogue = solved(EXAMPLES / "deadline.yaml")
    assert summarize(plan, workload, catalogue).standing == "proven"
    left = plan.model_copy(update={"gap": 0.004, "bound": round(plan.total_price * 0.996, 2)})
    s = summarize(left, workload, catalogue)
    assert s.standing == "within gap" and "proved" not in s.proof and "0.4%" in s.proof
