"""The HTML quote: every server and GPU in the diagram, the figures, self-containment, escaping."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.findings import Finding, FindingKind, finding, money
from ftopt.model.plan import Plan, Status
from ftopt.model.topology import socket_of
from ftopt.quote.html import render_html
from ftopt.quote.svg import PALETTE, placement_svg, run_styles
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from tests.cli.plans import sixteen_servers

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

#: Four servers of three builds (two-card, four-card, eight-card with two 4-way NVLink bridges),
#: runs with several copies and one run sharded over eight GPUs.
SEVERAL_SERVERS = """\
    name: several-servers
    runs:
      - {name: llama70b-full, model: llama-3.3-70b, method: full, optimizer: auto, offload: none,
         seq_len: 4096, gradient_checkpointing: true, concurrent: 2}
      - {name: legal-qlora-70b, model: llama-3.3-70b, method: qlora, seq_len: 4096, concurrent: 3}
      - {name: support-lora-8b, model: llama-3.1-8b, method: lora, seq_len: 8192, concurrent: 2}
      - {name: code-lora-14b, model: qwen3-14b, method: lora, seq_len: 4096}
    site:
      feed: 400v-3p-16a
      inlet_c: 25
    hardware:
      gpus: [h200-nvl, rtx-pro-6000-se]
