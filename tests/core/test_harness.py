"""toolkit.testing: the harness plugin authors use, applied to the example plugin, and shown to fail."""

from __future__ import annotations

import dataclasses
import types

import pytest

import toolkit
from toolkit import Simulation
from toolkit.config import Params
from toolkit.registry import get_registry
from toolkit.symbolic import Inequality
from toolkit.testing import check_plugin, plugin_checks


def test_example_plugin_passes_every_check(registry):
    checks = plugin_checks("example", registry=registry)
    ids = {str(c) for c in checks}
    assert {
        "example.random_walk:defaults",
        "example.random_walk:quick_run",
        "example.random_walk:deterministic",
        "example.random_walk:store_roundtrip",
        "example.walk_range:claims",
        "example.walk_range:bound_expression",
    } <= ids
    assert check_plugin("example", registry=registry) == []


class P(Params):
    pass


def _unseeded(params, seed):
    import random

    return {"value": random.SystemRandom().random()}  # ignores the seed: must be caught


def _plugin(**hooks):
    mod = types.ModuleType("faulty")
    for name, fn in hooks.items():
        setattr(mod, name, toolkit.hookimpl(fn))
    return mod


def test_nondeterministic_simulation_fails_the_harness():
    mod = _plugin(toolkit_register_simulations=lambda: [Simulation("faulty.sim", _unseeded, P, "unseeded")])
    reg = get_registry(plugins=[mod], load_entrypoints=False)
    failures = dict(check_plugin("faulty", registry=reg))
    assert "the same seed gave different results" in failures["faulty.sim:deterministic"]


def test_wrong_expected_verdict_fails_the_harness():
    import sympy as sp

    n = sp.Symbol("n", positive=True, integer=True)
    bound = toolkit.Bound(
        "faulty.bound", "a false claim said to be proved", claims=(Inequality("n^2 <= n", lhs=n**2, rhs=n),)
    )
    reg = get_registry(plugins=[_plugin(toolkit_register_bounds=lambda: [bound])], load_entrypoints=False)
    failures = dict(check_plugin("faulty", registry=reg))
    assert (
        "verdict 'refuted'" in failures["faulty.bound:claims"]
        and "expected 'proved'" in failures["faulty.bound:claims"]
    )
    fixed = dataclasses.replace(bound, claims=(dataclasses.replace(bound.claims[0], expect="refuted"),))
    reg = get_registry(plugins=[_plugin(toolkit_register_bounds=lambda: [fixed])], load_entrypoints=False)
    assert check_plugin("faulty", registry=reg) == []


def test_violated_bound_fails_the_quick_run(registry):
    from toolkit_example import bounds as example_bounds

    tight = dataclasses.replace(
        example_bounds.WALK_RANGE, name="faulty.walk_range", expression=example_bounds.step / 1000
    )
    sim = registry.simulation("example.random_walk")
    mod = _plugin(
        toolkit_register_simulations=lambda: [
            dataclasses.replace(sim, name="faulty.walk", plugin="", bounds=("faulty.walk_range",))
        ],
        toolkit_register_bounds=lambda: [tight],
    )
    reg = get_registry(plugins=[mod], load_entrypoints=False)
    failures = dict(check_plugin("faulty", registry=reg))
    assert "violates its bounds" in failures["faulty.walk:quick_run"]


def test_unknown_plugin_is_a_clear_error(registry):
    with pytest.raises(LookupError, match="registers nothing"):
        plugin_checks("nope", registry=registry)
