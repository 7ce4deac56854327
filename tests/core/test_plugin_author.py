"""The plugin author's first hour: namespaced names, the default plot, `show` of list[choice], experiments in the harness."""

from __future__ import annotations

import types
import warnings
from typing import Literal

import pandas as pd
import pytest
from core_paths import FIRST_PARTY

import toolkit
from toolkit import Simulation
from toolkit.config import Field, Params
from toolkit.errors import PluginLoadWarning
from toolkit.registry import get_registry


class _NoParams(Params):
    pass


def _module(name: str, **hooks) -> types.ModuleType:
    mod = types.ModuleType(name)
    for hook, fn in hooks.items():
        setattr(mod, hook, toolkit.hookimpl(fn))
    return mod


def _sim(name: str) -> Simulation:
    return Simulation(name=name, func=lambda p, s: {"x": s}, params=_NoParams, description=name)


@pytest.mark.parametrize("bad_name", ["least_squares", "other.least_squares", "mine_extra.fit", "mine."])
def test_a_name_outside_the_plugins_namespace_is_refused_naming_the_plugin(bad_name):
    good = _module("good", toolkit_register_simulations=lambda: [_sim("good.sim")])
    mine = _module("mine", toolkit_register_simulations=lambda: [_sim("mine.ok"), _sim(bad_name)])
    with pytest.warns(
        PluginLoadWarning,
        match=rf"plugin 'mine'.*registers the simulation '{bad_name}' outside its "
        r"namespace.*must start with 'mine\.'",
    ):
        reg = get_registry(plugins=[good, mine], load_entrypoints=False)
    assert "good.sim" in reg.simulations and "mine.ok" not in reg.simulations  # skipped as a whole
    info = reg.manager.plugin_infos["mine"]
    assert info.status == "failed" and "outside its namespace" in info.error


@pytest.mark.parametrize(
    "hook", ["toolkit_register_bounds", "toolkit_register_datasets", "toolkit_register_experiments"]
)
def test_every_kind_is_namespaced(hook):
    from toolkit import Bound, Dataset, Experiment

    spec = {
        "toolkit_register_bounds": lambda: [Bound("bound", "unnamespaced")],
        "toolkit_register_datasets": lambda: [Dataset("data", "unnamespaced", loader=list)],
        "toolkit_register_experiments": lambda: [Experiment("exp", "unnamespaced", run=lambda q: None)],
    }[hook]
    with pytest.warns(PluginLoadWarning, match="plugin 'mine'.*outside its namespace"):
        get_registry(plugins=[_module("mine", **{hook: spec})], load_entrypoints=False)


def test_every_first_party_plugin_is_namespaced():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginLoadWarning)  # a namespace violation would be a warning
        reg = get_registry()
    for plugin in FIRST_PARTY:
        assert reg.manager.plugin_infos[plugin].status == "loaded", reg.manager.plugin_infos[plugin].error
        owned = reg.by_plugin(plugin)
        assert any(owned.values())
        for specs in owned.values():
            assert all(s.name.startswith(plugin + ".") for s in specs)


# -- the default plot ------------------------------------------------------------------------------------


class _Methods(Params):
    methods: list[Literal["gd", "sgd", "svrg"]] = Field(
        ["gd", "sgd", "svrg"], description="optimisers to compare"
    )
    lr: float = 0.1


def _methods_table() -> pd.DataFrame:
    rows = []
    for seed in (0, 1):
        for i, method in enumerate(("gd", "sgd", "svrg")):
            for step in (1, 2, 3):
                rows.append(
                    {
                        "methods": ["gd", "sgd", "svrg"],
                        "lr": 0.1,
                        "seed": seed,
                        "method": method,
                        "step": step,
                        "loss": (i + 1) / step + 0.01 * seed,
                    }
                )
    return pd.DataFrame(rows)


def test_the_default_plot_draws_one_line_per_categorical_value():
    from toolkit.report import plot_table

    sim = Simulation(name="t.opt", func=lambda p, s: {}, params=_Methods, description="optimisers")
    fig = plot_table(_methods_table(), sim=sim, x="step", y="loss")
    ax = fig.axes[0]
    assert sorted(line.get_label() for line in ax.get_lines()) == ["method=gd", "method=sgd", "method=svrg"]
    gd = next(line for line in ax.get_lines() if line.get_label() == "method=gd")
    assert list(gd.get_ydata()) == pytest.approx(
        [1.005, 0.505, 1.005 / 3 + 0.005 * (1 - 1 / 3)]
    )  # mean over seeds only


def test_the_default_plot_still_splits_by_a_varying_parameter():
    from toolkit.report import plot_table

    table = pd.concat([_methods_table().assign(lr=0.1), _methods_table().assign(lr=0.2)])
    sim = Simulation(name="t.opt", func=lambda p, s: {}, params=_Methods, description="optimisers")
    labels = {line.get_label() for line in plot_table(table, sim=sim, x="step", y="loss").axes[0].get_lines()}
    assert len(labels) == 6 and "lr=0.2, method=svrg" in labels


# -- show -------------------------------------------------------------------------------------------------


def _show(monkeypatch, name: str, params: type[Params]) -> None:
    """`toolkit show NAME` for a one-simulation plugin whose simulation takes ``params``."""
    from toolkit.cli import _State, main

    sim = Simulation(name=name, func=lambda p, s: {}, params=params, description="d")
    plugin = _module(name.split(".")[0], toolkit_register_simulations=lambda: [sim])
    reg = get_registry(plugins=[plugin], load_entrypoints=False)
    monkeypatch.setattr(_State, "registry", property(lambda self: reg))
    main(["show", name])


