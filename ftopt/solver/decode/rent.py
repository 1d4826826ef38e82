"""Buy or rent: the plan's training hours priced on public clouds (ftopt.model.rent).

Why a module of its own: it is one of the last steps every returned plan takes, whichever search
made it (peak or queue), and needs only the plan and the catalogue's cloud rates.
"""

from __future__ import annotations

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.rent import rent_for


def with_rent(plan: Plan, catalogue: Catalogue) -> Plan:
    """The plan with its training hours priced on public clouds (buy or rent), when it trains hours."""
    return plan.model_copy(update={"rent": rent_for(plan, catalogue.cloud)})
