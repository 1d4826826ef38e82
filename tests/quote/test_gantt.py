"""The queue quote's Gantt chart: one bar per job and GPU, placed at the job's hours."""

from __future__ import annotations

import re

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.quote.gantt import CHART_W, LABEL_W, MARGIN, schedule_svg
from ftopt.quote.html import render_html
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.conftest import workload_from
from tests.solver.test_queue import MONTH

BAR = re.compile(r'<g><title>([^<]+)</title><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"')


@pytest.fixture(scope="module")
def plan() -> Plan:
    return solve(
        workload_from(MONTH), load_catalogue(), SolveSettings(time_limit=30, workers=2)
    ).plan_or_raise()


def test_every_job_is_a_bar_on_each_of_its_gpus_at_its_hours(plan: Plan) -> None:
    bars = BAR.findall(schedule_svg(plan))
    assert len(bars) == sum(len(job.gpus) for job in plan.schedule)
    scale = CHART_W / 720
    for job in plan.schedule:
        tip = f"{job.run} job {job.job}: "
        (found,) = [(float(x), float(w)) for title, x, w in bars if title.startswith(tip)]
        assert found[0] == pytest.approx(MARGIN + LABEL_W + job.start_hours * scale, abs=0.06)
        assert found[1] == pytest.approx((job.end_hours - job.start_hours) * scale, abs=0.06)


def test_the_html_quote_has_a_schedule_section_only_for_queue_plans(plan: Plan) -> None:
    assert '<section id="schedule"' in render_html(plan)
    peak = plan.model_copy(update={"schedule": [], "horizon_hours": None})
    assert schedule_svg(peak) == ""
    assert '<section id="schedule"' not in render_html(peak)


def test_the_html_quote_compares_buying_with_renting(plan: Plan) -> None:
    rent = plan.rent
    assert rent is not None
    html = render_html(plan)
    section = html[html.index('<section id="rent"') :]
    section = section[: section.index("</section>")]
    assert f"{rent.cost:,.2f}" in section
    assert all(source.url in section for source in rent.sources)
    assert '<section id="rent"' not in render_html(plan.model_copy(update={"rent": None}))
