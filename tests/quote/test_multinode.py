"""A multi-node plan's quote: the fabric's bill in every view, and the diagram joins the servers of
a multi-node copy through the switch."""

from __future__ import annotations

import functools
import re

from rich.console import Console

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.quote.html import render_html
from ftopt.quote.markdown import render_markdown
from ftopt.quote.svg import placement_svg
from ftopt.quote.table import render_table
from ftopt.solver.solve import SolveSettings, solve

BID = {
    "runs": [{"name": "l405", "model": "llama-3.1-405b", "method": "full", "seq_len": 4096}],
    "site": {"feed": "400v-3p-32a"},
    # Sized as before issue 28 so that the copy spans the four HGX B200 systems these views are
    # checked on (with the measured margin it takes eight HGX H200 systems instead).
    "sizing": {"memory_margin": 0.0, "allocator_reserve": 0.05},
}


@functools.cache
def plan() -> Plan:
    workload = Workload.model_validate(BID)
    return solve(workload, load_catalogue(), SolveSettings(time_limit=20, workers=1)).plan_or_raise()


def test_the_diagram_links_every_node_to_the_switch() -> None:
    p = plan()
    svg = placement_svg(p)
    (copy,) = p.assignments
    linked = re.findall(r'class="fabric-link" data-server="(s\d+)"', svg)
    assert sorted(linked) == sorted(n.server for n in copy.nodes)
    assert 'class="switch-box"' in svg and "qm9700 leaf" in svg
    # Every node's GPUs are drawn as the copy's, not idle.
    assert svg.count('data-run="l405"') >= copy.gpu_count


def test_every_view_has_the_fabric_bill() -> None:
    p = plan()
    assert "## Fabric" in render_markdown(p) and "dac-osfp-2x400g-splitter" in render_markdown(p)
    html = render_html(p)
    assert 'id="fabric"' in html and "Fabric total" in html
    console = Console(record=True, width=200)
    render_table(p, console)
    text = console.export_text()
    assert "fabric: 32 ports of cx7-400g-osfp" in text and "s1+s2+s3+s4" in text
