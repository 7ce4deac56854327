"""A user's own (X, y) through the registered simulation, the adaptive step rule, the compiled PoCo loops."""

import numpy as np
import pytest
from toolkit_svrg_poco import optimizers as opt
from toolkit_svrg_poco.runs import cached_problem

import toolkit
from toolkit.errors import ParameterError


def _logistic_table(tmp_path, n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.array([1.0, 10.0, 100.0, 0.1])[:d] + 5.0
    z = (X - X.mean(0)) / X.std(0) @ rng.standard_normal(d)
    y = (z + rng.logistic(size=n) > 0).astype(int)
    path = tmp_path / "mine.csv"
    header = ",".join([f"x{k}" for k in range(d)] + ["label"])
    rows = [",".join(f"{v:.17g}" for v in X[i]) + f",{y[i]}" for i in range(n)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path, X, y


def test_a_users_csv_table_runs_as_stored_rows_with_scikit_learns_optimum(tmp_path):
    """Issue 39, item 11: a user's table had no simulation path."""
    from sklearn.linear_model import LogisticRegression

    path, X, y = _logistic_table(tmp_path)
    res = toolkit.run(
        "svrg_poco.convergence",
        {"table": str(path), "standardize": True, "n_epochs": 40.0},
        seed=0,
        cache=False,
    )
    assert res.params["problem"] == "user" and res.summary["step_rule_used"] == "adaptive"
    assert res.summary["final_rel_suboptimality"] <= 1e-6
    Xs = (X - X.mean(0)) / X.std(0)
    design = np.hstack([Xs, np.ones((len(X), 1))])
    lam = 1 / len(y)  # the default for a user's logistic problem
    clf = LogisticRegression(C=1 / (len(y) * lam), fit_intercept=False, tol=1e-12, max_iter=10_000)
    clf.fit(design, y)
    z = np.where(y == 1, 1.0, -1.0) * (design @ clf.coef_.ravel())
    p_sklearn = np.mean(np.logaddexp(0, -z)) + 0.5 * lam * clf.coef_.ravel() @ clf.coef_.ravel()
    assert abs(p_sklearn - res.summary["p_star"]) < 1e-9


def test_a_users_table_in_the_theorems_region_is_held_against_the_rate(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 3))
    np.savez(tmp_path / "ls.npz", X=X, y=X @ np.ones(3) + 0.1 * rng.standard_normal(200))
    res = toolkit.run(
        "svrg_poco.convergence",
        {
            "table": str(tmp_path / "ls.npz"),
            "step_rule": "fixed",
            "step": 0.1,
            "inner": 50.0,
            "inner_unit": "L/gamma",
            "n_epochs": 400.0,
        },
        seed=0,
        cache=False,
    )
    assert abs(res.summary["rate_alpha"] - 0.5) < 1e-3
    checked = res.checks[~res.checks.skipped]
    assert len(checked) >= 2 and checked.holds.all()


def test_a_registered_dataset_runs_and_the_adaptive_default_converges_on_raw_features():
    """Issue 39, items 11-12: raw affairs features (L/gamma ~ 1e6); the fixed 0.25/L step stalls there (SAGA: 637 epochs)."""
    pytest.importorskip("statsmodels")
    res = toolkit.run(
        "svrg_poco.convergence", {"dataset": "svrg_poco.affairs", "n_epochs": 600.0}, seed=0, cache=False
    )
    assert res.summary["step_rule_used"] == "adaptive"
    assert res.summary["epochs_to_1e-6"] <= 600
    fixed = toolkit.run(
        "svrg_poco.convergence",
        {"dataset": "svrg_poco.affairs", "step_rule": "fixed", "n_epochs": 600.0},
        seed=0,
        cache=False,
    )
    assert fixed.summary["final_rel_suboptimality"] > 1e-4


@pytest.mark.parametrize(
    ("values", "match"),
    [
        ({"table": "no/such/file.csv"}, "table: file 'no/such/file.csv' does not exist"),
        ({"table": "x.txt"}, r"\.csv or \.npz"),
        ({"problem": "digits", "dataset": "svrg_poco.affairs"}, "problem=user"),
        ({"problem": "user"}, "table="),
        ({"dataset": "no.such"}, "no registered dataset 'no.such'"),
        ({"standardize": True}, "problem=user"),
        ({"method": "sgd", "step_rule": "adaptive"}, "method=svrg only"),
    ],
)
def test_bad_user_problem_input_is_named(values, match):
    with pytest.raises((ParameterError, ValueError), match=match):
        toolkit.run("svrg_poco.convergence", values, seed=0, cache=False)


def test_a_non_numeric_cell_is_named_with_its_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b,y\n1,2,0\n3,oops,1\n")
    with pytest.raises(ParameterError, match=r"bad\.csv, line 3: column 'b' holds 'oops'"):
        toolkit.run("svrg_poco.convergence", {"table": str(path)}, seed=0, cache=False)


def test_the_cli_refuses_a_missing_table_with_exit_2(tmp_path, capsys):
    from toolkit.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["run", "svrg_poco.convergence", "-p", f"table={tmp_path / 'none.csv'}"])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err


