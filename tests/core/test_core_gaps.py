"""Behaviours added after the first review: broken register hooks, shared names across kinds,
strict proving, overflowing bounds, huge-argument spot-checks, symbolic limits and inf in lists."""

from __future__ import annotations

import types

import pytest
import sympy

import toolkit
from toolkit import Bound, Simulation
from toolkit.config import Params, parse_grid, parse_value
from toolkit.errors import ParameterError, PluginLoadWarning, UnknownNameError
from toolkit.registry import get_registry
from toolkit.symbolic import Asymptotic, Identity, Limit


class _NoParams(Params):
    pass


def _plugin(name: str, **hooks) -> types.ModuleType:
    mod = types.ModuleType(name)
    for hook, func in hooks.items():
        setattr(mod, hook, toolkit.hookimpl(func))
    return mod


def _sim(name: str) -> Simulation:
    return Simulation(name=name, func=lambda p, s: {"x": s}, params=_NoParams, description=name)


def test_a_plugin_whose_register_hook_raises_is_skipped_with_a_warning():
    good = _plugin("good_plugin", toolkit_register_simulations=lambda: [_sim("good_plugin.sim")])

    def explode():
        raise RuntimeError("bounds table corrupted")

    bad = _plugin(
        "bad_plugin",
        toolkit_register_simulations=lambda: [_sim("bad_plugin.sim")],
        toolkit_register_bounds=explode,
    )
    with pytest.warns(
        PluginLoadWarning,
        match="bad_plugin.*toolkit_register_bounds raised RuntimeError: bounds table corrupted",
    ):
        reg = get_registry(plugins=[good, bad], load_entrypoints=False)
    assert "good_plugin.sim" in reg.simulations
    assert "bad_plugin.sim" not in reg.simulations  # skipped as a whole, not half-registered
    assert reg.manager.plugin_infos["bad_plugin"].status == "failed"
    assert "corrupted" in reg.manager.plugin_infos["bad_plugin"].error


def test_plugin_checks_of_a_good_plugin_work_beside_a_broken_one():
    from toolkit.testing import plugin_checks

    good = _plugin("good_plugin", toolkit_register_simulations=lambda: [_sim("good_plugin.sim")])
    bad = _plugin("bad_plugin", toolkit_register_simulations=lambda: 1 / 0)
    with pytest.warns(PluginLoadWarning):
        reg = get_registry(plugins=[good, bad], load_entrypoints=False)
    checks = plugin_checks("good_plugin", registry=reg)
    assert [c.id for c in checks][:2] == ["good_plugin.sim:defaults", "good_plugin.sim:quick_run"]
    with pytest.raises(LookupError, match="bad_plugin"):
        plugin_checks("bad_plugin", registry=reg)


def _shared_name_registry():
    from toolkit.specs import Dataset

    mod = _plugin(
        "shared_plugin",
        toolkit_register_simulations=lambda: [_sim("shared_plugin.thing")],
        toolkit_register_datasets=lambda: [
            Dataset(
                name="shared_plugin.thing",
                description="data",
                loader=lambda p, seed=0: [1, 2],
                params=_NoParams,
            )
        ],
    )
    return get_registry(plugins=[mod], load_entrypoints=False)


def test_one_name_for_a_dataset_and_a_simulation():
    reg = _shared_name_registry()
    assert [k for k, _ in reg.find_all("shared_plugin.thing")] == ["simulation", "dataset"]
    assert reg.find("shared_plugin.thing", kind="dataset")[0] == "dataset"
    with pytest.raises(ParameterError, match="names a simulation and a dataset.*kind="):
        reg.find("shared_plugin.thing")
    with pytest.raises(UnknownNameError, match="unknown bound"):
        reg.find("shared_plugin.thing", kind="bound")
    with pytest.raises(UnknownNameError, match="Did you mean: shared_plugin.thing"):
        reg.find_all("shared_plugin.thnig")


def test_cli_show_prints_every_kind_sharing_a_name(monkeypatch):
    from click.testing import CliRunner

    from toolkit import cli as cli_module

    reg = _shared_name_registry()
    monkeypatch.setattr(cli_module._State, "registry", property(lambda self: reg))
    both = CliRunner().invoke(cli_module.cli, ["show", "shared_plugin.thing"])
    assert both.exit_code == 0, both.output
    assert (
        "(simulation, plugin shared_plugin)" in both.output
        and "(dataset, plugin shared_plugin)" in both.output
    )
    one = CliRunner().invoke(cli_module.cli, ["show", "shared_plugin.thing", "--kind", "dataset"])
    assert "(dataset," in one.output and "(simulation," not in one.output


def _claims_registry(expect: str):
    n = sympy.Symbol("n", positive=True)
    bound = Bound(
        name="claims_plugin.demo",
        description="demo",
        claims=(
            Identity("square", lhs=(n + 1) ** 2, rhs=n**2 + 2 * n + 1),
            Identity(
                "false on purpose",
                lhs=n + 1,
                rhs=n,
                expect=expect,
                description="n + 1 = n is false: stated to show the checker refutes it",
            ),
        ),
    )
    return get_registry(
        plugins=[_plugin("claims_plugin", toolkit_register_bounds=lambda: [bound])], load_entrypoints=False
    )


