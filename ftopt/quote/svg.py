"""The placement diagram of a plan: one inline SVG, no scripts, no external assets.

Each server is a card with its two CPU sockets; each socket holds the GPUs that hang under it
(`ftopt.model.topology.socket_of`), NVLink domains are dashed outlines around their GPUs, and every
GPU is filled with the colour of the run it holds, marked with the run's legend letter (so the
diagram still reads in greyscale) and carries a memory bar: used GB against free GB. Servers sit
in a grid of up to four per row, so sixteen servers stay readable on one page. Every element has a
`<title>` tooltip, and every piece of text from the plan is escaped.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from html import escape

from ftopt.model.findings import money
from ftopt.model.plan import Assignment, Plan, Server
from ftopt.model.summary import copy_link_words, server_link_words
from ftopt.model.topology import socket_of
from ftopt.quote.page import FONT
from ftopt.quote.roles import gpu_roles

#: Okabe & Ito's colour-blind-safe palette (less black), then Paul Tol's "muted" colours that are
#: distinct from it; the next runs repeat them with a stripe overlay. Past twice the palette, fills
#: repeat, but every run keeps its own legend letter on each of its GPUs.
PALETTE = (
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
    "#882255", "#44AA99", "#999933", "#332288",
)  # fmt: skip
IDLE_FILL = "#F2F2F2"
USED_FILL = "#3B3B3B"
FREE_FILL = "#D9D9D9"

COLUMNS = 4  # servers per row
GPUS_PER_ROW = 4  # GPUs per row inside one socket

GPU_W, GPU_H = 30, 42
BAR_GAP, BAR_H = 3, 6
GPU_GAP_X = 8
ROW_PITCH = GPU_H + BAR_GAP + BAR_H + 12
SOCKET_PAD = 8
SOCKET_LABEL_H = 34  # socket label and room for the NVLink label above the GPUs
SOCKET_W = 2 * SOCKET_PAD + GPUS_PER_ROW * GPU_W + (GPUS_PER_ROW - 1) * GPU_GAP_X
CARD_PAD = 8
CARD_HEADER_H = 40
CARD_W = 3 * CARD_PAD + 2 * SOCKET_W
CARD_GAP = 16
MARGIN = 8
LEGEND_ROW_H = 20
DISPLAY_WIDTH = 1200  # px a diagram of one or two servers is enlarged towards
MAX_SCALE = 1.6


@dataclass(frozen=True)
class RunStyle:
    """How one run is drawn: its fill, its legend letter and whether it is striped."""

    run: str
    colour: str
    key: str
    striped: bool


def _key(index: int) -> str:
    """A, B, …, Z, AA, AB, …: the legend letter of the run at `index`."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on `fill` (WCAG relative luminance)."""
    channels = [int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "#000000" if luminance > 0.2 else "#FFFFFF"


def run_styles(plan: Plan) -> dict[str, RunStyle]:
    """Each run's style, in the order the runs first appear among the assignments."""
    styles: dict[str, RunStyle] = {}
    for assignment in plan.assignments:
        if assignment.run not in styles:
            index = len(styles)
            styles[assignment.run] = RunStyle(
                assignment.run, PALETTE[index % len(PALETTE)], _key(index), index >= len(PALETTE)
            )
    return styles


def bridge_size(server: Server) -> int:
    """The size of the server's NVLink bridges (its largest domain), 0 when unbridged (an NVSwitch
    baseboard's one domain is no bridge: its GPUs split evenly over the sockets)."""
    if server.bridge is None:
        return 0
    return max((len(domain) for domain in server.nvlink_domains), default=0)


def sockets(server: Server) -> tuple[list[int], list[int]]:
    """The GPU indices under socket 0 and under socket 1."""
    size = bridge_size(server)
    placed: tuple[list[int], list[int]] = ([], [])
    for index in range(server.gpu_count):
        placed[socket_of(index, server.gpu_count, size)].append(index)
    return placed


def _rows(count: int) -> int:
    return max(1, math.ceil(count / GPUS_PER_ROW))


def _card_height(rows: int) -> int:
    return CARD_HEADER_H + SOCKET_LABEL_H + rows * ROW_PITCH + SOCKET_PAD + CARD_PAD


def _placed(assignment: Assignment, server: str) -> list[int]:
    """The GPUs of `server` a copy (or job) trains on."""
    if assignment.multinode:
        return [g for n in assignment.nodes if n.server == server for g in n.gpus]
    return list(assignment.gpus) if assignment.server == server else []


def _holders(plan: Plan, server: Server) -> dict[int, list[Assignment]]:
    """Each GPU's copies: one in a peak plan; in a queue plan every job that runs on it over the
    horizon, in the order they start."""
    starts = {(j.run, j.job): j.start_hours for j in plan.schedule}
    ordered = sorted(plan.assignments, key=lambda a: starts.get((a.run, a.copy_), 0.0))
    holders: dict[int, list[Assignment]] = {}
    for assignment in ordered:
        for gpu in _placed(assignment, server.id):
            holders.setdefault(gpu, []).append(assignment)
    return holders


#: Jobs named on one GPU before the rest are counted (`A1 A2 B1 +5`).
JOBS_SHOWN = 3


def jobs_label(holders: list[Assignment], styles: dict[str, RunStyle]) -> str:
    """The jobs a queue plan's GPU runs over time, by legend letter and job number, in start order."""
    return " ".join(f"{styles[a.run].key}{a.copy_}" for a in holders if a.run in styles)


def short_jobs(label: str) -> str:
    """The first `JOBS_SHOWN` jobs of a label and how many more: what fits on the GPU's face."""
    keys = label.split()
    rest = len(keys) - JOBS_SHOWN
    return " ".join(keys[:JOBS_SHOWN]) + (f" +{rest}" if rest > 0 else "")


def _capacity(plan: Plan, server: Server) -> float | None:
    """The GPU memory of the server's card model, as the plan reveals it (used + free)."""
    models = {s.id: s.gpu for s in plan.servers}
    for assignment in plan.assignments:
        if models.get(assignment.server) == server.gpu:
            return assignment.memory_per_gpu_gb.total + assignment.free_gb
    return None


def _gpu_tip(server: Server, index: int, holder: Assignment | None) -> str:
    """The GPU's tooltip: the copy it holds, its parallelism and link, and its memory by part."""
    if holder is None:
        return f"{server.id} GPU {index} ({server.gpu}): idle"
    m = holder.memory_per_gpu_gb
    where = f"{len(holder.gpus)} GPU" + ("s" if len(holder.gpus) != 1 else "")
    words = copy_link_words(holder, server)
    link = f" over {words}" if words else ""
    tip = (
        f"{server.id} GPU {index} ({server.gpu}): {holder.run} copy {holder.copy_}, "
        f"{holder.strategy.value} on {where}{link}; {m.total:.1f} GB used "
        f"(states {m.states:.1f}, activations {m.activations:.1f}, overhead {m.overhead:.1f}), "
        f"{holder.free_gb:.1f} GB free"
    )
    roles = gpu_roles(holder, index)
    return tip + (f"; roles: {', '.join(roles)}" if roles else "")


def _gpu_data(index: int, holder: Assignment | None, jobs: str) -> str:
    """The GPU rect's data attributes past its run: the copy, a queue GPU's jobs, the RL roles
    (tests and scripts read the diagram through them)."""
    attrs = f' data-copy="{holder.copy_}"' if holder else ""
    if jobs:
        attrs += f' data-jobs="{escape(jobs)}"'
    if holder is not None and holder.roles:
        attrs += f' data-roles="{escape(" ".join(gpu_roles(holder, index)))}"'
    return attrs


@dataclass(frozen=True)
class _Slot:
    """One card as drawn: its server, its index there and the top-left corner of its face."""

    server: Server
    index: int
    x: float
    y: float


@dataclass(frozen=True)
class _Held:
    """What a whole card shows: the copy it holds (None: idle), its run's colours, whether the run has
    several copies (so the card names which: A1, A2, …), and a queue GPU's jobs over the horizon."""

    holder: Assignment | None
    style: RunStyle | None
    multi: bool = False
    jobs: str = ""


@dataclass(frozen=True)
class _Band:
    """One instance of a sliced card: its profile, its number among that profile's instances, and
    where its band starts and how tall it is (its share of the card's compute)."""

    profile: str
    number: int
    top: float
    height: float


def _gpu_mark(slot: _Slot, held: _Held) -> str:
    """The GPU's face: a queue GPU's jobs, else the run letter (and copy when the run has several),
    else `idle`; the letter keeps the diagram readable in greyscale."""
    x, y, holder, style, jobs = slot.x, slot.y, held.holder, held.style, held.jobs
    ink = text_colour(style.colour if style else IDLE_FILL)
    if jobs:
        return (
            f'<text x="{x + GPU_W / 2:g}" y="{y + 31:g}" font-size="8" font-weight="bold" '
            f'text-anchor="middle" fill="{ink}">{escape(short_jobs(jobs))}</text>'
        )
    if style and holder is not None:
        copy = f'<tspan font-size="9" font-weight="normal">{holder.copy_}</tspan>' if held.multi else ""
        return (
            f'<text x="{x + GPU_W / 2:g}" y="{y + 32:g}" font-size="13" font-weight="bold" '
            f'text-anchor="middle" fill="{ink}">{escape(style.key)}{copy}</text>'
        )
    return (
        f'<text x="{x + GPU_W / 2:g}" y="{y + 30:g}" font-size="9" text-anchor="middle" '
        'fill="#777777">idle</text>'
    )


def _memory_bar(x: float, y: float, used: float, free: float) -> list[str]:
    """The bar under a GPU: used GB in dark against free GB in light, to the card's capacity."""
    bar_y = y + GPU_H + BAR_GAP
    total = used + free
    used_w = GPU_W * used / total if total > 0 else 0.0
    return [
        f'<rect class="mem-free" data-gb="{free:.1f}" x="{x:g}" y="{bar_y:g}" width="{GPU_W}" '
        f'height="{BAR_H}" fill="{FREE_FILL}" stroke="#555555" stroke-width="0.5"/>',
        f'<rect class="mem-used" data-gb="{used:.1f}" x="{x:g}" y="{bar_y:g}" width="{used_w:.1f}" '
        f'height="{BAR_H}" fill="{USED_FILL}"/>',
    ]


def _gpu(slot: _Slot, held: _Held, capacity: float | None) -> list[str]:
    """One GPU: its rect (coloured by run), its index, run letter and copy, and its memory bar; a
    queue plan's GPU that runs several jobs over time names them all (`A1 A2 B1`)."""
    server, index, x, y = slot.server, slot.index, slot.x, slot.y
    holder, style, jobs = held.holder, held.style, held.jobs
    run = escape(holder.run) if holder else ""
    fill = style.colour if style else IDLE_FILL
    tip = _gpu_tip(server, index, holder)
    if jobs:
        tip += f"; jobs over the horizon: {jobs}"
    used, free = (holder.memory_per_gpu_gb.total, holder.free_gb) if holder else (0.0, capacity or 0.0)
    out = [
        f'<g class="gpu-slot"><title>{escape(tip)}</title>',
        f'<rect class="gpu" data-server="{escape(server.id)}" data-gpu="{index}" data-run="{run}"'
        f"{_gpu_data(index, holder, jobs)} "
        f'x="{x:g}" y="{y:g}" width="{GPU_W}" height="{GPU_H}" rx="3" fill="{fill}" '
        f'stroke="#333333" stroke-width="1"/>',
    ]
    if style and style.striped:
        out.append(
            f'<rect x="{x:g}" y="{y:g}" width="{GPU_W}" height="{GPU_H}" rx="3" fill="url(#stripes)" '
            'pointer-events="none"/>'
        )
    out.append(
        f'<text x="{x + GPU_W / 2:g}" y="{y + 12:g}" font-size="10" text-anchor="middle" '
        f'fill="{text_colour(fill)}">{index}</text>'
    )
    out.append(_gpu_mark(slot, held))
    return [*out, *_memory_bar(x, y, used, free), "</g>"]


def slice_weights(profiles: list[str]) -> list[int]:
    """Each instance's compute slices, read off its profile name (the 2 of 2g.48gb): its share of the
    card's face in the diagram."""
    return [int(p.split("g.", 1)[0]) for p in profiles]


def _sliced_gpu(
    slot: _Slot, profiles: list[str], held: list[Assignment], styles: dict[str, RunStyle]
) -> list[str]:
    """One card split into GPU slices (MIG): a band per instance, its height the instance's share of
    the card's compute, coloured by the copy it holds (idle when none), each with its own tooltip."""
    server, index, x, y = slot.server, slot.index, slot.x, slot.y
    sid = escape(server.id)
    layout = " + ".join(profiles)
    tip = f"{server.id} GPU {index} ({server.gpu}): MIG {layout}"
    out = [
        f'<g class="gpu-slot"><title>{escape(tip)}</title>',
        f'<rect class="gpu" data-server="{sid}" data-gpu="{index}" data-mig="{escape(layout)}" x="{x:g}" '
        f'y="{y:g}" width="{GPU_W}" height="{GPU_H}" rx="3" fill="#FFFFFF" stroke="#333333" '
        'stroke-width="1"/>',
    ]
    by_instance = {(a.mig.profile, a.mig.index): a for a in held if a.mig}
    weights, seen, top = slice_weights(profiles), Counter[str](), float(y)
    for profile, weight in zip(profiles, weights, strict=True):
        number, height = seen[profile], GPU_H * weight / sum(weights)
        seen[profile] += 1
        band = _Band(profile, number, top, height)
        out += _slice_band(slot, band, by_instance.get((profile, number)), styles)
        top += height
    out.append("</g>")
    return out


def _slice_band(
    slot: _Slot, band: _Band, holder: Assignment | None, styles: dict[str, RunStyle]
) -> list[str]:
    """One instance of a sliced card: its band, tooltip and the run letter and copy it holds."""
    server, index, x, y, height = slot.server, slot.index, slot.x, band.top, band.height
    profile, number = band.profile, band.number
    style = styles.get(holder.run) if holder else None
    fill = style.colour if style else IDLE_FILL
    what = "idle"
    if holder:
        used = holder.memory_per_gpu_gb.total
        what = f"{holder.run} copy {holder.copy_}, {used:.1f} GB used, {holder.free_gb:.1f} GB free"
    tip = f"{server.id} GPU {index} slice {profile} #{number + 1}: {what}"
    run = escape(holder.run) if holder else ""
    copy = f' data-copy="{holder.copy_}"' if holder else ""
    label = f"{style.key}{holder.copy_}" if style and holder else ""
    return [
        f'<rect class="mig-slice" data-server="{escape(server.id)}" data-gpu="{index}" '
        f'data-profile="{escape(profile)}" data-index="{number}" data-run="{run}"{copy} x="{x:g}" '
        f'y="{y:.1f}" width="{GPU_W}" height="{height:.1f}" fill="{fill}" stroke="#333333" '
        f'stroke-width="0.5"><title>{escape(tip)}</title></rect>',
        f'<text x="{x + GPU_W / 2:g}" y="{y + height / 2 + 3:.1f}" font-size="7" '
        f'text-anchor="middle" fill="{text_colour(fill)}" pointer-events="none">{escape(label)}</text>',
    ]


def _server_header(plan: Plan, server: Server, x: float, y: float, height: int) -> list[str]:
    """The card's opening: its group, tooltip, box, and its id, cards, price, power and RAM."""
    sid = escape(server.id)
    bridges = f", {server.bridge_count} × {server.bridge}" if server.bridge else ""
    tip = (
        f"{server.id}: {server.gpu_count} × {server.gpu}{bridges}; {server.cpu_count} × {server.cpu}; "
        f"{server.ram_gb:,} GB RAM; {server.power_w:,} W of {server.feed_usable_w:,} W ({server.feed})"
    )
    return [
        f'<g class="server" data-server="{sid}" data-gpus="{server.gpu_count}">',
        f"<title>{escape(tip)}</title>",
        f'<rect class="server-box" x="{x:g}" y="{y:g}" width="{CARD_W}" height="{height}" rx="6" '
        'fill="#FFFFFF" stroke="#555555" stroke-width="1.5"/>',
        f'<text x="{x + CARD_PAD:g}" y="{y + 17:g}" font-size="12"><tspan font-size="14" '
        f'font-weight="bold">{sid}</tspan><tspan dx="8">{server.gpu_count} × {escape(server.gpu)}</tspan>'
        f'<tspan dx="8" fill="#555555">{escape(money(server.price, plan.currency))}</tspan></text>',
        f'<text x="{x + CARD_PAD:g}" y="{y + 33:g}" font-size="10" fill="#555555">'
        f"{server.power_w:,} W of {server.feed_usable_w:,} W · {server.ram_gb:,} GB RAM"
        f"{' · ' + escape(server.bridge) if server.bridge else ''}</text>",
    ]


def _sockets(
    server: Server, x: float, y: float, height: int
) -> tuple[list[str], dict[int, tuple[float, float]]]:
    """The two socket boxes and where each GPU sits in them: the GPUs hang under the socket they
    attach to, so the diagram shows which CPU feeds which card."""
    sid = escape(server.id)
    out: list[str] = []
    positions: dict[int, tuple[float, float]] = {}
    socket_top = y + CARD_HEADER_H
    socket_h = height - CARD_HEADER_H - CARD_PAD
    for number, members in enumerate(sockets(server)):
        sx = x + CARD_PAD + number * (SOCKET_W + CARD_PAD)
        out += [
            f'<g class="socket" data-server="{sid}" data-socket="{number}">',
            f"<title>{escape(f'{server.id} socket {number}: {server.cpu}, GPUs ')}"
            f"{escape(', '.join(map(str, members)) or 'none')}</title>",
            f'<rect class="socket-box" x="{sx:g}" y="{socket_top:g}" width="{SOCKET_W}" '
            f'height="{socket_h}" rx="4" fill="#FAFAFA" stroke="#999999" stroke-width="1"/>',
            f'<text x="{sx + SOCKET_PAD:g}" y="{socket_top + 13:g}" font-size="10" fill="#444444">'
            f"socket {number} · {escape(server.cpu)}</text>",
            "</g>",
        ]
        for slot, index in enumerate(members):
            row, column = divmod(slot, GPUS_PER_ROW)
            positions[index] = (
                sx + SOCKET_PAD + column * (GPU_W + GPU_GAP_X),
                socket_top + SOCKET_LABEL_H + row * ROW_PITCH,
            )
    return out, positions


def _nvlink_outlines(server: Server, positions: dict[int, tuple[float, float]]) -> list[str]:
    """A dashed outline around each scale-up domain's GPUs, labelled with the link's own name (an
    NVIDIA baseboard's one domain says NVSwitch; an AMD board's says Infinity Fabric)."""
    sid = escape(server.id)
    name = server_link_words(server)
    label = f"{name} · NVSwitch" if name == "NVLink" and not server.bridge else name
    out: list[str] = []
    for domain in server.nvlink_domains:
        points = [positions[i] for i in domain if i in positions]
        if not points:
            continue
        left = min(p[0] for p in points) - 4
        top = min(p[1] for p in points) - 4
        width = max(p[0] for p in points) + GPU_W + 4 - left
        bottom = max(p[1] for p in points) + GPU_H + BAR_GAP + BAR_H + 4
        members_text = ", ".join(map(str, domain))
        out += [
            f'<g class="nvlink" data-server="{sid}" data-gpus="{escape(members_text)}">',
            f"<title>{escape(f'{server.id} {name} domain: GPUs {members_text}')}</title>",
            f'<rect x="{left:g}" y="{top:g}" width="{width:g}" height="{bottom - top:g}" rx="4" '
            'fill="none" stroke="#0F4C81" stroke-width="1.5" stroke-dasharray="4 2"/>',
            f'<text x="{left + 2:g}" y="{top - 2:g}" font-size="9" fill="#0F4C81">{escape(label)}</text>',
            "</g>",
        ]
    return out


def _server_gpus(
    plan: Plan, server: Server, positions: dict[int, tuple[float, float]], styles: dict[str, RunStyle]
) -> list[str]:
    """Every GPU of the server at its position: a sliced (MIG) card as bands, any other whole."""
    holders = _holders(plan, server)
    copies = Counter(a.run for a in plan.assignments)
    capacity = _capacity(plan, server)
    sliced = {c.card: c.profiles for c in server.mig}
    out: list[str] = []
    for index in range(server.gpu_count):
        held = holders.get(index, [])
        if index in sliced:
            out += _sliced_gpu(_Slot(server, index, *positions[index]), sliced[index], held, styles)
            continue
        holder = held[0] if held else None
        style = styles.get(holder.run) if holder else None
        gx, gy = positions[index]
        multi = holder is not None and copies.get(holder.run, 1) > 1
        jobs = jobs_label(held, styles) if plan.schedule else ""
        out += _gpu(_Slot(server, index, gx, gy), _Held(holder, style, multi, jobs), capacity)
    return out


def _server(
    plan: Plan, server: Server, x: float, y: float, height: int, styles: dict[str, RunStyle]
) -> list[str]:
    """One server card: header, two sockets, GPUs and NVLink outlines."""
    socket_boxes, positions = _sockets(server, x, y, height)
    return [
        *_server_header(plan, server, x, y, height),
        *socket_boxes,
        *_nvlink_outlines(server, positions),
        *_server_gpus(plan, server, positions, styles),
        "</g>",
    ]


def legend_label(plan: Plan, run: str) -> str:
    """`lora (4 GPUs)`; a queue plan's jobs share GPUs over time, so each GPU counts once and the
    jobs are counted apart: `lora (4 GPUs, 12 jobs)`."""
    copies = [a for a in plan.assignments if a.run == run]
    gpus = len({(n.server, g) for a in copies for n in a.nodes for g in n.gpus})
    label = f"{run} ({gpus} GPU{'s' if gpus != 1 else ''}"
    if plan.schedule:
        label += f", {len(copies)} job{'s' if len(copies) != 1 else ''}"
    return label + ")"


def _domain_words(plan: Plan) -> str:
    """The legend's name for a dashed outline: the plan's scale-up links by their own names."""
    names = sorted({server_link_words(s) for s in plan.servers if s.nvlink_domains}) or ["NVLink"]
    return f"{' / '.join(names)} domain"


def _legend(plan: Plan, styles: dict[str, RunStyle], y: float, width: float) -> tuple[list[str], float]:
    """The run colours and what the marks mean, wrapped to `width`; returns the height used."""
    entries: list[tuple[str, str, str, bool, str]] = [
        (s.colour, s.key, legend_label(plan, s.run), s.striped, s.run) for s in styles.values()
    ]
    out = ['<g class="legend">']
    x, row_y = MARGIN, y
    for colour, key, label, striped, run in entries:
        entry_w = 34 + 7 * len(label)
        if x + entry_w > width and x > MARGIN:
            x, row_y = MARGIN, row_y + LEGEND_ROW_H
        out += [
            f'<g class="legend-run" data-run="{escape(run)}"><title>{escape(label)}</title>',
            f'<rect x="{x:g}" y="{row_y:g}" width="22" height="14" rx="2" fill="{colour}" '
            'stroke="#333333" stroke-width="1"/>',
        ]
        if striped:
            out.append(f'<rect x="{x:g}" y="{row_y:g}" width="22" height="14" rx="2" fill="url(#stripes)"/>')
        out += [
            f'<text x="{x + 11:g}" y="{row_y + 11:g}" font-size="10" font-weight="bold" '
            f'text-anchor="middle" fill="{text_colour(colour)}">{escape(key)}</text>',
            f'<text x="{x + 28:g}" y="{row_y + 11:g}" font-size="11">{escape(label)}</text>',
            "</g>",
        ]
        x += entry_w
    # What the other marks mean, on a row of their own.
    x, row_y = MARGIN, row_y + LEGEND_ROW_H
    out += [
        f'<rect x="{x:g}" y="{row_y:g}" width="22" height="14" rx="2" fill="{IDLE_FILL}" '
        'stroke="#333333" stroke-width="1"/>',
        f'<text x="{x + 28:g}" y="{row_y + 11:g}" font-size="11">idle GPU</text>',
        f'<rect x="{x + 110:g}" y="{row_y + 4:g}" width="{GPU_W}" height="{BAR_H}" fill="{FREE_FILL}" '
        'stroke="#555555" stroke-width="0.5"/>',
        f'<rect x="{x + 110:g}" y="{row_y + 4:g}" width="{GPU_W * 0.6:g}" height="{BAR_H}" '
        f'fill="{USED_FILL}"/>',
        f'<text x="{x + 146:g}" y="{row_y + 11:g}" font-size="11">GPU memory: used | free</text>',
        f'<rect x="{x + 310:g}" y="{row_y:g}" width="40" height="14" rx="3" fill="none" '
        'stroke="#0F4C81" stroke-width="1.5" stroke-dasharray="4 2"/>',
        f'<text x="{x + 356:g}" y="{row_y + 11:g}" font-size="11">{escape(_domain_words(plan))}</text>',
        "</g>",
    ]
    return out, row_y + LEGEND_ROW_H - y


FABRIC_H = 70  # room under the server grid for the fabric's switch and its links


def _fabric(plan: Plan, anchors: dict[str, tuple[float, float]], y: float, width: float) -> list[str]:
    """The switch (leaves and spines as one box) under the servers, a link from each networked
    server to it, and each multi-node copy's servers named on the box."""
    f = plan.fabric
    if f is None:
        return []
    box_w, box_h = 320, 34
    bx, by = (width - box_w) / 2, y + FABRIC_H - box_h - 6
    switches = " + ".join(f"{s.count} × {s.id} {s.role}" for s in f.switches)
    copies = [a for a in plan.assignments if a.multinode]
    joined = "; ".join(f"{a.run} #{a.copy_}: {'+'.join(n.server for n in a.nodes)}" for a in copies)
    tip = f"fabric: {switches}; {f.nic_ports} NIC ports ({f.nic}); {joined}"
    out = [f'<g class="fabric" data-switches="{escape(switches)}"><title>{escape(tip)}</title>']
    for server_id, (sx, sy) in anchors.items():
        if server_id in f.nics_per_server:
            nics = f.nics_per_server[server_id]
            out.append(
                f'<line class="fabric-link" data-server="{escape(server_id)}" x1="{sx:g}" y1="{sy:g}" '
                f'x2="{bx + box_w / 2:g}" y2="{by:g}" stroke="#7A3E9D" stroke-width="{1 + nics / 4:g}" '
                'stroke-opacity="0.7"/>'
            )
    out += [
        f'<rect class="switch-box" x="{bx:g}" y="{by:g}" width="{box_w}" height="{box_h}" rx="5" '
        'fill="#F3ECF7" stroke="#7A3E9D" stroke-width="1.5"/>',
        f'<text x="{bx + box_w / 2:g}" y="{by + 14:g}" font-size="11" text-anchor="middle" '
        f'font-weight="bold">{escape(switches)}</text>',
        f'<text x="{bx + box_w / 2:g}" y="{by + 27:g}" font-size="10" text-anchor="middle" fill="#555555">'
        f"{f.nic_ports} × {escape(f.nic)} ports · {escape(money(f.price, plan.currency))}</text>",
        "</g>",
    ]
    return out


def placement_svg(plan: Plan) -> str:
    """The plan's servers, sockets, NVLink domains and GPUs, coloured by run, as one <svg>."""
    styles = run_styles(plan)
    count = len(plan.servers)
    columns = max(1, min(COLUMNS, count))
    width = 2 * MARGIN + columns * CARD_W + (columns - 1) * CARD_GAP
    width = max(width, 480)  # room for the legend under a single two-card server
    rows = max((_rows(max(len(m) for m in sockets(s))) for s in plan.servers), default=1)
    card_h = _card_height(rows)
    body: list[str] = []
    anchors: dict[str, tuple[float, float]] = {}
    for position, server in enumerate(plan.servers):
        row, column = divmod(position, columns)
        x = MARGIN + column * (CARD_W + CARD_GAP)
        y = MARGIN + row * (card_h + CARD_GAP)
        body += _server(plan, server, x, y, card_h, styles)
        anchors[server.id] = (x + CARD_W / 2, y + card_h)
    if not plan.servers:
        body.append(f'<text x="{MARGIN}" y="{MARGIN + 16}" font-size="13">No servers in this plan.</text>')
        grid_h = 24
    else:
        grid_h = math.ceil(count / columns) * (card_h + CARD_GAP) - CARD_GAP
    if plan.fabric is not None:  # the switch under the grid, joined to every networked server
        body = _fabric(plan, anchors, MARGIN + grid_h, width) + body
        grid_h += FABRIC_H
    legend, legend_h = _legend(plan, styles, MARGIN + grid_h + 16, width - MARGIN)
    height = math.ceil(MARGIN + grid_h + 16 + legend_h + MARGIN)
    # Few servers are drawn larger (up to DISPLAY_WIDTH); the page still shrinks it to fit.
    scale = max(1.0, min(MAX_SCALE, DISPLAY_WIDTH / width))
    gpus = sum(s.gpu_count for s in plan.servers)
    label = f"Placement of {len(styles)} runs on {count} servers with {gpus} GPUs"
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="placement" role="img" width="{width * scale:.0f}" '
        f'height="{height * scale:.0f}" viewBox="0 0 {width} {height}" style="{FONT}" '
        f'aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
        '<defs><pattern id="stripes" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="2" height="6" fill="#FFFFFF" fill-opacity="0.55"/>'
        "</pattern></defs>",
    ]
    return "\n".join([*head, *body, *legend, "</svg>"])
