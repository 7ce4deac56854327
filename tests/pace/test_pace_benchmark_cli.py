"""The pace benchmark scripts refuse a bad comma list with exit 2, naming the option, before any work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from toolkit_pace.methods import METHOD_NAMES
from toolkit_pace.streams import SYNTHETIC

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(
        f"_pace_bench_{name}", ROOT / "plugins" / "pace" / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"_pace_bench_{name}"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "argv, option, named",
    [
        (["--gammas", "0.005,abc"], "--gammas", "'abc'"),
        (["--gammas", "0.005,0.005"], "--gammas", "listed twice"),
        (["--gammas", "0.005,2"], "--gammas", "(0, 1]"),
        (["--streams", "exchangeable,nope"], "--streams", "allowed: exchangeable"),
        (["--self-test", "--streams", "computo"], "--streams", "--self-test"),
    ],
)
def test_anchors_refuse_a_bad_list_before_any_work(argv, option, named, capsys):
    with pytest.raises(SystemExit) as stop:
        _script("pace_anchors").main(argv)
    assert stop.value.code == 2
    out = capsys.readouterr()
    assert option in out.err and named in out.err
    assert out.out == ""  # the run prints "versions: ..." first: nothing ran


def test_anchor_streams_are_the_plugins_synthetic_streams():
    assert set(_script("pace_anchors").PLUGIN_SCENARIOS) == set(SYNTHETIC)


def test_methods_benchmark_refuses_an_unknown_method_before_any_work(capsys):
    with pytest.raises(SystemExit) as stop:
        _script("pace_methods").main(["--methods", "aci,nope"])
    assert stop.value.code == 2
    out = capsys.readouterr()
    assert "--methods" in out.err and "'nope'" in out.err and METHOD_NAMES[0] in out.err
    assert out.out == ""  # the run prints "T = ..." first: nothing ran
