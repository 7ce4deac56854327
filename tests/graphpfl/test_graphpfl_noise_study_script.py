"""plugins/graphpfl/studies/graphpfl_noise_study.py: a study, and tables rebuilt from its store for a subset of seeds."""

from __future__ import annotations

import pandas as pd


def test_stored_only_tables_keep_only_the_requested_seeds(tmp_path, load_script):
    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    common = [
        "--dataset",
        "planted",
        "--n-clients",
        "2",
        "--noise",
        "0,0.3",
        "--algorithms",
        "fedavg,fedprox",
        "--n-rounds",
        "2",
        "--set",
        "n_graphs=40",
        "--store",
        str(tmp_path / "store.sqlite"),
    ]
    assert study.main([*common, "--seeds", "0:3", "--out", str(tmp_path / "all")]) == 0
    full = pd.read_csv(tmp_path / "all" / "runs.csv")
    assert set(full["seed"]) == {0, 1, 2} and len(full) == 12
    assert study.main([*common, "--seeds", "1:3", "--stored-only", "--out", str(tmp_path / "part")]) == 0
    part = pd.read_csv(tmp_path / "part" / "runs.csv")
    assert set(part["seed"]) == {1, 2} and len(part) == 8
    paired = pd.read_csv(tmp_path / "part" / "paired.csv")
    assert (paired["n_seeds"] == 2).all()
    # the stored rows are the computed ones
    key = ["noise_p", "algorithm", "seed"]
    merged = part.merge(full, on=key, suffixes=("", "_full"))
    assert (merged["test_acc_pooled"] == merged["test_acc_pooled_full"]).all()


def test_replayed_patience_reports_what_runs_with_that_patience_report(tmp_path, load_script):
    import pytest

    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    common = [
        "--dataset",
        "planted",
        "--n-clients",
        "2",
        "--noise",
        "0.3",
        "--algorithms",
        "fedavg",
        "--seeds",
        "0:3",
        "--n-rounds",
        "6",
        "--set",
        "n_graphs=40",
        "--set",
        "lr=0.05",
        "--store",
        str(tmp_path / "store.sqlite"),
    ]
    assert study.main([*common, "--set", "patience=1", "--out", str(tmp_path / "direct")]) == 0
    assert (
        study.main(
            [*common, "--set", "patience=3", "--replay-patience", "1", "--out", str(tmp_path / "replay")]
        )
        == 0
    )
    direct, replay = (pd.read_csv(tmp_path / d / "runs.csv").set_index("seed") for d in ("direct", "replay"))
    cols = ["best_round", "stop_round", "stopped_early", "test_acc_pooled", "val_acc_pooled", "patience"]
    assert direct[cols].equals(replay[cols])
    with pytest.raises(
        SystemExit, match="smaller patience"
    ):  # patience-1 runs cannot show what patience 3 does
        study.main([*common, "--set", "patience=1", "--replay-patience", "3", "--out", str(tmp_path / "bad")])


PLANTED = ["--dataset", "planted", "--n-clients", "2", "--set", "n_graphs=40", "--set", "hidden=8"]


def test_a_subset_call_merges_into_runs_csv_replacing_only_its_keys(tmp_path, load_script):
    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    common = [
        *PLANTED,
        "--noise",
        "0,0.3",
        "--n-rounds",
        "2",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(tmp_path / "out"),
    ]
    assert study.main([*common, "--algorithms", "fedavg,fedprox", "--seeds", "0:2"]) == 0
    path = tmp_path / "out" / "runs.csv"
    full = pd.read_csv(path)
    assert len(full) == 8
    tampered = full.copy()  # mark one row the next call replaces and one it must keep
    replaced = (tampered.noise_p == 0.3) & (tampered.algorithm == "fedavg") & (tampered.seed == 1)
    kept = (tampered.noise_p == 0.0) & (tampered.algorithm == "fedprox") & (tampered.seed == 0)
    tampered.loc[replaced | kept, "test_acc_pooled"] = -1.0
    tampered.to_csv(path, index=False)
    assert study.main([*common, "--noise", "0.3", "--algorithms", "fedavg", "--seeds", "1"]) == 0
    merged = pd.read_csv(path)
    key = ["noise_p", "algorithm", "seed"]
    assert len(merged) == 8 and not merged.duplicated(key).any()
    m = merged.set_index(key).sort_index()
    assert (
        m.loc[(0.3, "fedavg", 1), "test_acc_pooled"]
        == full.set_index(key).loc[(0.3, "fedavg", 1), "test_acc_pooled"]
    )
    assert m.loc[(0.0, "fedprox", 0), "test_acc_pooled"] == -1.0  # another key: kept as it was
    paired = pd.read_csv(tmp_path / "out" / "paired.csv")
    assert (
        set(paired.algorithm) == {"fedavg", "fedprox"} and (paired.n_seeds == 2).all()
    )  # tables from the merged rows


