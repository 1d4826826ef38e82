"""The CP-SAT formulation: variables, one module per constraint family, the objective, and the
formulation that assembles them. Reads problem data; knows nothing of search or plans."""
