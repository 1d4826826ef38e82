"""Many bids at once: `ftopt sweep` solves one workload under every scenario of a grid.

- `grid`: the grid file, its checks and its scenarios (cross × zip).
- `scenario`: one scenario applied to the workload, validated and solved in a worker.
- `backends`: local worker processes or Ray; a dead worker costs an attempt, never a scenario.
- `store`: the JSON-lines results file, safe to stop at any moment and to resume.
- `runner`: a sweep end to end; `report`: tables and charts of a results file.

Nothing here imports OR-Tools (or Ray) until a scenario is solved.
"""
