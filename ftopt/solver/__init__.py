"""The solver, by phase: problem/ (data), cpsat/ (formulation), search/, decode/ (to a plan) and
explain/. `ftopt.solver.solve.solve` and `ftopt.solver.frontier.frontier` are the entry points.

Knows nothing of click or rendering.
"""
