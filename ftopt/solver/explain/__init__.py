"""Explanations: why a bid has no plan (prechecks and infeasibility cores), which rules bind, and
what easing one would save (what-if re-solves)."""