def test_show_lists_the_allowed_values_of_a_list_of_choices(capsys, monkeypatch):
    _show(monkeypatch, "opt.compare", _Methods)
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("methods"))
    assert "each one of 'gd', 'sgd', 'svrg'" in line


def test_a_bad_element_of_a_list_of_choices_names_the_allowed_values():
    from toolkit.config import validate_params
    from toolkit.errors import ParameterError

    with pytest.raises(ParameterError, match="each one of 'gd', 'sgd', 'svrg'"):
        validate_params(_Methods, {"methods": ["gd", "adam"]}, owner="opt.compare")


# -- experiments in the harness ----------------------------------------------------------------------------


def test_the_harness_checks_and_runs_experiments(registry):
    from toolkit.testing import experiment_checks

    checks = experiment_checks("example", registry=registry)
    assert [c.id for c in checks] == [
        "example.drift:well_formed",
        "example.drift:quick_run",
        "example.range:well_formed",
        "example.range:quick_run",
    ]
    for check in checks:
        check()
    assert [c.id for c in experiment_checks("example", registry=registry, quick=["example.range"])][
        -1
    ] == "example.range:quick_run"
    assert all(
        c.id.endswith(":well_formed") for c in experiment_checks("example", registry=registry, quick=False)
    )
    with pytest.raises(LookupError, match="no experiment.*example.nope"):
        experiment_checks("example", registry=registry, quick=["example.nope"])


def test_the_harness_catches_a_broken_experiment():
    from toolkit import Comparison, Experiment, ExperimentOutcome
    from toolkit.testing import check_plugin, experiment_checks

    def returns_a_table(quick):
        return pd.DataFrame({"a": [1]})

    def bad_comparison(quick):
        return ExperimentOutcome(
            table=pd.DataFrame({"a": [1]}), comparisons=[Comparison("c", "1", "1", ok="yes")]
        )

    def empty(quick):
        return ExperimentOutcome(table=pd.DataFrame())

    def plots_nothing(quick):
        return ExperimentOutcome(table=pd.DataFrame({"a": [1]}), plot=lambda fig: None)

    exps = [
        Experiment("bad.table", "returns a DataFrame", run=returns_a_table),
        Experiment("bad.ok", "ok is a string", run=bad_comparison),
        Experiment("bad.empty", "empty table", run=empty),
        Experiment("bad.plot", "plot draws nothing", run=plots_nothing),
        Experiment("bad.args", "run takes no quick", run=lambda: None),
        Experiment("bad.nodoc", " ", run=empty),
    ]
    reg = get_registry(
        plugins=[_module("bad", toolkit_register_experiments=lambda: exps)], load_entrypoints=False
    )
    failures = {}
    for check in experiment_checks("bad", registry=reg):
        try:
            check()
        except Exception as exc:
            failures[check.id] = str(exc)
    assert "not ExperimentOutcome" in failures["bad.table:quick_run"]
    assert "ok must be True, False or None" in failures["bad.ok:quick_run"]
    assert "table is empty" in failures["bad.empty:quick_run"]
    assert "drew no axes" in failures["bad.plot:quick_run"]
    assert "cannot be called with one argument" in failures["bad.args:well_formed"]
    assert "no description" in failures["bad.nodoc:well_formed"]
    only_table = get_registry(
        plugins=[_module("bad", toolkit_register_experiments=lambda: exps[:1])], load_entrypoints=False
    )
    assert [f for f, _ in check_plugin("bad", registry=only_table, experiments=True)] == [
        "bad.table:quick_run"
    ]


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_first_party_experiments_are_well_formed(plugin):
    from toolkit.testing import experiment_checks

    reg = get_registry()
    checks = experiment_checks(plugin, registry=reg, quick=False)
    assert checks, f"{plugin} registers no headline experiment"
    for check in checks:
        check()


CHEAPEST_FIRST_PARTY_EXPERIMENT = (
    "sbayfdnn.pip_closed_form"  # 0.5 s in quick mode (the others take seconds to minutes)
)


def test_the_cheapest_first_party_experiment_runs_in_the_harness():
    from toolkit.testing import experiment_checks

    reg = get_registry()
    plugin = reg.experiment(CHEAPEST_FIRST_PARTY_EXPERIMENT).plugin
    checks = [
        c
        for c in experiment_checks(plugin, registry=reg, quick=[CHEAPEST_FIRST_PARTY_EXPERIMENT])
        if c.id.endswith(":quick_run")
    ]
    assert [c.id for c in checks] == [f"{CHEAPEST_FIRST_PARTY_EXPERIMENT}:quick_run"]
    checks[0]()


def _every_first_party_quick_run():
    from toolkit.testing import experiment_checks

    reg = get_registry()
    return [c for p in FIRST_PARTY for c in experiment_checks(p, registry=reg) if c.id.endswith(":quick_run")]


@pytest.mark.slow
@pytest.mark.parametrize("check", _every_first_party_quick_run(), ids=str)
def test_every_first_party_experiment_runs_in_quick_mode(check):
    check()  # a missing dataset skips (tests/conftest.py), with the fetch command


class _LongDescription(Params):
    names: tuple[str, ...] = Field(
        ("a",),
        description="the names to compare, each a registered one; the table keeps them in this order, "
        "and an empty tuple means every name",
    )


def test_show_prints_a_long_description_whole_and_a_variable_tuple_as_dots(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    _show(monkeypatch, "longdoc.sim", _LongDescription)
    out = capsys.readouterr().out
    assert "tuple[str, ...]" in out and "Ellipsis" not in out
    assert "an empty tuple means every name" in " ".join(out.split())