def _take(iterator, k):
    out = None
    for _ in range(k):
        out = next(iterator)
    return out


@pytest.mark.parametrize("name", ["least_squares", "breast_cancer"])
def test_compiled_and_plain_poco_loops_agree(name):
    """Issue 39, item 12: the isotropic PoCo loop and VON-PoCo's closed form are compiled."""
    problem, _, _ = cached_problem(name, 10.0, None, 200, 0)
    eta = 0.2 / problem.smoothness / problem.n
    a = _take(opt.poco_iso(problem, eta, 150, seed=5, alpha=0.7, engine="numba"), 5)
    b = _take(opt.poco_iso(problem, eta, 150, seed=5, alpha=0.7, engine="numpy"), 5)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10, atol=1e-12)
    a = _take(opt.von_poco(problem, 0.7, 60, seed=3, alpha=0.8, engine="numba"), 5)
    b = _take(opt.von_poco(problem, 0.7, 60, seed=3, alpha=0.8, engine="numpy"), 5)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-9, atol=1e-11)


def _anchors_script():
    # the anchors benchmark, wherever it lives (benchmarks/ or the plugin's own benchmarks/ folder)
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = sorted(root.glob("benchmarks/svrg_poco_anchors.py")) + sorted(
        root.glob("plugins/svrg_poco/benchmarks/*anchors*.py")
    )
    assert found, "the svrg_poco anchors benchmark is missing"
    return found[0]


def test_the_anchors_benchmark_runs_on_a_users_table(tmp_path):
    """Issue 39, item 11: the anchors benchmark took only the built-in problems."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    np.savez(tmp_path / "t.npz", X=X, y=(X.sum(1) + rng.logistic(size=200) > 0).astype(int))
    done = subprocess.run(
        [sys.executable, str(_anchors_script()), "--table", str(tmp_path / "t.npz"), "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "t(raw)" in done.stdout and "sklearn saga" in done.stdout and "adaptive step" in done.stdout
    bad = subprocess.run(
        [sys.executable, str(_anchors_script()), "--table", str(tmp_path / "none.csv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "--table" in bad.stderr and "no such file" in bad.stderr


def test_an_edited_table_is_computed_again_not_served_from_the_store(tmp_path):
    """The table is keyed by its content: overwrite it and rerun, and the run is new with new numbers."""
    path, X, y = _logistic_table(tmp_path, seed=0)
    store = tmp_path / "runs.sqlite"
    values = {"table": str(path), "standardize": True, "n_epochs": 5.0}
    first = toolkit.run("svrg_poco.convergence", values, seed=0, store=store)
    assert not first.from_cache
    assert toolkit.run("svrg_poco.convergence", values, seed=0, store=store).from_cache
    _logistic_table(tmp_path, seed=1)  # same path, other rows
    second = toolkit.run("svrg_poco.convergence", values, seed=0, store=store)
    assert not second.from_cache
    assert second.summary["p_star"] != first.summary["p_star"]
    assert second.params["table"] == str(path)  # the table still shows the path
