"""The solver: server builds, training modes, the CP-SAT model and the plan it decodes to.

Knows nothing of click or rendering; `ftopt.solver.solve.solve` is the library entry point.
"""