def test_prove_bounds_reports_expected_verdicts():
    from toolkit.proving import prove_bounds, summary_line, unexpected

    table = prove_bounds(_claims_registry("refuted"), plugins=["claims_plugin"])
    assert list(table["verdict"]) == ["proved", "refuted"]
    assert list(table["expected"]) == ["proved", "refuted"] and table["as_expected"].all()
    assert summary_line(table) == "2 claims: 1 proved, 1 refuted, 0 unknown; all as expected"
    wrong = prove_bounds(_claims_registry("proved"), plugins=["claims_plugin"])
    assert list(unexpected(wrong)["claim"]) == ["false on purpose"]
    assert "1 NOT as expected: false on purpose" in summary_line(wrong)
    with pytest.raises(UnknownNameError, match="unknown plugin"):
        prove_bounds(_claims_registry("proved"), plugins=["nope"])


def test_proof_script_main_exit_status(capsys):
    import pandas as pd

    from toolkit import proving

    as_meant = _claims_registry("refuted")
    assert proving.main("claims_plugin", [], registry=as_meant) == 0
    assert "all as expected" in capsys.readouterr().out
    failing = lambda: ("built objects", pd.DataFrame({"ok": [False]}), False)
    assert proving.main("claims_plugin", [], extras=[failing], registry=as_meant) == 1
    assert "FAILED: built objects" in capsys.readouterr().err
    assert proving.main("claims_plugin", [], registry=_claims_registry("proved")) == 1


def test_cli_prove_strict_exit_status(monkeypatch):
    from click.testing import CliRunner

    from toolkit import cli as cli_module

    for expect, code in (("refuted", 0), ("proved", 1)):
        reg = _claims_registry(expect)
        monkeypatch.setattr(cli_module._State, "registry", property(lambda self, r=reg: r))
        res = CliRunner().invoke(cli_module.cli, ["prove", "--plugin", "claims_plugin", "--strict"])
        assert res.exit_code == code, res.output
        assert "expected" in res.output
    lax = CliRunner().invoke(cli_module.cli, ["prove", "--plugin", "claims_plugin"])
    assert lax.exit_code == 0


def test_bound_expression_that_overflows_floats_gives_infinity():
    from toolkit.checks import bound_function

    d = sympy.Symbol("d", positive=True)
    assert bound_function(Bound(name="b", description="", expression=sympy.exp(d), metric="m"))(
        {"d": 2000.0}
    ) == float("inf")
    assert bound_function(Bound(name="b", description="", expression=-d * sympy.exp(d), metric="m"))(
        {"d": 2000.0}
    ) == float("-inf")
    assert bound_function(Bound(name="b", description="", expression=sympy.exp(d), metric="m"))(
        {"d": 1.0}
    ) == pytest.approx(2.718281828)


def test_spot_checks_of_huge_factorials_finish():
    # exact factorial(10**16) would never finish; the mpmath path evaluates it through the gamma function
    n = sympy.Symbol("n", positive=True, integer=True)
    verdict = Asymptotic("n! = o(n^n)", f=sympy.factorial(n), g=n**n, var=n, order="o").check()
    assert verdict.status == "proved" and verdict.numeric.status == "agree"
    ratio = Limit(
        "n n!/(n+1)! -> 1", expr=n * sympy.factorial(n) / sympy.factorial(n + 1), var=n, value=1
    ).check()
    assert ratio.status == "proved" and ratio.numeric.status == "agree"


def test_limits_with_a_symbolic_value():
    n, a = sympy.symbols("n a", positive=True)
    assert Limit("to a", expr=(a * n + 1) / n, var=n, value=a).check().status == "proved"
    wrong = Limit("to 2a", expr=(a * n + 1) / n, var=n, value=2 * a).check()
    assert wrong.status == "refuted" and wrong.counterexample == {"limit": "a"}


def test_inf_inside_lists_on_the_command_line():
    assert parse_value("[1, inf, -inf]") == [1, float("inf"), float("-inf")]
    assert parse_value('["inf"]') == ["inf"] and parse_value("info") == "info"
    assert parse_grid(["caps=[[1,inf],[2]]"]) == {"caps": [[1, float("inf")], [2]]}


def test_report_explains_claims_expected_not_to_be_proved(tmp_path):
    from toolkit.proving import prove_bounds
    from toolkit.report import write_report

    verdicts = prove_bounds(_claims_registry("refuted"), plugins=["claims_plugin"])
    text = write_report([], verdicts, quick=True, out_dir=tmp_path).read_text()
    assert "2 claims: 1 proved, 1 refuted, 0 unknown; all as expected" in text
    assert "`claims_plugin.demo` / `false on purpose` (expected refuted): n + 1 = n is false" in text


def test_limits_of_factorial_ratios_fit_a_small_budget(monkeypatch):
    # sympy.limit alone needs ~7 s of CPU on this ratio (an "unknown" under a 2 s budget); its gammasimp
    # form n/(n+1) needs milliseconds
    monkeypatch.setenv("TOOLKIT_SYMBOLIC_SECONDS", "2")
    n = sympy.Symbol("n", positive=True, integer=True)
    ratio = Limit(
        "n n!/(n+1)! -> 1", expr=n * sympy.factorial(n) / sympy.factorial(n + 1), var=n, value=1
    ).check()
    assert ratio.status == "proved"
    wrong = Limit(
        "n n!/(n+1)! -> 2", expr=n * sympy.factorial(n) / sympy.factorial(n + 1), var=n, value=2
    ).check()
    assert wrong.status == "refuted"
