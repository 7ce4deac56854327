"""Backend (devices, seeds), export, datasets and bound checks."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from toolkit import Bound, backend
from toolkit.checks import check_table, summarize_checks
from toolkit.errors import ParameterError, UserError
from toolkit.export import export_table


def test_resolve_device():
    assert backend.resolve_device("cpu") == "cpu"
    assert backend.resolve_device("auto") in ("cpu", "cuda")
    with pytest.raises(ParameterError, match="device must be one of cpu, cuda, auto"):
        backend.resolve_device("tpu")


def test_cuda_request_without_gpu_is_clear():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        assert backend.resolve_device("cuda") == "cuda"
    else:
        with pytest.raises(ParameterError, match="no CUDA GPU is available"):
            backend.resolve_device("cuda")


def test_seed_everything():
    backend.seed_everything(3)
    a = (random.random(), np.random.rand())
    backend.seed_everything(3)
    assert (random.random(), np.random.rand()) == a


def test_set_threads_rejects_zero():
    with pytest.raises(ParameterError, match="n_threads"):
        backend.set_threads(0)


def test_check_table_upper_lower_and_applies():
    n, R, mu = sp.symbols("n R mu", positive=True)
    table = pd.DataFrame(
        {
            "n": [10, 10, 5],
            "R": [1.0, 1.0, 2.0],
            "mu": [0.5, 0.5, 1.0],
            "iterations": [30, 50, 7],
            "algo": ["batch", "batch", "other"],
        }
    )
    bound = Bound(
        "b",
        "batch perceptron",
        expression=n * R**2 / mu**2,
        metric="iterations",
        applies=lambda row: row["algo"] == "batch",
    )
    checks = check_table(table, bound)
    assert list(checks["bound_value"][:2]) == [40.0, 40.0]
    assert list(checks["holds"][:2]) == [True, False] and bool(checks["skipped"][2])
    assert "1/2 rows hold" in summarize_checks(checks) and "VIOLATED" in summarize_checks(checks)
    lower = Bound("l", "lower", expression=lambda row: 10, metric="iterations", sense="lower")
    assert check_table(table, lower)["holds"].tolist() == [True, True, False]


def test_check_table_names_missing_columns():
    x = sp.Symbol("x")
    with pytest.raises(UserError, match="constrains column 'y'"):
        check_table(pd.DataFrame({"x": [1]}), Bound("b", "", expression=x, metric="y"))
    with pytest.raises(UserError, match="needs column"):
        check_table(pd.DataFrame({"y": [1]}), Bound("b", "", expression=x, metric="y"))


def test_bound_validation():
    with pytest.raises(ValueError, match="sense"):
        Bound("b", "", sense="upward")
    with pytest.raises(ValueError, match="metric"):
        Bound("b", "", expression=sp.Symbol("x"))


def test_export_formats(tmp_path):
    table = pd.DataFrame({"a": [1, 2], "b": [[1], {"x": 1}]})
    export_table(table, tmp_path / "t.csv")
    export_table(table, tmp_path / "t.parquet")
    assert len(pd.read_parquet(tmp_path / "t.parquet")) == 2
    with pytest.raises(ParameterError, match="must end in one of"):
        export_table(table, tmp_path / "t.xlsx")


def test_dataset_validates_params(registry):
    ds = registry.dataset("example.steps")
    assert ds.load(n_steps=5, seed=1).shape == (5,)
    with pytest.raises(ParameterError, match="parameter 'p'"):
        ds.load(p=2.0)


def test_settings_from_env(monkeypatch, tmp_path):
    from toolkit.settings import get_settings

    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TOOLKIT_DISABLE_PLUGINS", "a, b")
    s = get_settings()
    assert s.data_dir == tmp_path and s.disabled_plugins == {"a", "b"}
    assert math.isfinite(1.0)
