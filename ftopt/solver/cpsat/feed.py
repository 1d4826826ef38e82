"""Rule family: the site's feed, the watts one server may draw (a site without racks).

The feed filters builds where they are made (`ftopt.solver.problem.builds`): each build takes the
highest card setting its feed powers, and a build no setting powers is left out with a `feed`
finding. So the family has no constraints of its own; it owns the binding lines (a feed that caps
a server's cards below full power) and the what-if (the next larger feed). A racked site is eased
through its circuits instead (the racks family's `circuit` relaxation).
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Relaxation, site
from ftopt.solver.problem.data import ProblemData


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """Servers whose feed caps their cards below the card's full power."""
    return [
        finding(
            FindingKind.POWER_CAP,
            server.id,
            feed=server.feed,
            feed_usable_w=server.feed_usable_w,
            gpu_count=server.gpu_count,
            gpu=server.gpu,
            cap_w=server.gpu_power_cap_w,
        )
        for server in plan.servers
        if server.gpu_power_cap_w < data.catalogue.gpu(server.gpu).power_w
    ]


def relax(data: ProblemData) -> list[Relaxation]:
    """The next larger feed of the catalogue (none for racked sites, none above the largest)."""
    if data.workload.site.racks is not None:
        return []
    current = data.catalogue.feed(data.workload.site.feed).usable_w
    bigger = sorted((f for f in data.catalogue.feeds if f.usable_w > current), key=lambda f: f.usable_w)
    if not bigger:
        return []
    feed = bigger[0].id
    return [Relaxation(RelaxationId.FEED, f"a {feed} feed", site(data, feed=feed))]


Feed = Family(
    name="feed",
    relaxations=(RelaxationId.FEED,),
    verifier_rules=("feed", "power-feed", "power-cap"),
    workload_fields=("site.feed",),
    catalogue_fields=(
        "feeds[].volts",
        "feeds[].amps",
        "feeds[].derating",
        "gpus[].power_w",
        "gpus[].power_caps_w",
    ),
    relax=relax,
    explain=explain,
)
