"""The registered simulations end to end: every run held against its bounds, user streams, bad inputs (CLI exit 2)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import ParameterError
from toolkit.registry import Registry

HERE = Path(__file__).parent
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
SMALL = {"T": 700, "calibration_window": 200}


def _checked(res):
    return res.checks[~res.checks["skipped"].astype(bool)]


@pytest.mark.parametrize(
    "method,bounds",
    [
        ("aci", {"pace.aci_long_run", "pace.step_sequence"}),
        ("pace", {"pace.step_sequence", "pace.ledger"}),
        ("quantile_tracking", {"pace.step_sequence"}),
        ("decaying", {"pace.step_sequence"}),
        ("dtaci", {"pace.dtaci_experts"}),
        ("sfogd", {"pace.sfogd_long_run"}),
        ("pid", {"pace.pid_integrator"}),
        ("agaci", set()),
        ("saocp", set()),
    ],
)
def test_each_method_is_held_against_its_bounds_at_every_prefix(method, bounds, tmp_path):
    res = toolkit.run("pace.stream", {"method": method, **SMALL}, seed=0, store=tmp_path / "s.sqlite")
    active = _checked(res)
    assert set(active["bound"]) == bounds
    for name in bounds:  # one check per updated round
        assert (active["bound"] == name).sum() == len(res.records)
    assert active["holds"].astype(bool).all()
    assert list(res.table.n_rounds[:3]) == [1, 2, 3] and res.table.t.iloc[0] == 100


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("stream", ["drift", "mean_jump", "multi_block", "llm_factuality"])
def test_g1_holds_on_random_streams(stream, seed, tmp_path):
    for method in ("aci", "pace"):
        res = toolkit.run(
            "pace.stream",
            {"method": method, "stream": stream, "gamma0": 0.01, **SMALL},
            seed=seed,
            store=tmp_path / "s.sqlite",
        )
        assert _checked(res)["holds"].astype(bool).all()


def test_a_violating_row_is_caught():
    bound = toolkit.get_registry().bound("pace.aci_long_run")
    row = {"method": "aci", "alpha_1": 0.1, "gamma0": 0.005, "n_rounds": 1000, "coverage_gap": 0.19}
    limit = (0.9 + 0.005) / (0.005 * 1000)  # 0.181
    checks = toolkit.check_table(pd.DataFrame([row, {**row, "coverage_gap": limit - 1e-9}]), bound)
    assert list(checks.holds) == [False, True]


def test_user_scores_as_a_list_csv_npy_and_a_registered_generator(tmp_path):
    x = np.abs(np.random.default_rng(0).standard_normal(400))
    store = tmp_path / "s.sqlite"
    by_list = toolkit.run(
        "pace.stream", {"stream": "user", "scores": x.tolist(), "method": "aci"}, store=store
    )
    assert by_list.table.scores.iloc[0].startswith("<400 scores, sha256")
    pd.DataFrame({"t": range(400), "resid": x}).to_csv(tmp_path / "r.csv", index=False)
    by_csv = toolkit.run(
        "pace.stream",
        {"stream": "user", "scores": str(tmp_path / "r.csv"), "column": "resid", "method": "aci"},
        store=store,
    )
    np.save(tmp_path / "r.npy", x)
    by_npy = toolkit.run(
        "pace.stream", {"stream": "user", "scores": str(tmp_path / "r.npy"), "method": "aci"}, store=store
    )
    for other in (by_csv, by_npy):
        np.testing.assert_array_equal(by_list.table.threshold, other.table.threshold)
    assert _checked(by_csv)["holds"].astype(bool).all()
    sys.path.insert(0, str(HERE))
    try:
        import pace_user_streams

        registry = Registry.from_manager(toolkit.get_plugin_manager(plugins=[pace_user_streams]))
        res = toolkit.run(
            "pace.stream",
            {"stream": "user", "dataset": "mystreams.heavy", "T": 600, "method": "pace"},
            seed=4,
            registry=registry,
            store=store,
        )
        np.testing.assert_array_equal(res.table.score, pace_user_streams.heavy_tailed(600, 4)[100:])
        assert _checked(res)["holds"].astype(bool).all()
    finally:
        sys.path.remove(str(HERE))
    with pytest.raises(ParameterError, match="parameter 'dataset'"):
        toolkit.run("pace.stream", {"stream": "user", "dataset": "mystreams.heavy"}, store=store, cache=False)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"alpha": 1.5}, "alpha"),
        ({"method": "foo"}, "method"),
        ({"burn_in": 5000}, "burn_in"),
        ({"stream": "user"}, "exactly one of scores"),
        ({"scores": [1.0] * 200}, "only with stream='user'"),
        ({"stream": "user", "scores": [1.0] * 50}, "scores"),
        ({"stream": "user", "scores": "missing.csv"}, "does not exist"),
        ({"stream": "user", "scores": "x.parquet"}, ".csv, .npy or .txt"),
        ({"gamma0": 0.2}, "gamma0"),
        ({"stream": "nile"}, "parameter 'burn_in'"),
    ],
)
def test_bad_inputs_are_refused_naming_the_parameter(params, match, tmp_path):
    with pytest.raises(ParameterError, match=match):
        toolkit.run("pace.stream", params, store=tmp_path / "s.sqlite")


def test_csv_without_the_column_is_refused_before_any_work(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ParameterError, match="parameter 'scores'.*no column 'resid'.*a, b"):
        toolkit.run(
            "pace.stream",
            {"stream": "user", "scores": str(tmp_path / "r.csv"), "column": "resid"},
            store=tmp_path / "s.sqlite",
        )


@pytest.mark.parametrize(
    "args,match",
    [
        (["-p", "alpha=2"], "alpha"),
        (["-p", "stream=user"], "scores"),
        (["-p", "stream=user", "-p", "scores=nope.csv"], "does not exist"),
    ],
)
def test_cli_exits_2_with_the_parameter_named(args, match, tmp_path):
    env = {**os.environ, "TOOLKIT_STORE": str(tmp_path / "s.sqlite")}
    proc = subprocess.run(
        [TOOLKIT, "run", "pace.stream", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    assert match in proc.stderr + proc.stdout


def test_cli_reads_a_user_csv(tmp_path):
    x = np.abs(np.random.default_rng(1).standard_normal(300))
    pd.DataFrame({"resid": x}).to_csv(tmp_path / "r.csv", index=False)
    env = {**os.environ, "TOOLKIT_STORE": str(tmp_path / "s.sqlite")}
    proc = subprocess.run(
        [
            TOOLKIT,
            "run",
            "pace.stream",
            "-p",
            "stream=user",
            "-p",
            f"scores={tmp_path / 'r.csv'}",
            "-p",
            "method=aci",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "pace.aci_long_run" in proc.stdout + proc.stderr


def test_recovery_rows_per_change_point_and_factuality(tmp_path):
    store = tmp_path / "s.sqlite"
    rec = toolkit.run(
        "pace.recovery", {"method": "pace", "stream": "multi_block", "T": 2000}, seed=0, store=store
    )
    assert list(rec.table.tau) == [250, 500, 750, 1000, 1250, 1500, 1750]
    assert _checked(rec)["holds"].astype(bool).all() and (rec.table.recovery >= 0).all()
    fac = toolkit.run("pace.factuality", {"method": "aci", "T": 1000}, seed=0, store=store)
    t = fac.table
    assert {"retained", "topic", "err"} <= set(t.columns) and t.retained.between(0, 1).all()
    assert fac.summary["coverage"] == pytest.approx(1 - t.err.mean())
    assert _checked(fac)["holds"].astype(bool).all()


def test_pace_signal_gains_reach_the_method(tmp_path):
    from toolkit_pace.methods import pace
    from toolkit_pace.streams import synthetic

    values = {"method": "pace", "stream": "abrupt_variance", "T": 2000, "shift_gain": 0.3, "gap_gain": 0.3}
    table = toolkit.run("pace.stream", values, seed=3, store=tmp_path / "runs.sqlite").table
    s = synthetic("abrupt_variance", 2000, 3)
    strong = pace(s.scores, 0.1, 0.005, 500, 100, side=s.side, shift_gain=0.3, gap_gain=0.3)
    np.testing.assert_array_equal(table["gamma_t"].to_numpy(), strong.gamma_t)
    assert not np.array_equal(strong.gamma_t, pace(s.scores, 0.1, 0.005, 500, 100, side=s.side).gamma_t)
