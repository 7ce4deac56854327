"""A user's dataset reaches gd_perceptron's simulations through the registry given to run/sweep:
registered by an in-process plugin module, and by an installed package (entry point)."""

import sys
import textwrap

import gd_perceptron_user_datasets as user_plugin
import pytest

import toolkit
from toolkit.errors import ParameterError
from toolkit.manager import get_plugin_manager
from toolkit.registry import Registry

PARAMS = {
    "dataset": "mydata.staircase",
    "algorithm": "batch_perceptron",
    "gammas": [float("inf")],
    "d_values": [8, 16, 32],
}


def _user_registry():
    return Registry.from_manager(get_plugin_manager(plugins=[user_plugin]))


def test_in_process_plugin_dataset_through_run(tmp_path):
    res = toolkit.run("gd_perceptron.scaling", PARAMS, registry=_user_registry(), store=tmp_path / "s.sqlite")
    assert [r["iterations"] for r in res.records] == [64, 256, 1024]  # d^2
    active = res.checks[~res.checks["skipped"].astype(bool)]
    assert set(active["bound"]) == {"gd_perceptron.novikoff_batch"} and active["holds"].astype(bool).all()
    # the default registry does not have it: a clear error naming the parameter
    with pytest.raises(ParameterError, match="parameter 'dataset'"):
        toolkit.run("gd_perceptron.scaling", PARAMS, store=tmp_path / "s.sqlite", cache=False)


# (a serial sweep of gd_perceptron.scaling fails in the core today, before any point runs: its executor keys
# tasks by their arguments and ScalingParams' dict field is unhashable; tests/core/test_run_registry.py
# covers the serial sweep's registry)
@pytest.mark.parametrize("executor", ["processes"])
def test_in_process_plugin_dataset_through_sweep(tmp_path, executor):
    out = toolkit.sweep(
        "gd_perceptron.scaling",
        {"d_values": [[8], [16]]},
        seeds=[0],
        params=PARAMS,
        executor=executor,
        max_workers=2,
        registry=_user_registry(),
        store=tmp_path / "s.sqlite",
    )
    assert sorted(r.records[0]["iterations"] for r in out.runs) == [64, 256]


def test_installed_package_dataset(tmp_path, monkeypatch):
    """A package that declares the entry point (here: written to a folder on sys.path, as pip would)."""
    pkg = tmp_path / "site"
    (pkg / "mydata_pkg").mkdir(parents=True)
    (pkg / "mydata_pkg" / "__init__.py").write_text(
        textwrap.dedent("""
        from toolkit import Dataset, hookimpl
        from gd_perceptron_user_datasets import StaircaseParams, my_staircase

        @hookimpl
        def toolkit_register_datasets():
            return [Dataset("mydata.staircase", "my sparse staircase", my_staircase, StaircaseParams)]
    """)
    )
    dist = pkg / "mydata_pkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mydata-pkg\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[toolkit.plugins]\nmydata = mydata_pkg\n")
    monkeypatch.syspath_prepend(str(pkg))
    res = toolkit.run("gd_perceptron.scaling", PARAMS, store=tmp_path / "s.sqlite")
    assert [r["iterations"] for r in res.records] == [64, 256, 1024]
    sys.modules.pop("mydata_pkg", None)


def test_a_file_named_in_dataset_params_keys_the_store_by_its_content(tmp_path):
    """Overwriting the file a dataset loader reads computes the run again instead of serving the old one."""
    import numpy as np

    data = tmp_path / "points.npz"
    store = tmp_path / "s.sqlite"
    params = {
        "dataset": "mydata.file",
        "dataset_params": {"path": str(data)},
        "algorithm": "batch_perceptron",
        "gammas": [float("inf")],
    }
    np.savez(data, B=np.eye(4), y=np.ones(4))
    first = toolkit.run("gd_perceptron.scaling", params, registry=_user_registry(), store=store)
    assert toolkit.run("gd_perceptron.scaling", params, registry=_user_registry(), store=store).from_cache
    B = np.eye(6)
    B[np.arange(1, 6), np.arange(5)] = -1.0  # the staircase: d^2 = 36 steps
    np.savez(data, B=B, y=np.ones(6))
    second = toolkit.run("gd_perceptron.scaling", params, registry=_user_registry(), store=store)
    assert not second.from_cache
    assert [r["iterations"] for r in second.records] != [r["iterations"] for r in first.records]


def test_dataset_params_is_shown_as_a_dict_not_a_path():
    from toolkit.config import describe_params

    info = {
        p.name: p for p in describe_params(toolkit.get_registry().simulation("gd_perceptron.scaling").params)
    }
    assert info["dataset_params"].type == "dict[str, Any]"
