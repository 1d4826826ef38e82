"""Plans built from solved ones for rendering tests (not a test module)."""

from __future__ import annotations

from collections import Counter

from ftopt.model.plan import Plan


def sixteen_servers(plan: Plan) -> Plan:
    """`plan`'s servers and copies repeated until there are sixteen servers, renamed s1…s16."""
    servers, assignments = [], []
    copies: Counter[str] = Counter()
    for n in range(16):
        source = plan.servers[n % len(plan.servers)]
        sid = f"s{n + 1}"
        servers.append(source.model_copy(update={"id": sid}))
        for a in plan.assignments:
            if a.server == source.id:
                copies[a.run] += 1
                assignments.append(a.model_copy(update={"server": sid, "copy_": copies[a.run]}))
    total = sum(s.price for s in servers)
    return plan.model_copy(update={"servers": servers, "assignments": assignments, "total_price": total})