"""


def solve_file(path: Path) -> Plan:
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    return solve(
        workload, catalogue, SolveSettings(time_limit=10, workers=2), workload_name=workload.name
    ).plan_or_raise()


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Plan]:
    solved = {name: solve_file(EXAMPLES / f"{name}.yaml") for name in ("several-teams", "full-70b")}
    path = tmp_path_factory.mktemp("workload") / "several-servers.yaml"
    path.write_text(textwrap.dedent(SEVERAL_SERVERS), encoding="utf-8")
    solved["several-servers"] = solve_file(path)
    return solved


@pytest.fixture(scope="module")
def several(plans: dict[str, Plan]) -> Plan:
    plan = plans["several-servers"]
    assert len(plan.servers) >= 3 and any(s.nvlink_domains for s in plan.servers)
    return plan


@dataclass(eq=False)
class Element:
    tag: str
    attrs: dict[str, str]
    parents: list[Element] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def inside(self, cls: str) -> Element | None:
        return next((p for p in reversed(self.parents) if cls in p.classes), None)


class Page(HTMLParser):
    """Every element with its attributes and open ancestors, and the text by innermost tag."""

    VOID: ClassVar[set[str]] = {
        "meta",
        "br",
        "hr",
        "img",
        "input",
        "link",
        "source",
        "wbr",
        "col",
        "area",
        "base",
        "embed",
    }

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.stack: list[Element] = []
        self.text: list[tuple[str, str]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, list(self.stack))
        self.elements.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {k: v or "" for k, v in attrs}, list(self.stack)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.text.append((self.stack[-1].tag if self.stack else "", data))

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Element]:
        return [
            e
            for e in self.elements
            if (tag is None or e.tag == tag)
            and (cls is None or cls in e.classes)
            and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    @property
    def all_text(self) -> str:
        return " ".join(" ".join(data.split()) for _, data in self.text)


def page(plan: Plan) -> Page:
    return Page(render_html(plan))


def gpu_rects(doc: Page, server: str) -> list[Element]:
    return doc.find("rect", "gpu", data_server=server)


@pytest.mark.parametrize("name", ["several-teams", "full-70b", "several-servers"])
def test_every_server_and_gpu_is_drawn_once_inside_its_server(plans: dict[str, Plan], name: str) -> None:
    plan = plans[name]
    doc = page(plan)
    assert len(doc.find("svg")) == 1
    assert [g.attrs["data-server"] for g in doc.find("g", "server")] == [s.id for s in plan.servers]
    for server in plan.servers:
        rects = gpu_rects(doc, server.id)
        assert sorted(int(r.attrs["data-gpu"]) for r in rects) == list(range(server.gpu_count))
        for rect in rects:
            group = rect.inside("server")
            assert group is not None and group.attrs["data-server"] == server.id
    assert len(doc.find("rect", "gpu")) == sum(s.gpu_count for s in plan.servers)


@pytest.mark.parametrize("name", ["several-teams", "full-70b", "several-servers"])
def test_each_copy_colours_its_gpus_and_idle_gpus_carry_no_run(plans: dict[str, Plan], name: str) -> None:
    plan = plans[name]
    doc = page(plan)
    held: set[tuple[str, int]] = set()
    for a in plan.assignments:
        for gpu in a.gpus:
            (rect,) = doc.find("rect", "gpu", data_server=a.server, data_gpu=str(gpu))
            assert rect.attrs["data-run"] == a.run
            assert rect.attrs["data-copy"] == str(a.copy_)
            assert rect.attrs["fill"] == run_styles(plan)[a.run].colour
            held.add((a.server, gpu))
    for rect in doc.find("rect", "gpu"):
        if (rect.attrs["data-server"], int(rect.attrs["data-gpu"])) not in held:
            assert rect.attrs["data-run"] == ""


def test_idle_gpus_are_drawn_idle(several: Plan) -> None:
    dropped = several.assignments[0]
    plan = several.model_copy(update={"assignments": several.assignments[1:]})
    doc = page(plan)
    for gpu in dropped.gpus:
        (rect,) = doc.find("rect", "gpu", data_server=dropped.server, data_gpu=str(gpu))
        assert rect.attrs["data-run"] == "" and "data-copy" not in rect.attrs
        assert rect.inside("gpu-slot") is not None
    assert "idle" in doc.all_text


def _x_range(element: Element) -> tuple[float, float]:
    x = float(element.attrs["x"])
    return x, x + float(element.attrs["width"])


def test_gpus_sit_in_the_socket_the_topology_puts_them_under(several: Plan) -> None:
    doc = page(several)
    for server in several.servers:
        boxes = {}
        for group in doc.find("g", "socket", data_server=server.id):
            (box,) = [e for e in doc.find("rect", "socket-box") if group in e.parents]
            boxes[int(group.attrs["data-socket"])] = _x_range(box)
        assert set(boxes) == {0, 1}
        bridge = max((len(d) for d in server.nvlink_domains), default=0)
        for rect in gpu_rects(doc, server.id):
            left, right = _x_range(rect)
            low, high = boxes[socket_of(int(rect.attrs["data-gpu"]), server.gpu_count, bridge)]
            assert low <= left and right <= high


def test_a_four_way_bridge_on_four_cards_hangs_under_one_socket(several: Plan) -> None:
    four = next(s for s in several.servers if s.gpu_count == 4)
    bridged = four.model_copy(
        update={"nvlink_domains": [[0, 1, 2, 3]], "bridge": "nvlink-4way", "bridge_count": 1}
    )
    plan = several.model_copy(update={"servers": [bridged], "assignments": []})
    doc = page(plan)
    (group,) = doc.find("g", "socket", data_server=four.id, data_socket="0")
    (socket0,) = [e for e in doc.find("rect", "socket-box") if group in e.parents]
    low, high = _x_range(socket0)
    rects = gpu_rects(doc, four.id)
    assert len(rects) == 4
    assert all(low <= _x_range(r)[0] and _x_range(r)[1] <= high for r in rects)
    (outline,) = doc.find("g", "nvlink", data_server=four.id)
    assert outline.attrs["data-gpus"] == "0, 1, 2, 3"


def test_nvlink_domains_outline_their_gpus(plans: dict[str, Plan]) -> None:
    plan = plans["full-70b"]
    doc = page(plan)
    for server in plan.servers:
        groups = doc.find("g", "nvlink", data_server=server.id)
        assert [g.attrs["data-gpus"] for g in groups] == [
            ", ".join(map(str, d)) for d in server.nvlink_domains
        ]
        for group, domain in zip(groups, server.nvlink_domains, strict=True):
            (outline,) = [e for e in doc.find("rect") if group in e.parents]
            low, high = _x_range(outline)
            for gpu in domain:
                (rect,) = doc.find("rect", "gpu", data_server=server.id, data_gpu=str(gpu))
                assert low <= _x_range(rect)[0] and _x_range(rect)[1] <= high
    unbridged = plans["several-teams"]
    assert not page(unbridged).find("g", "nvlink")


def test_memory_bars_show_used_against_free(several: Plan) -> None:
    doc = page(several)
    for a in several.assignments:
        for gpu in a.gpus:
            (rect,) = doc.find("rect", "gpu", data_server=a.server, data_gpu=str(gpu))
            slot = rect.inside("gpu-slot")
            (used,) = [e for e in doc.find("rect", "mem-used") if slot in e.parents]
            (free,) = [e for e in doc.find("rect", "mem-free") if slot in e.parents]
            assert used.attrs["data-gb"] == f"{a.memory_per_gpu_gb.total:.1f}"
            assert free.attrs["data-gb"] == f"{a.free_gb:.1f}"
            share = a.memory_per_gpu_gb.total / (a.memory_per_gpu_gb.total + a.free_gb)
            assert float(used.attrs["width"]) == pytest.approx(share * float(free.attrs["width"]), abs=0.1)


def test_legend_lists_every_run_in_a_distinct_colour(several: Plan) -> None:
    doc = page(several)
    runs = list(dict.fromkeys(a.run for a in several.assignments))
    assert [g.attrs["data-run"] for g in doc.find("g", "legend-run")] == runs
    colours = [style.colour for style in run_styles(several).values()]
    assert colours == list(PALETTE[: len(runs)]) and len(set(colours)) == len(runs)
    assert placement_svg(several) == placement_svg(several)  # deterministic


def test_runs_past_the_palette_stay_distinct(several: Plan) -> None:
    plan = sixteen_servers(several)
    renamed = [a.model_copy(update={"run": f"run-{n}"}) for n, a in enumerate(plan.assignments)]
    assert len(renamed) > len(PALETTE)
    styles = run_styles(plan.model_copy(update={"assignments": renamed}))
    fills = [(s.colour, s.striped) for s in styles.values()]
    assert len(set(fills[: 2 * len(PALETTE)])) == min(len(fills), 2 * len(PALETTE))
    assert len({s.key for s in styles.values()}) == len(renamed)  # the letters never repeat
    html = render_html(plan.model_copy(update={"assignments": renamed}))
    assert 'fill="url(#stripes)"' in html and '<pattern id="stripes"' in html


def test_every_gpu_and_server_has_a_tooltip(several: Plan) -> None:
    doc = page(several)
    titles = [data for tag, data in doc.text if tag == "title"]
    for a in several.assignments:
        for gpu in a.gpus:
            assert any(t.startswith(f"{a.server} GPU {gpu} ") and a.run in t for t in titles)
    for server in several.servers:
        assert any(t.startswith(f"{server.id}: {server.gpu_count} × {server.gpu}") for t in titles)


def test_sixteen_servers_sit_in_a_grid_of_four_without_overlap(several: Plan) -> None:
    plan = sixteen_servers(several)
    doc = page(plan)
    boxes = doc.find("rect", "server-box")
    assert len(boxes) == 16
    assert len(doc.find("rect", "gpu")) == sum(s.gpu_count for s in plan.servers)
    xs = sorted({float(b.attrs["x"]) for b in boxes})
    ys = sorted({float(b.attrs["y"]) for b in boxes})
    assert len(xs) == 4 and len(ys) == 4
    rects = [
        (float(b.attrs["x"]), float(b.attrs["y"]), float(b.attrs["width"]), float(b.attrs["height"]))
        for b in boxes
    ]
    for i, (x1, y1, w1, h1) in enumerate(rects):
        for x2, y2, w2, h2 in rects[i + 1 :]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    (svg,) = doc.find("svg")
    width, height = map(float, svg.attrs["viewbox"].split()[2:])
    assert width <= 1500 and height < 2000
    assert all(x + w <= width and y + h <= height for x, y, w, h in rects)


def test_summary_bill_of_materials_and_power(several: Plan) -> None:
    doc = page(several)
    text = doc.all_text
    assert money(several.total_price, several.currency) in text
    assert several.currency in text and several.price_list in text
    assert several.status.value in text and f"{several.gap:.2%}" in text
    assert f"{len(several.servers)} servers" in text
    cells = [data.strip() for tag, data in doc.text if tag == "td"]
    listed = [sid for e in doc.find("section", "server") for sid in e.attrs["data-servers"].split()]
    assert sorted(listed) == sorted(s.id for s in several.servers)  # every server in exactly one group
    for server in several.servers:
        assert money(server.price, several.currency) in cells
        for line in server.bill_of_materials:
            for cell in (line.item, line.name, str(line.quantity), money(line.unit_price, several.currency),
                         money(line.price, several.currency)):  # fmt: skip
                assert cell in cells
        assert (
            f"{server.power_w:,} W at the wall of {server.feed_usable_w:,} W usable on the {server.feed} feed"
            in text
        )
        assert f"at most {server.max_inlet_c:g} °C" in text


def test_the_appendix_places_every_copy(several: Plan) -> None:
    doc = page(several)
    (section,) = doc.find("section", id="placement-per-copy")
    assert doc.find("section", id="appendix")[0] in section.parents
    rows = [
        e
        for e in doc.find("tr")
        if section in e.parents and e.inside("wide") and e.parents[-1].tag == "tbody"
    ]
    assert len(rows) == len(several.assignments)
    text = doc.all_text
    for a in several.assignments:
        m = a.memory_per_gpu_gb
        for figure in (m.states, m.activations, m.overhead, m.total, a.free_gb):
            assert f"{figure:,.1f}" in text
        assert f"{a.step_seconds:,.2f}" in text and f"{a.traffic_gb_per_step:,.2f}" in text
    assert "PCIe" in text  # the eight-GPU copy spans both NVLink domains


def test_rules_defaults_and_what_shaped_the_answer(several: Plan) -> None:
    binding = [
        finding(FindingKind.SERVER_LIMIT, "site", max_servers=4),
        finding(FindingKind.INLET, "h200-nvl", inlet_c=32, chassis="gpu-server-8", limit_c=30),
    ]
    doc = page(several.model_copy(update={"binding": binding}))
    items = [data for tag, data in doc.text if tag == "li"]
    buyer = [n for n in several.notes if n.subject != "prices"]
    assert {f.text for f in binding + buyer} <= set(items)
    assert "site.max_servers = 4 is reached" in items
    assert doc.find("section", id="binding") and doc.find("section", id="rules")
    quiet = page(several.model_copy(update={"binding": []}))
    assert "no single rule" in quiet.all_text


def test_sections_are_in_order_and_printable(several: Plan) -> None:
    html = render_html(several)
    assert html.startswith("<!DOCTYPE html>")
    order = ["summary", "placement", "servers", "runs", "binding", "rules"]
    positions = [html.index(f'<section id="{name}"') for name in order]
    assert positions == sorted(positions)
    assert "@media print" in html
    doc = Page(html)
    assert doc.find("meta", charset="utf-8") and doc.find("html", lang="en")


@pytest.mark.parametrize("name", ["several-teams", "full-70b", "several-servers"])
def test_self_contained(plans: dict[str, Plan], name: str) -> None:
    html = render_html(plans[name])
    doc = Page(html)
    for tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use", "base"):
        assert not doc.find(tag), tag
    for element in doc.elements:
        for attr in ("src", "href", "xlink:href", "srcset", "data", "action"):
            value = element.attrs.get(attr)
            assert value is None or value.startswith("#"), (element.tag, attr, value)
        assert not any(k.startswith("on") for k in element.attrs), element.tag
    assert not re.search(r"<script|@import|url\(\s*['\"]?(?!#)", html, re.IGNORECASE)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.IGNORECASE)


def test_text_from_the_plan_is_escaped(several: Plan) -> None:
    nasty = '<b>Legal & "Support"</b>'
    doc = page(several.model_copy(update={"workload": nasty}))
    html = render_html(several.model_copy(update={"workload": nasty}))
    assert "<b>" not in html and "&lt;b&gt;Legal &amp; " in html
    assert not doc.find("b")
    assert next(data for tag, data in doc.text if tag == "title") == f"Fine-tuning servers: {nasty}"
    assert [data for tag, data in doc.text if tag == "h1"] == [f"Fine-tuning servers: {nasty}"]


def test_attributes_and_svg_text_are_escaped(several: Plan) -> None:
    """Server ids, run names and notes are escaped even where the model would let markup through."""
    sid, run = 's1"><script>x</script>', "run<i>&"
    server = several.servers[0].model_copy(update={"id": sid})
    assignments = [
        a.model_copy(update={"server": sid, "run": run})
        for a in several.assignments
        if a.server == several.servers[0].id
    ]
    plan = several.model_copy(
        update={
            "servers": [server],
            "assignments": assignments,
            "notes": [_said("a < b & c")],
            "binding": [_said("<em>x")],
        }
    )
    html = render_html(plan)
    doc = Page(html)
    assert not doc.find("script") and not doc.find("i") and not doc.find("em")
    assert [g.attrs["data-server"] for g in doc.find("g", "server")] == [sid]
    assert {r.attrs["data-run"] for r in gpu_rects(doc, sid) if r.attrs["data-run"]} == {run}
    items = [data for tag, data in doc.text if tag == "li"]
    assert "a < b & c" in items and "<em>x" in items


def test_a_plan_without_servers_still_renders() -> None:
    plan = Plan(
        status=Status.INFEASIBLE, currency="EUR", total_price=0, bound=None, gap=None, wall_seconds=0.5
    )
    doc = page(plan)
    assert doc.find("svg") and not doc.find("rect", "gpu")
    assert "No servers" in doc.all_text and "infeasible" in doc.all_text


def _said(text: str) -> Finding:
    """A finding whose words are given, as a version 1 plan's sentences are read back."""
    return Finding(kind=FindingKind.RULE, subject="plan", figures={"statement": text}, text=text)


def test_an_nvswitch_server_is_described_as_one_nvlink_domain_not_as_pcie() -> None:
    catalogue = load_catalogue()
    workload = load_workload(REPO / "examples" / "hgx-full-70b.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=10, workers=2)).plan_or_raise()
    text = page(plan).all_text
    assert "one NVLink domain over NVSwitch (0, 1, 2, 3, 4, 5, 6, 7)" in text
    assert "no NVLink bridges" not in text
