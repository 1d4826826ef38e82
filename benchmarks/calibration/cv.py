"""Leave-one-source-out prediction: each source judged by constants fitted without it.

Why: the planning margins and the P50/P90 spread used to be fitted on the held-out points and then
judged on the same points, so their coverage was in-sample (issue 37: 56 of 57 in-sample, about 50
leaving each source out in turn). Here every source's points are predicted by constants fitted
without that source, and the margins, spread and bands are the quantiles of those predictions; the
coverage they are reported with is judged the same way, one level further out (a source's points
against margins derived from the other sources' cross-validated errors). The protocol is
docs/calibration.md.

What is refitted without a source:

- A method's own dequantisation figure (GPTQ LoRA's, methods.yaml, chosen on its fit throughput
  points): a point whose source alone chose it is predicted with bitsandbytes' figure (speed.yaml),
  what ftopt would use for a 4-bit base without that source (`Outcome.ftopt_borrowed`). The MFU
  rule below sees such points with that figure too: the MFU were chosen before the figure existed.
- The stacks' MFU (speed constants with a stated fit rule: a stack's MFU sets the median
  ratio ftopt / published over its fit throughput points). Without source S the rule's constant
  moves by m_F / m_F', the median ratio over the stack's fit points with S and without it, and S's
  points' ratios move by the same factor (speed is proportional to MFU on compute-bound steps, to
  first order). A stack that S alone fitted borrows: its constant would have been an assumption, so
  the factor is m_F over the median of every other stack's fit points.
- Memory: the model's terms are counted from the frameworks' code, not fitted; the one fitted figure,
  the allocator reserve, comes from sources whose points carry a reason (no recomputed figure), so
  leaving a source out does not move a memory prediction. Its margin is what cross-validation
  refits: a source's points are judged with the margin the other sources give.

The figures that size plans are the ones without per-point stack overrides (a plan has none):
`run_calibration(overrides=False)`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

from benchmarks.calibration import Outcome


def median(values: list[float]) -> float:
    """The median (mean of the middle two of an even count); 1 without values (no shift)."""
    ordered = sorted(values)
    if not ordered:
        return 1.0
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def _fit_speed(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.kind == "throughput" and o.split == "fit" and o.ratio is not None]


def _mfu_ratio(o: Outcome) -> float:
    """A fit point's ratio as the MFU rule saw it: the stacks' MFU were chosen before any method had a
    dequantisation figure of its own, so a point of such a method enters with bitsandbytes' figure."""
    figure = o.ftopt_borrowed if o.ftopt_borrowed is not None else o.ftopt
    return (figure or 0.0) / o.published


def mfu_shift(outcomes: list[Outcome], source: str, stack: str) -> float:
    """The factor the MFU fit rule moves `stack`'s constant by when `source` is left out (1 when the
    source fitted nothing of the stack)."""
    fit = _fit_speed(outcomes)
    own = [o for o in fit if o.stack == stack]
    if not any(o.source == source for o in own):
        return 1.0
    rest = [_mfu_ratio(o) for o in own if o.source != source]
    if not rest:  # the source alone fitted the stack: its constant would have been borrowed
        rest = [_mfu_ratio(o) for o in fit if o.source != source and o.stack != stack]
    return median([_mfu_ratio(o) for o in own]) / median(rest)


def dequant_borrowed(outcomes: list[Outcome], o: Outcome) -> bool:
    """Whether `o`'s method's own dequantisation figure (methods.yaml: fitted on its fit throughput
    points) came from `o`'s source alone, so that without the source it would be bitsandbytes'."""
    if o.ftopt_borrowed is None:
        return False
    fitted = {p.source for p in _fit_speed(outcomes) if p.method == o.method}
    return fitted <= {o.source}


def cross_validated(outcomes: list[Outcome]) -> list[Outcome]:
    """Every matched point with ftopt's figure as constants fitted without its source give it."""
    out = []
    for o in outcomes:
        if o.ftopt is None:
            continue
        shift = mfu_shift(outcomes, o.source, str(o.stack)) if o.kind == "throughput" else 1.0
        figure = o.ftopt_borrowed if o.ftopt_borrowed and dequant_borrowed(outcomes, o) else o.ftopt
        out.append(replace(o, ftopt=figure / shift))
    return out


def nearest_rank(values: list[float], q: float) -> float:
    """The nearest-rank q-quantile (0 without values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(round(q * len(ordered), 9)) - 1)]


@dataclass(frozen=True)
class Coverage:
    """How many of a group's points the figure derived without their own source covers."""

    key: str
    points: int
    covered: int
    sources: int

    @property
    def share(self) -> float:
        """Share covered."""
        return self.covered / self.points if self.points else 0.0


def leave_one_out_cover(
    rows: list[Outcome],
    key: Callable[[Outcome], str],
    covers: Callable[[list[Outcome], Outcome], bool],
) -> list[Coverage]:
    """Per group of `key` and pooled ("all"): the points that `covers(others, point)` accepts, where
    `others` are the rows of every other source (the derivation never sees the point's source)."""
    by_source: dict[str, list[Outcome]] = defaultdict(list)
    for o in rows:
        by_source[o.source].append(o)
    verdicts = []
    for source, own in by_source.items():
        others = [o for o in rows if o.source != source]
        verdicts += [(o, covers(others, o)) for o in own]
    groups: dict[str, list[tuple[Outcome, bool]]] = defaultdict(list)
    for o, ok in verdicts:
        groups[key(o)].append((o, ok))
        groups["all"].append((o, ok))
    return [
        Coverage(k, len(g), sum(1 for _, ok in g if ok), len({o.source for o, _ in g}))
        for k, g in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0]))
    ]