def test_kept_rows_of_another_configuration_are_refused_before_any_work(
    tmp_path, load_script, monkeypatch, capsys
):
    import pytest

    import toolkit

    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    common = [
        *PLANTED,
        "--noise",
        "0.3",
        "--algorithms",
        "fedavg",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(tmp_path / "out"),
    ]
    assert study.main([*common, "--n-rounds", "2", "--seeds", "0:2"]) == 0
    before = (tmp_path / "out" / "runs.csv").read_text()
    monkeypatch.setattr(toolkit, "sweep", lambda *a, **k: pytest.fail("work started"))
    with pytest.raises(SystemExit) as exc:
        study.main([*common, "--n-rounds", "3", "--seeds", "1"])  # seed 0's 2-round row would stay beside it
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "runs.csv holds 1 rows" in err and "n_rounds: ['2'] vs '3'" in err
    assert (tmp_path / "out" / "runs.csv").read_text() == before


def test_runs_the_rule_stopped_within_a_smaller_maximum_are_reused_and_equal_direct_runs(
    tmp_path, load_script
):
    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    common = [
        *PLANTED,
        "--noise",
        "0.3",
        "--algorithms",
        "fedavg,graphpfl",
        "--seeds",
        "0:4",
        "--set",
        "lr=0.05",
        "--set",
        "patience=1",
    ]
    store = ["--store", str(tmp_path / "s.sqlite")]
    assert study.main([*common, *store, "--n-rounds", "3", "--out", str(tmp_path / "r3")]) == 0
    assert (
        study.main(
            [*common, *store, "--n-rounds", "10", "--reuse-from-rounds", "3", "--out", str(tmp_path / "r10")]
        )
        == 0
    )
    assert (
        study.main(
            [
                *common,
                "--store",
                str(tmp_path / "direct.sqlite"),
                "--n-rounds",
                "10",
                "--out",
                str(tmp_path / "d10"),
            ]
        )
        == 0
    )
    reused, direct = (pd.read_csv(tmp_path / d / "runs.csv") for d in ("r10", "d10"))
    cols = [
        "noise_p",
        "algorithm",
        "seed",
        "n_rounds",
        "best_round",
        "stop_round",
        "stopped_early",
        "test_acc_pooled",
        "test_acc_client_mean",
        "val_acc_pooled",
        "final_test_acc_pooled",
    ]
    assert reused[cols].equals(direct[cols])
    n_reused = int((reused.computed_n_rounds == 3).sum())
    assert 0 < n_reused < len(reused)  # both kinds present: reused, and recomputed because the cap came first
    assert (direct.computed_n_rounds == 10).all()
    assert (
        study.main(
            [
                *common,
                *store,
                "--n-rounds",
                "10",
                "--reuse-from-rounds",
                "3",
                "--stored-only",
                "--out",
                str(tmp_path / "stored"),
            ]
        )
        == 0
    )
    assert pd.read_csv(tmp_path / "stored" / "runs.csv")[cols].equals(direct[cols])


def test_bad_lists_exit_2_naming_the_option_before_any_work(tmp_path, load_script, monkeypatch, capsys):
    import pytest

    import toolkit

    monkeypatch.setattr(toolkit, "sweep", lambda *a, **k: pytest.fail("work started"))
    study = load_script("plugins/graphpfl/studies/graphpfl_noise_study.py")
    pilot = load_script("plugins/graphpfl/studies/graphpfl_patience_pilot.py")
    tune = load_script("plugins/graphpfl/studies/graphpfl_tune.py")
    out = ["--out", str(tmp_path / "never")]
    cases = [
        (study, ["--seeds", "0,x"], "--seeds"),
        (study, ["--seeds", "3:1"], "--seeds"),
        (study, ["--noise", "0,abc"], "--noise"),
        (study, ["--noise", "0,1.5"], "--noise"),
        (study, ["--noise", "0,0"], "--noise"),
        (study, ["--algorithms", "fedavg,nope"], "--algorithms"),
        (study, ["--set", "n_rounds_typo=3"], "n_rounds_typo"),
        (study, ["--n-rounds", "20", "--reuse-from-rounds", "20"], "--reuse-from-rounds"),
        (pilot, ["--candidates", "3,x"], "--candidates"),
        (pilot, ["--seeds", "a:b"], "--seeds"),
        (pilot, ["--algorithms", "fedavg,nope"], "--algorithms"),
        (tune, ["--grid", "sl_beta=0.2,0.2"], "--grid"),
        (tune, ["--seeds", "1,1"], "--seeds"),
    ]
    for script, argv, option in cases:
        if option is None:
            continue
        with pytest.raises(SystemExit) as exc:
            script.main([*argv, *out])
        assert exc.value.code == 2, argv
        assert option in capsys.readouterr().err, argv
    assert not (tmp_path / "never").exists()
