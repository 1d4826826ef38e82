"""The independent plan verifier: re-checks a plan against every rule, without the solver's code.

`verify_plan(plan, workload, catalogue)` returns the violations, one per broken rule and subject;
`load_plan(path)` reads a plan JSON file with errors that name the file and field. The rules live in
modules by concept: components (ids and server fields), placement (copies and GPUs), memory (how each
copy trains), roles (the models and rollout engine of DPO, GRPO and PPO copies), parallelism (its stated
training configuration), nvlink (bridges and domains), multinode (copies over several servers, NICs and
the fabric), spares (hot spare servers of such copies), host (RAM, cores, NVMe), supply (stock and lead
times), inventory (owned servers), site (power, feed, inlet, coolant), racks (rack, circuit, units,
load, liquid loop), prices (bills of materials, totals, status), timing (deadlines, run energy, TCO),
failures (checkpoints, interruptions and the hours they add), spread (hours at P50 and P90), schedule (a
queue bid's jobs over time), rent, and mig (GPU slices: each sliced card's layout, each copy's
instance).

The verifier's power, host-RAM, NVMe and price arithmetic repeats the solver's on purpose: a
second, independent derivation of each rule is what makes the check worth having, so these copies
are not to be merged with the solver's (a test asserts the verifier imports nothing from
`ftopt.solver`). What both share is the model layer's physics (`ftopt.model`: sizing, topology).

Rule names, as violations print them:

- parts: catalogue-id, server-fields, gpu-slots, dimm-channels, drive-bays, hardware-limits
- placement: server-id, unknown-run, run-summary, copies, gpu-index, gpu-shared, max-servers
- GPU slices (MIG): mig-layout, mig-slice
- training: strategy, optimizer, offload, gpu-count, gpu-memory, memory-margin, sizing-report
- RL roles: roles, role-memory, rollout-memory
- configuration: parallelism, training-config, state-split
- NVLink: bridge, nvlink-domains, sharded-domain, link-report, tensor-parallel-domain
- multi-node: multinode-nodes, multinode-servers, multinode-strategy, nic, fabric-ports, fabric-price
- spare servers: spares
- host: host-ram, cores, sockets, cpu-tdp, nvme
- site: power-cap, power-estimate, power-feed, power-supplies, feed, inlet, coolant
- racks: rack, rack-units, circuit-load, liquid-loop, rack-report
- money and status: bill-of-materials, one-card-model, server-price, total-price, currency, status, gap
- supply: stock, lead-time, owned
- time and energy: deadline, energy, tco
- failures: failures
- hours at a confidence: spread
- queue schedule: schedule, window, duration
- buy or rent: rent
"""

from ftopt.verify.reading import load_plan, parse_plan
from ftopt.verify.verifier import RULES, verify_plan
from ftopt.verify.violation import Violation

__all__ = ["RULES", "Violation", "load_plan", "parse_plan", "verify_plan"]
