"""The tabular baseline RelBench reports: gradient boosting (LightGBM) on the entity table alone,
and on the entity table joined with aggregates of the tables that reference it (no toolkit imports).

Aggregates for a seed (entity, t): per referencing table and numeric column, the mean over all
of the entity's rows with time <= t, the sum over its rows in (t - window, t], and the row counts
(all history / last window). Only rows with time <= t enter (no leakage).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolkit_frog.features import TableFeatures, encode_database
from toolkit_frog.relational import ALWAYS, Database, SchemaError, delta_to_int
from toolkit_frog.train import SeedSplit, seed_features


def entity_features(
    db: Database,
    entity_table: str,
    split: SeedSplit,
    features: Mapping[str, TableFeatures],
    unknown_at_seed: Sequence[str] = (),
) -> np.ndarray:
    """The seed rows' own features (``unknown_at_seed`` columns read as missing) and the seed time."""
    num, cat = seed_features(features[entity_table], split.entity, unknown_at_seed)
    return np.concatenate([num, cat.astype(np.float64), split.time[:, None].astype(np.float64)], 1)


def joined_aggregates(
    db: Database,
    entity_table: str,
    split: SeedSplit,
    window: int,
    features: Mapping[str, TableFeatures],
    unknown_at_seed: Sequence[str] = (),
) -> np.ndarray:
    blocks = [entity_features(db, entity_table, split, features, unknown_at_seed)]
    for name, r in db.resolved.items():
        for fk, target in r.table.fkey_col_to_pkey_table.items():
            if target != entity_table or not r.timed:
                continue
            x = features[name].numeric
            ent = r.fkeys[fk]
            out_mean = np.zeros((len(split.entity), x.shape[1]))
            out_last = np.zeros((len(split.entity), x.shape[1]))
            counts = np.zeros((len(split.entity), 2))
            for t in np.unique(split.time):
                pos = np.flatnonzero(split.time == t)
                seen = (ent >= 0) & (r.time <= t) & (r.time != ALWAYS)
                last = seen & (r.time > t - window)
                for j, mask in enumerate((seen, last)):
                    df = pd.DataFrame(x[mask]).groupby(ent[mask])
                    agg = (df.mean() if j == 0 else df.sum()).reindex(split.entity[pos])
                    cnt = pd.Series(np.ones(mask.sum())).groupby(ent[mask]).sum().reindex(split.entity[pos])
                    (out_mean if j == 0 else out_last)[pos] = agg.fillna(0.0).to_numpy()
                    counts[pos, j] = cnt.fillna(0.0).to_numpy()
            blocks += [out_mean, out_last, counts]
    return np.concatenate(blocks, 1)


def lightgbm_baseline(
    db: Database,
    entity_table: str,
    splits: Mapping[str, SeedSplit],
    task_type: str,
    mode: str = "joined",
    window: Any = None,
    seed: int = 0,
    features: Mapping[str, TableFeatures] | None = None,
    unknown_at_seed: Sequence[str] = (),
) -> dict[str, float]:
    """Fit LightGBM (early stopping on val) and return {'val': metric, 'test': metric}.

    ``window``: the "last window" of the joined aggregates, in the database's time (an integer,
    or a ``pandas.Timedelta``/``"90D"`` on a datetime database; the task's timedelta is the
    natural choice). Required on a datetime database; 1 on an integer one.
    """
    import lightgbm as lgb

    from toolkit_frog.train import metric

    if mode not in ("entity", "joined"):
        raise ValueError(f"mode must be 'entity' or 'joined', got {mode!r}")
    if window is None:
        if db.time_kind == "datetime":
            raise SchemaError(
                "window must be given on a datetime database (e.g. the task's timedelta, '90D')"
            )
        window = 1
    window = delta_to_int(window, db.time_kind, "window")
    features = features if features is not None else encode_database(db)
    make = (
        (lambda s: entity_features(db, entity_table, s, features, unknown_at_seed))
        if mode == "entity"
        else (lambda s: joined_aggregates(db, entity_table, s, window, features, unknown_at_seed))
    )
    X = {s: make(splits[s]) for s in ("train", "val", "test")}
    params = dict(
        n_estimators=500,
        learning_rate=0.03,
        num_leaves=31,
        min_child_samples=20,
        subsample=0.8,
        subsample_freq=1,
        colsample_bytree=0.8,
        random_state=seed,
        n_jobs=1,
        verbose=-1,
    )
    stop = [lgb.early_stopping(30, verbose=False)]
    with warnings.catch_warnings():  # lightgbm 4.7 deprecates eval_set; older versions lack eval_X
        warnings.filterwarnings("ignore", message=".*eval_set.*deprecated")
        pred = _fit_predict(lgb, params, X, splits, task_type, stop)
    return {s: metric(task_type, splits[s].y, pred[s]) for s in ("val", "test")}


def _fit_predict(lgb, params, X, splits, task_type, stop):
    if task_type == "binary_classification":
        model = lgb.LGBMClassifier(**params)
        model.fit(
            X["train"],
            splits["train"].y,
            eval_set=[(X["val"], splits["val"].y)],
            eval_metric="auc",
            callbacks=stop,
        )
        pred = {s: model.predict_proba(X[s])[:, 1] for s in ("val", "test")}
    else:
        model = lgb.LGBMRegressor(objective="l1", **params)
        model.fit(X["train"], splits["train"].y, eval_set=[(X["val"], splits["val"].y)], callbacks=stop)
        pred = {s: model.predict(X[s]) for s in ("val", "test")}
    return pred
