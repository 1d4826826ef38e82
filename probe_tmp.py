import time
from pathlib import Path
from ftopt import load_catalogue, load_workload, solve, SolveSettings
cat = load_catalogue()
for name, lim in [("multinode-01", 5), ("heavy20-01", 5), ("ckpt-01", 5)]:
    w = load_workload(Path(f"benchmarks/instances/{name}.yaml"), cat)
    t=time.perf_counter(); r = solve(w, cat, SolveSettings(time_limit=lim, workers=2, what_if=True, alternatives=2)); wall=time.perf_counter()-t
    print(name, r.status, r.gap, round(wall,2), r.timings, [n.text for n in r.plan.notes if n.subject=="skipped"] if r.plan else None)
