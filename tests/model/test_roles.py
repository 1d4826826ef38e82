"""Every role of a preference or RL copy holds the memory its rule says, on the GPUs it is placed on:
the policy as a supervised run, the reference and reward models as frozen BF16 weights, PPO's critic
as the policy's states again, and the rollout engine its share of each GPU."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.fabric import fabric_nic, node_network
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import GB
from ftopt.model.methods import Phase
from ftopt.model.rl import (
    Layout,
    is_rl,
    placement_choices,
    policy_profile,
    rl_phases,
    size_rl,
    size_rl_multinode,
)
from ftopt.model.roles import Role
from ftopt.model.rollout import RolloutConstants
from ftopt.model.sizing import CopySetup, RunProfile, Sizing, profile_run, size_run
from ftopt.model.workload import Offload, Optimizer, Placement, Run, SizingOptions, Strategy

OPTIONS = SizingOptions()


@pytest.fixture(scope="module")
def constants() -> RolloutConstants:
    return load_catalogue().rollout


def _run(**fields: Any) -> Run:
    base = {"name": "rl", "model": "llama-3.1-8b"}
    return Run.model_validate({**base, **fields})


def _size(
    catalogue: Catalogue,
    constants: RolloutConstants,
    run: Run,
    total: int = 4,
    placement: Placement | None = None,
    engine: int = 0,
    card: str = "h200-nvl",
) -> tuple[Sizing, Gpu]:
    profile = profile_run(run, catalogue)
    gpu = catalogue.gpu(card)
    strategy = Strategy.FSDP if total - engine > 1 else Strategy.SINGLE
    layout = Layout(total, placement, engine, strategy, Optimizer.ADAMW_32BIT, Offload.NONE)
    return size_rl(profile, gpu, layout, OPTIONS, constants), gpu


def _role(sizing: Sizing, role: Role) -> float:
    found = [r for r in sizing.roles if r.role == role]
    assert len(found) == 1, f"{role} listed {len(found)} times"
    return found[0].memory_gb


def _roles(sizing: Sizing) -> set[Role]:
    return {r.role for r in sizing.roles}


def test_policy_holds_what_the_same_supervised_run_holds(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    sizing, gpu = _size(catalogue, constants, _run(method="grpo", rollout={}), 4, Placement.COLOCATED)
    supervised = _run(method="full", seq_len=512 + 1024)
    alone = size_run(
        CopySetup(
            profile_run(supervised, catalogue),
            gpu,
            4,
            Strategy.FSDP,
            Optimizer.ADAMW_32BIT,
            Offload.NONE,
            OPTIONS,
        ),
    )
    assert _role(sizing, Role.POLICY) == pytest.approx(alone.total_gb)
    assert sizing.states_gb == pytest.approx(alone.states_gb)


def test_dpo_policy_holds_chosen_and_rejected_sequences(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    dpo, gpu = _size(catalogue, constants, _run(method="dpo", adapter="lora", micro_batch=2))
    pairs = _run(method="lora", micro_batch=4)
    alone = size_run(
        CopySetup(
            profile_run(pairs, catalogue), gpu, 4, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS
        )
    )
    assert dpo.activations_gb == pytest.approx(alone.activations_gb)
    assert _roles(dpo) == {Role.POLICY}  # with LoRA the base model is the reference


def test_reference_is_frozen_bf16_weights_sharded_over_the_training_gpus(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    total = profile_run(_run(method="full"), catalogue).counts.total
    sizing, _ = _size(catalogue, constants, _run(method="dpo"), 4)
    assert _role(sizing, Role.REFERENCE) == pytest.approx(total * 2 / 4 / GB)
    split, _ = _size(catalogue, constants, _run(method="grpo", rollout={}), 8, Placement.SEPARATE, engine=2)
    assert _role(split, Role.REFERENCE) == pytest.approx(total * 2 / 6 / GB)


def test_precomputed_reference_and_adapters_drop_the_reference(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    precomputed, _ = _size(catalogue, constants, _run(method="dpo", reference="precomputed"))
    qlora, _ = _size(
        catalogue, constants, _run(method="grpo", adapter="qlora", rollout={}), 4, Placement.COLOCATED
    )
    assert Role.REFERENCE not in _roles(precomputed) | _roles(qlora)
    with_ref, _ = _size(catalogue, constants, _run(method="dpo"))
    assert with_ref.total_gb - precomputed.total_gb == pytest.approx(_role(with_ref, Role.REFERENCE))


def test_reward_model_by_id_and_inline(catalogue: Catalogue, constants: RolloutConstants) -> None:
    reward_total = profile_run(_run(model="qwen3-8b", method="full"), catalogue).counts.total
    by_id, _ = _size(
        catalogue, constants, _run(method="grpo", reward_model="qwen3-8b", rollout={}), 4, Placement.COLOCATED
    )
    assert _role(by_id, Role.REWARD) == pytest.approx(reward_total * 2 / 4 / GB)
    arch = catalogue.model("qwen3-8b").architecture.model_dump()
    inline = _run(method="grpo", reward_model={"name": "rm", "architecture": arch}, rollout={})
    sizing, _ = _size(catalogue, constants, inline, 4, Placement.COLOCATED)
    assert _role(sizing, Role.REWARD) == pytest.approx(_role(by_id, Role.REWARD))


def test_ppo_critic_holds_the_policys_states(catalogue: Catalogue, constants: RolloutConstants) -> None:
    ppo, _ = _size(catalogue, constants, _run(method="ppo", rollout={}), 8, Placement.COLOCATED)
    grpo, _ = _size(catalogue, constants, _run(method="grpo", rollout={}), 8, Placement.COLOCATED)
    assert _role(ppo, Role.CRITIC) == pytest.approx(ppo.states_gb)
    assert Role.CRITIC not in _roles(grpo)
    assert ppo.total_gb - grpo.total_gb == pytest.approx(_role(ppo, Role.CRITIC))


def test_colocated_engine_takes_its_fraction_of_every_gpu(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    run = _run(method="grpo", rollout={"memory_fraction": 0.3})
    sizing, gpu = _size(catalogue, constants, run, 4, Placement.COLOCATED)
    engine = next(r for r in sizing.roles if r.role == Role.ROLLOUT)
    assert (engine.gpus, engine.first) == (4, 0)
    assert engine.memory_gb == pytest.approx(0.3 * gpu.memory_gb)
    others = sum(r.memory_gb for r in sizing.roles if r.role != Role.ROLLOUT)
    # The engine sleeps while the policy trains; the activations are freed while it generates.
    assert constants.engine_in_training == "nothing" and constants.training_in_generation == "states"
    assert sizing.training_phase_gb == pytest.approx(others)
    generation = 0.3 * gpu.memory_gb + others - sizing.activations_gb
    assert sizing.generation_gb == pytest.approx(generation)
    assert sizing.total_gb == pytest.approx(max(others, generation))
    assert sizing.total_gb < others + 0.3 * gpu.memory_gb  # the phases take turns: no sum


@pytest.mark.parametrize(
    ("engine_in_training", "training_in_generation"),
    [("everything", "states"), ("weights", "states"), ("nothing", "nothing")],
)
def test_colocated_peak_follows_what_each_phase_keeps(
    catalogue: Catalogue, constants: RolloutConstants, engine_in_training: str, training_in_generation: str
) -> None:
    kept = constants.model_copy(
        update={"engine_in_training": engine_in_training, "training_in_generation": training_in_generation}
    )
    run = _run(method="grpo", rollout={"memory_fraction": 0.3})
    sizing, gpu = _size(catalogue, kept, run, 4, Placement.COLOCATED)
    others = sum(r.memory_gb for r in sizing.roles if r.role != Role.ROLLOUT)
    share = 0.3 * gpu.memory_gb
    idle = {"everything": share, "weights": run_weights_gb(catalogue, 1), "nothing": 0.0}[engine_in_training]
    assert sizing.training_phase_gb == pytest.approx(others + idle)
    held = others - sizing.activations_gb if training_in_generation == "states" else sizing.overhead_gb
    assert sizing.generation_gb == pytest.approx(share + held)
    assert sizing.total_gb == pytest.approx(max(others + idle, share + held))


def run_weights_gb(catalogue: Catalogue, tp: int) -> float:
    """Llama 3.1 8B's BF16 weights over `tp` GPUs, GB."""
    return profile_run(_run(method="full"), catalogue).counts.total * 2 / tp / GB


