"""Rule family: the PDU outlets a site's servers plug into, each power cord carrying at most its rating.

A site may fix the outlet its rack PDUs offer each cord (`site.policy.outlet`: IEC 60320 C13 at 10 A
or C19 at 16 A, at 230 V). A server's supplies each take one cord; when its redundant supplies fail,
those left carry its whole draw, so each of their cords carries the draw at the wall divided by the
supplies that must carry it (all of them, all but one for N+1, half for N+N). A build whose cords
would carry more than the outlet's rating cannot plug in. The draw is the one the feed and supply
rules plan with (`Build.power_w`: its hungriest RAM and disk tiers), so the rule is on the safe side
of the server as built, which the verifier checks. That is a fact of each build, so the constraint
sets the count of every such build to zero, in the peak and the queue model alike.

The family lands in its own files (docs/contributing/add-a-rule-family.md): this module, its data
file `ftopt/catalogue/data/families/outlet.yaml` (the `outlet` policy field and the outlets' ratings
with their sources), the verifier's `outlet` rule (`ftopt.verify.site.check_outlet`, reading the same
data on its own), tests/solver/cpsat/test_outlet.py and its line in the families' registry. Its
relaxation id (`outlet`: the next larger outlet) and its sentences are declared here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.plan import Plan
from ftopt.solver.cpsat.family import Family, Fleet, Relaxation
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import compatible

#: The relaxation's id: this family's own, carried by the what-if's saving and the workbench's ease.
EASED = "outlet"


def cord_w(build: Build) -> int:
    """What one cord of the build carries at full load with its redundant supplies failed, W."""
    return -(-build.power_w // build.chassis.psu_carrying)  # one cord per supply


def _rating_w(data: ProblemData, outlet_id: object) -> int | None:
    """The outlet's rating, volts × amps (None: the site names no outlet)."""
    if not isinstance(outlet_id, str):
        return None
    item = Outlet.items(data.catalogue).item(outlet_id)
    return round(float(item["volts"]) * float(item["amps"]))


def _limit_w(data: ProblemData) -> int | None:
    """The site's outlet rating, W; None when the site names no outlet."""
    return _rating_w(data, Outlet.policy(data.workload, "outlet"))


def add(model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None) -> None:
    """No server of a build whose cords would carry more than the outlet (switched, for a conflict)."""
    limit = _limit_w(data)
    if limit is None:
        return
    for build, count in fleet:
        if cord_w(build) > limit:
            added = model.add(count == 0)
            if enforce is not None:
                added.only_enforce_if(enforce)


def admits(data: ProblemData, builds: Sequence[Build]) -> bool:
    """Every server's cords within the outlet's rating."""
    limit = _limit_w(data)
    return limit is None or all(cord_w(b) <= limit for b in builds)


def relax(data: ProblemData) -> list[Relaxation]:
    """The next larger outlet of the data file, when some build does not plug into the site's."""
    limit, outlets = _limit_w(data), Outlet.items(data.catalogue)
    if limit is None or all(cord_w(b) <= limit for b in data.builds):
        return []
    larger = sorted((w, i) for i in outlets.ids if (w := _rating_w(data, i)) is not None and w > limit)
    if not larger:
        return []
    watts, outlet_id = larger[0]
    policy = {**data.workload.site.policy, "outlet": outlet_id}
    site = data.workload.site.model_copy(update={"policy": policy})
    words = f"{outlet_id} outlets ({watts:,} W a cord)"
    return [Relaxation(EASED, words, data.workload.model_copy(update={"site": site}))]


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """The builds the outlet leaves out, the hungriest named: a binding line when there are any."""
    limit = _limit_w(data)
    over = [b for b in data.builds if limit is not None and cord_w(b) > limit]
    if limit is None or not over:
        return []
    worst = max(over, key=cord_w)
    outlet = str(Outlet.policy(data.workload, "outlet"))
    return [
        Outlet.finding(
            "binding",
            outlet,
            limit_w=limit,
            left_out=len(over),
            chassis=worst.chassis.id,
            gpu_count=worst.gpu_count,
            gpu=worst.gpu.id,
            cord_w=cord_w(worst),
        )
    ]


def impossible(data: ProblemData) -> list[Finding]:
    """Runs whose every server would load its cords beyond the outlet: no plan, and the outlet is why."""
    limit = _limit_w(data)
    if limit is None:
        return []
    outlet = str(Outlet.policy(data.workload, "outlet"))
    found = []
    for r, profile in enumerate(data.profiles):
        need = _least_cord_w(data, r)
        if need is not None and need > limit:
            reason = Outlet.finding("impossible", profile.run.name, outlet=outlet, limit_w=limit, need_w=need)
            found.append(reason)
    return found


def _least_cord_w(data: ProblemData, r: int) -> int | None:
    """The least a cord carries among the servers that hold run `r` alone; None when the run has a
    multi-node option or no server holds it (other reasons say why then)."""
    holding = [b for m in data.modes_of(r) for b in data.builds if compatible(data.modes[m], b)]
    if not holding or data.has_multinode(r):
        return None
    return min(cord_w(b) for b in holding)


#: The outlets: builds whose cords would carry more than the site's outlet take no server.
Outlet = Family(
    name="outlet",
    relaxations=(EASED,),
    verifier_rules=("outlet",),
    workload_fields=("site.policy.outlet",),
    catalogue_fields=("chassis[].psu_count", "chassis[].psu_redundancy"),
    add=add,
    admits=admits,
    relax=relax,
    explain=explain,
    impossible=impossible,
    data="outlet",
    sentences={
        "binding": (
            "the site's {subject} outlets carry {limit_w:,} W a cord: {left_out} build(s) whose cords would "
            "carry more are left out, the hungriest {gpu_count} × {gpu} in {chassis} at {cord_w:,} W a cord"
        ),
        "impossible": (
            "run {subject} fits only servers whose cords carry at least {need_w:,} W when their redundant "
            "supplies fail, and the site's {outlet} outlets carry {limit_w:,} W: ask for larger outlets"
        ),
    },
)
