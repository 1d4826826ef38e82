"""The schedule of a queue plan as a Gantt chart: one inline SVG, no scripts, no external assets.

One lane per GPU (grouped by server, in the plan's order), hours from the start of the horizon
across; each job is a bar on every GPU it holds, in its run's colour and legend letter (the
placement diagram's, `render_svg.run_styles`), with a `<title>` tooltip naming the run, job and
hours. Why per GPU and not per server: "no GPU holds two jobs at once" is what a reader checks.
"""

from __future__ import annotations

from html import escape

from ftopt.model.plan import Plan
from ftopt.quote.page import FONT
from ftopt.quote.svg import run_styles, text_colour

LANE_H = 14
LANE_GAP = 2
SERVER_GAP = 8
LABEL_W = 70
CHART_W = 900
MARGIN = 8
AXIS_H = 22
LEGEND_H = 22
#: Tick spacings tried in turn, hours: the first giving at most MAX_TICKS ticks is used.
TICKS_H = (1, 6, 24, 168, 720, 8760)
MAX_TICKS = 12


def _tick(horizon: float) -> int:
    return next((t for t in TICKS_H if horizon / t <= MAX_TICKS), TICKS_H[-1])


def _lanes(plan: Plan) -> list[tuple[str, int, float]]:
    """(server id, GPU index, y) of each lane."""
    lanes, y = [], float(MARGIN + AXIS_H)
    for server in plan.servers:
        for gpu in range(server.gpu_count):
            lanes.append((server.id, gpu, y))
            y += LANE_H + LANE_GAP
        y += SERVER_GAP
    return lanes


def _axis(horizon: float, scale: float, bottom: float) -> list[str]:
    """The hour ticks across the top, each with a light line down through every lane."""
    out: list[str] = []
    tick = _tick(horizon)
    hour = 0
    while hour <= horizon + 1e-9:
        x = MARGIN + LABEL_W + hour * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{MARGIN + AXIS_H - 4}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="#DDDDDD"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{MARGIN + 12}" font-size="10" text-anchor="middle">{hour:g} h</text>'
        )
        hour += tick
    return out


def _bar(tip: str, x: float, y: float, w: float, fill: str, key: str) -> str:
    """One job on one GPU lane; its letter only where the bar is wide enough to hold it."""
    letter = (
        f'<text x="{x + w / 2:.1f}" y="{y + LANE_H - 3:.1f}" font-size="9" '
        f'text-anchor="middle" fill="{text_colour(fill)}">{escape(key)}</text>'
        if w >= 12
        else ""
    )
    return (
        f'<g><title>{tip}</title><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{LANE_H}" '
        f'fill="{fill}" stroke="#FFFFFF" stroke-width="0.5"/>' + letter + "</g>"
    )


def _job_bars(plan: Plan, where: dict[tuple[str, int], float], scale: float) -> list[str]:
    """Every job as a bar on each GPU it holds (a multi-node job on each of its servers' GPUs), so
    that overlapping bars on one lane would show at a glance."""
    styles = run_styles(plan)
    out: list[str] = []
    for job in plan.schedule:
        style = styles.get(job.run)
        fill = style.colour if style else "#999999"
        key = style.key if style else "?"
        nodes = [(n.server, n.gpus) for n in job.nodes] or [(job.server, job.gpus)]
        x = MARGIN + LABEL_W + job.start_hours * scale
        w = max(1.0, (job.end_hours - job.start_hours) * scale)
        tip = escape(
            f"{job.run} job {job.job}: {job.start_hours:,.1f}–{job.end_hours:,.1f} h on {job.server}"
        )
        lanes = [where.get((server, gpu)) for server, gpus in nodes for gpu in gpus]
        out += [_bar(tip, x, y, w, fill, key) for y in lanes if y is not None]
    return out


def _legend(plan: Plan, legend_y: float) -> list[str]:
    """Each run's colour and letter with its name, in one row under the lanes."""
    out: list[str] = []
    x = float(MARGIN)
    for style in run_styles(plan).values():
        out.append(f'<rect x="{x:.1f}" y="{legend_y:.1f}" width="12" height="12" fill="{style.colour}"/>')
        label = f"{style.key} {style.run}"
        out.append(f'<text x="{x + 16:.1f}" y="{legend_y + 10:.1f}" font-size="11">{escape(label)}</text>')
        x += 24 + 7 * len(label)
    return out


def schedule_svg(plan: Plan) -> str:
    """GPUs over the horizon with every job of the plan's schedule; empty when it has none."""
    if not plan.schedule:
        return ""
    horizon = float(plan.horizon_hours or max(job.end_hours for job in plan.schedule))
    scale = CHART_W / horizon if horizon > 0 else 0.0
    lanes = _lanes(plan)
    bottom = max((y for _, _, y in lanes), default=MARGIN + AXIS_H) + LANE_H + SERVER_GAP
    body = _axis(horizon, scale, bottom)
    body += [
        f'<text x="{MARGIN}" y="{y + LANE_H - 3:.1f}" font-size="10">{escape(server)} GPU {gpu}</text>'
        for server, gpu, y in lanes
    ]
    body += _job_bars(plan, {(server, gpu): y for server, gpu, y in lanes}, scale)
    legend_y = bottom + 6
    body += _legend(plan, legend_y)
    width = 2 * MARGIN + LABEL_W + CHART_W
    height = legend_y + LEGEND_H + MARGIN
    cards = sum(s.gpu_count for s in plan.servers)
    label = f"Schedule of {len(plan.schedule)} jobs on {cards} GPUs over {horizon:g} h"
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="schedule" role="img" width="{width}" '
            f'height="{height:.0f}" viewBox="0 0 {width} {height:.0f}" style="{FONT}" '
            f'aria-label="{escape(label)}">',
            f"<title>{escape(label)}</title>",
            *body,
            "</svg>",
        ]
    )
