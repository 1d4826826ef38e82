"""Searching the formulation: CP-SAT runs (price stage, tie-break stage), the greedy plan in hand and
its hint, LP column selection for many configurations, and the next-cheapest alternatives."""
