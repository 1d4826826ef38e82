"""`verify_plan`: every rule, in a fixed order, over one plan, its workload and its catalogue.

The verifier re-derives each rule from the plan's ids and choices, the workload and the catalogue,
using only the model layer (`ftopt.model`: sizing arithmetic and server topology). It never imports
the solver, so a rule the solver forgets or gets wrong shows up here rather than being repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.verify import (
    components,
    failures,
    host,
    inventory,
    memory,
    mig,
    multinode,
    nvlink,
    parallelism,
    placement,
    prices,
    racks,
    rent,
    roles,
    schedule,
    site,
    spares,
    spread,
    supply,
    timing,
)
from ftopt.verify.context import Context
from ftopt.verify.violation import Violation

Rule = Callable[[Context], Iterable[Violation]]

#: The rules in the order their violations are listed: parts, placement, memory, NVLink, multi-node
#: and fabric, host, site, money, time, the queue's schedule, buy or rent.
RULES: tuple[Rule, ...] = (
    components.check_catalogue_ids,
    components.check_server_fields,
    components.check_gpu_slots,
    components.check_dimm_channels,
    components.check_drive_bays,
    components.check_hardware_limits,
    placement.check_server_ids,
    placement.check_known_runs,
    placement.check_run_summaries,
    placement.check_copies,
    placement.check_gpu_indices,
    placement.check_gpu_sharing,
    mig.check_mig_layouts,
    mig.check_mig_slices,
    placement.check_max_servers,
    memory.check_strategy,
    memory.check_optimizer,
    memory.check_offload,
    memory.check_gpu_count,
    parallelism.check_parallelism_product,
    parallelism.check_configuration,
    parallelism.check_state_split,
    memory.check_gpu_memory,
    roles.check_role_layout,
    roles.check_role_memory,
    roles.check_rollout_memory,
    memory.check_sizing_report,
    memory.check_margin_report,
    memory.check_measured_headroom,
    memory.check_tight_margin_note,
    nvlink.check_bridges,
    nvlink.check_nvlink_domains,
    nvlink.check_sharded_domains,
    nvlink.check_link_report,
    parallelism.check_tensor_parallel_domain,
    multinode.check_multinode_nodes,
    multinode.check_whole_servers,
    multinode.check_multinode_strategy,
    multinode.check_nics,
    multinode.check_fabric_ports,
    multinode.check_fabric_price,
    spares.check_spares,
    host.check_host_ram,
    host.check_cores,
    host.check_sockets,
    host.check_cpu_tdp,
    host.check_nvme,
    *site.RULES,
    racks.check_rack_places,
    racks.check_rack_units,
    racks.check_circuit_load,
    racks.check_liquid_loop,
    racks.check_rack_report,
    prices.check_bill_of_materials,
    prices.check_one_card_model,
    prices.check_server_price,
    prices.check_total_price,
    inventory.check_owned,
    supply.check_stock,
    supply.check_lead_time,
    prices.check_currency,
    prices.check_status,
    prices.check_gap,
    timing.check_deadlines,
    timing.check_energy,
    timing.check_tco,
    failures.check_failures,
    spread.check_spread,
    schedule.check_schedule_entries,
    schedule.check_windows,
    schedule.check_durations,
    rent.check_rent,
)


def verify_plan(plan: Plan, workload: Workload, catalogue: Catalogue) -> list[Violation]:
    """Every rule the plan breaks, one `Violation` per fault; an empty list means the plan is valid."""
    ctx = Context.build(plan, workload, catalogue)
    return [violation for rule in RULES for violation in rule(ctx)]