def test_a_separate_engine_leaves_the_training_gpus_peak_alone(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    sizing, _ = _size(catalogue, constants, _run(method="grpo", rollout={}), 8, Placement.SEPARATE, engine=2)
    others = sum(r.memory_gb for r in sizing.roles if r.role != Role.ROLLOUT)
    assert sizing.generation_gb == 0.0 and sizing.total_gb == pytest.approx(others)


def test_separate_engine_has_gpus_of_its_own(catalogue: Catalogue, constants: RolloutConstants) -> None:
    sizing, gpu = _size(
        catalogue, constants, _run(method="grpo", rollout={}), 8, Placement.SEPARATE, engine=2
    )
    engine = next(r for r in sizing.roles if r.role == Role.ROLLOUT)
    assert (engine.gpus, engine.first, sizing.train_gpus, sizing.gpus) == (2, 6, 6, 8)
    assert engine.memory_gb == pytest.approx(constants.separate_memory_fraction * gpu.memory_gb)
    assert all(r.gpus == 6 and r.first == 0 for r in sizing.roles if r.role != Role.ROLLOUT)
    assert sizing.total_gb == pytest.approx(sum(r.memory_gb for r in sizing.roles if r.role != Role.ROLLOUT))


def test_an_engine_whose_weights_do_not_fit_its_share_does_not_fit(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    run = _run(model="llama-3.3-70b", method="grpo", adapter="lora", rollout={"memory_fraction": 0.05})
    sizing, _ = _size(catalogue, constants, run, 8, Placement.COLOCATED)
    assert not sizing.rollout_fits and not sizing.fits
    roomy = _run(model="llama-3.3-70b", method="grpo", adapter="lora", rollout={"memory_fraction": 0.5})
    assert _size(catalogue, constants, roomy, 8, Placement.COLOCATED)[0].rollout_fits


def test_disk_holds_the_reward_model_and_the_critics_checkpoints(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    grpo_run = _run(method="grpo", keep_checkpoints=2, rollout={})
    grpo, _ = _size(catalogue, constants, grpo_run, 4, Placement.COLOCATED)
    ppo_run = _run(method="ppo", reward_model="qwen3-8b", keep_checkpoints=2, rollout={})
    ppo, _ = _size(catalogue, constants, ppo_run, 4, Placement.COLOCATED)
    reward = profile_run(_run(model="qwen3-8b", method="full"), catalogue).counts.total * 2 / GB
    assert ppo.nvme_gb - grpo.nvme_gb == pytest.approx(reward + 2 * ppo.checkpoint_gb)


def test_multinode_roles_shard_over_every_gpu_and_the_engine_colocates(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    gpu = catalogue.gpu("b200-sxm")
    nic = fabric_nic(catalogue, catalogue.chassis_by_id("hgx-b200-8gpu"))
    assert nic is not None
    net = node_network(gpu, 8, nic, 8, catalogue.speed)
    run = _run(model="llama-3.3-70b", method="grpo", rollout={"memory_fraction": 0.4})
    profile = profile_run(run, catalogue)
    sizing = size_rl_multinode(
        CopySetup(profile, gpu, 16, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS),
        net,
        constants,
    )
    assert sizing is not None and sizing.placement == Placement.COLOCATED
    assert _role(sizing, Role.REFERENCE) == pytest.approx(profile.counts.total * 2 / 16 / GB)
    assert all(r.gpus == 8 and r.first == 0 for r in sizing.roles)  # one server's GPUs, on each server
    separate = _run(model="llama-3.3-70b", method="grpo", rollout={"placement": "separate"})
    setup = CopySetup(
        profile_run(separate, catalogue), gpu, 16, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS
    )
    assert size_rl_multinode(setup, net, constants) is None


def _with_algorithm(profile: RunProfile, **entry: Any) -> RunProfile:
    """The profile with its algorithm's registry entry changed: what a new entry in methods.yaml does."""
    algorithm = profile.algorithm.model_copy(update=entry)
    return replace(profile, algorithm=algorithm)


def test_a_critic_in_the_registry_entry_is_all_it_takes(
    catalogue: Catalogue, constants: RolloutConstants
) -> None:
    """GRPO's entry with a critic among its roles sizes and times a critic, as PPO's does: rl.py and
    roles.py read the entry, not the algorithm's name."""
    gpu = catalogue.gpu("h200-nvl")
    grpo = profile_run(_run(method="grpo", rollout={}), catalogue)
    ppo = profile_run(_run(method="ppo", rollout={}), catalogue)
    critical = _with_algorithm(grpo, roles=(*grpo.algorithm.roles, Role.CRITIC))
    layout = Layout(8, Placement.COLOCATED, 0, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE)
    sized = {
        name: size_rl(p, gpu, layout, OPTIONS, constants)
        for name, p in (("grpo", grpo), ("ppo", ppo), ("critical", critical))
    }
    assert Role.CRITIC not in _roles(sized["grpo"])
    assert _role(sized["critical"], Role.CRITIC) == pytest.approx(_role(sized["ppo"], Role.CRITIC))
    assert sized["critical"].nvme_gb == pytest.approx(sized["ppo"].nvme_gb)
    assert catalogue.speed is not None and grpo.stack is not None
    phases = {
        name: rl_phases(p, sized[name], gpu, 10.0, None, catalogue.speed, constants)
        for name, p in (("grpo", grpo), ("critical", critical))
    }
    assert phases["grpo"].critic == 0.0 and phases["critical"].critic > 10.0


def test_sequences_per_sample_and_generation_come_from_the_entry(catalogue: Catalogue) -> None:
    dpo = profile_run(_run(method="dpo"), catalogue)
    assert policy_profile(dpo).run.micro_batch_choices[0] == 2 * dpo.run.micro_batch_choices[0]
    triples = _with_algorithm(dpo, sequences_per_sample=3)
    assert policy_profile(triples).run.micro_batch_choices[0] == 3 * dpo.run.micro_batch_choices[0]
    grpo = profile_run(_run(method="grpo", rollout={}), catalogue)
    assert placement_choices(grpo, 8)[0][0] is not None
    no_engine = _with_algorithm(grpo, phases=tuple(p for p in grpo.algorithm.phases if p != Phase.GENERATION))
    assert placement_choices(no_engine, 8) == [(None, 0)]
    assert is_rl(grpo) and not is_rl(_with_algorithm(grpo, roles=(Role.POLICY,)))
