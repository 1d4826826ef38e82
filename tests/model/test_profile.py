"""A run's profile: the catalogue entries every model rule reads, resolved once."""

from __future__ import annotations

from ftopt.model.architecture import count_params
from ftopt.model.hardware import Catalogue
from ftopt.model.profile import RunProfile
from ftopt.model.sizing import profile_run
from ftopt.model.workload import Run


def test_a_profile_holds_the_runs_entries_and_counts_its_models(catalogue: Catalogue) -> None:
    run = Run.model_validate(
        {
            "name": "r",
            "model": "llama-3.1-8b",
            "method": "grpo",
            "adapter": "lora",
            "reward_model": "llama-3.1-8b",
            "rollout": {},
        }
    )
    profile = profile_run(run, catalogue)
    assert isinstance(profile, RunProfile)
    assert profile.method == catalogue.methods.method("lora")
    assert profile.algorithm == catalogue.methods.algorithm("grpo")
    assert profile.counts == count_params(catalogue.model("llama-3.1-8b").architecture)
    assert profile.reward_counts == profile.counts  # the same model as the reward


def test_no_reward_model_counts_nothing(catalogue: Catalogue) -> None:
    profile = profile_run(Run(name="r", model="llama-3.1-8b", method="full"), catalogue)
    assert profile.reward_counts is None and profile.counts.total > 8e9
