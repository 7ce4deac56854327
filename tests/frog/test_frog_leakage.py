"""No silent leakage: untimed tables inherit their time; columns unknown at the seed time; single-
feature leak warning; encoding statistics fitted on rows visible at training time."""

import warnings

import numpy as np
import pandas as pd
import pytest
from toolkit_frog.features import encode_database
from toolkit_frog.graph import TemporalSampler, leaked_rows, make_frog_graph, make_pkey_fkey_graph
from toolkit_frog.planted import make_untimed_link_database, untimed_link_task
from toolkit_frog.relational import ALWAYS, Database, SchemaError, Table


def _retail(line_invoice=(0, 0, 1, 2), **kw):
    cust = pd.DataFrame({"cid": [1, 2]})
    inv = pd.DataFrame({"iid": [10, 11, 12], "cid": [1, 1, 2], "t": [5, 9, 7]})
    line = pd.DataFrame(
        {
            "lid": range(len(line_invoice)),
            "iid": pd.array(
                [[10, 11, 12][i] if i is not None else None for i in line_invoice], dtype="Int64"
            ),
            "pid": 0,
            "q": range(len(line_invoice)),
        }
    )
    note = pd.DataFrame(
        {"nid": range(len(line_invoice)), "lid": range(len(line_invoice))}
    )  # -> line -> invoice
    return Database(
        {
            "customer": Table(cust, {}, "cid", None),
            "invoice": Table(inv, {"cid": "customer"}, "iid", "t"),
            "product": Table(pd.DataFrame({"pid": [0]}), {}, "pid", None),
            "line": Table(line, {"iid": "invoice", "pid": "product"}, "lid", None),
            "note": Table(note, {"lid": "line"}, "nid", None),
        },
        **kw,
    )


def test_untimed_tables_inherit_the_time_of_the_rows_they_reference_transitively():
    db = _retail()
    assert db.resolved["line"].time.tolist() == [5, 5, 9, 7]
    assert db.resolved["note"].time.tolist() == [5, 5, 9, 7]  # two hops: note -> line -> invoice
    assert db.resolved["customer"].time.tolist() == [ALWAYS, ALWAYS]  # references nothing timed: static
    assert db.inherited_times == {"line": ("iid",), "note": ("lid",)}
    assert db.resolved["product"].time.tolist() == [ALWAYS]
    cut = db.upto(6)
    assert len(cut["line"]) == 2 and len(cut["note"]) == 2  # rows of the invoice at 9 and 7 are cut
    assert db.min_timestamp == 5 and db.max_timestamp == 9  # own time columns only


def test_untimed_rows_with_no_timed_reference_are_refused_with_the_fix():
    with pytest.raises(
        SchemaError,
        match=r"table 'line': 1 of 4 rows \(keys iid missing or dangling\).*"
        r"static_tables=\[table\]",
    ):
        _retail(line_invoice=(0, None, 1, 2))
    db = _retail(line_invoice=(0, None, 1, 2), static_tables=["line", "note"])
    assert (db.resolved["line"].time == ALWAYS).all()
    with pytest.raises(SchemaError, match="static_tables names unknown table"):
        _retail(static_tables=["nope"])


def test_leaked_rows_sees_inherited_times():
    db = _retail()
    g = make_pkey_fkey_graph(db)
    sub = TemporalSampler(g, [-1, -1, -1, -1]).sample("customer", np.array([0]), 6)
    assert sorted(sub.nodes["line"].tolist()) == [0, 1]
    assert sum(leaked_rows(sub, g, db).values()) == 0
    static = _retail(static_tables=["line", "note"])  # the old behaviour: untimed = always visible
    gs = make_pkey_fkey_graph(static)
    subs = TemporalSampler(gs, [-1, -1, -1, -1]).sample("customer", np.array([0]), 6)
    assert len(subs.nodes["line"]) == 4  # lines of future invoices, reached at 4 hops through the product
    # the checker, given the true (inherited) times, counts them
    times = db.resolved["line"].time[subs.nodes["line"]]
    assert (times > 6).sum() > 0


def _future_lines_in_subgraphs(db, hops):
    """Line rows in the sampled subgraphs whose invoice lies after the seed time (ground truth from
    the raw tables, not from the database's own times)."""
    task = untimed_link_task(db)
    inv_time = db["invoice"].df.set_index("invoice_id")["time"]
    line_time = inv_time.loc[db["line"].df["invoice_id"]].to_numpy()
    g = make_pkey_fkey_graph(db)
    sampler = TemporalSampler(g, [-1] * hops)
    seeds = task.get_table("train", mask_input_cols=False)
    n_future, n_lines = 0, 0
    for t, grp in seeds.groupby("time"):
        sub = sampler.sample("customer", grp.customer_id.to_numpy(), int(t))
        ids = sub.nodes.get("line", np.zeros(0, dtype=np.int64))
        n_lines += len(ids)
        n_future += int((line_time[ids] > t).sum())
    return n_future, n_lines


@pytest.mark.parametrize("hops", [2, 3, 4])
def test_planted_future_label_in_untimed_link_table_is_not_sampled(hops):
    """The label sits in line rows of the customer's future invoice; the line table has no time and
    reaches the customer at ``hops`` hops through static tables. Old code: those lines were always
    visible (thousands sampled). Now they inherit the invoice's time and no future line is sampled."""
    db = make_untimed_link_database(hops, n_customers=150, seed=hops)
    n_future, n_lines = _future_lines_in_subgraphs(db, hops)
    assert n_lines > 0  # past lines are reached: the path exists
    assert n_future == 0
    control = make_untimed_link_database(hops, n_customers=150, seed=hops, static_link=True)
    assert _future_lines_in_subgraphs(control, hops)[0] > 100  # the test can fail


def test_planted_future_label_untimed_link_gives_chance_auroc():
    """End to end at 2 hops: the honest database gives chance AUROC, the control (line table declared
    static, i.e. today's old behaviour) finds the planted label."""
    from toolkit_frog.experiments import untimed_link_auroc

    out = {
        static: untimed_link_auroc(seed=0, static=static, hops=2, n_customers=600, epochs=6)
        for static in (False, True)
    }
    assert abs(out[False] - 0.5) < 0.12
    assert out[True] > 0.9


def _flights(n=400, seed=0):
    """Per-row task: predict a flight's delay class; ``delay`` is a post-event column of the row."""
    rng = np.random.default_rng(seed)
    airport = pd.DataFrame({"aid": range(5)})
    t = rng.integers(0, 20, n)
    late = rng.integers(0, 2, n)
    flights = pd.DataFrame(
        {
            "fid": range(n),
            "aid": rng.integers(0, 5, n),
            "t": t,
            "delay": late * 30.0 + rng.normal(0, 1, n),
            "late": late,
        }
    )
    return Database(
        {"airport": Table(airport, {}, "aid", None), "flight": Table(flights, {"aid": "airport"}, "fid", "t")}
    )


def _flight_task(db, unknown=("delay",)):
    from toolkit_frog.relational import EntityTask, events_label_fn

    fn = events_label_fn(
        "fid", "time", "label", event_table="flight", event_fkey=None, kind="last", value_col="late"
    )
    return EntityTask(
        db=db,
        entity_table="flight",
        entity_col="fid",
        time_col="time",
        target_col="label",
        timedelta=1,
        task_type="binary_classification",
        label_fn=fn,
        val_timestamp=15,
        test_timestamp=17,
        train_start=0,
        unknown_at_seed=unknown,
        step=1,
    )


def test_post_event_column_is_masked_for_the_seed_row_and_kept_for_past_rows():
    from toolkit_frog.train import TrainConfig, make_batches, task_features, task_splits

    db = _flights()
    task = _flight_task(db, unknown=("delay", "late"))
    feats = task_features(task)
    f = feats["flight"]
    pos = [f.numeric_cols.index("delay"), f.numeric_cols.index("late")]
    miss = [f.numeric_cols.index("delay__missing"), f.numeric_cols.index("late__missing")]
    split = task_splits(task)["train"]
    g = make_frog_graph(db, [])
    cfg = TrainConfig(num_neighbors=(-1, -1), batch_size=None)
    batches = make_batches(g, feats, "flight", split, cfg, 1.0, 0, task.unknown_at_seed)
    n_past = 0
    for b in batches:
        x = b.num["flight"].numpy()
        seeds = b.seed_local.numpy()
        assert (x[seeds][:, pos] == 0).all() and (x[seeds][:, miss] == 1).all()  # masked in the seed rows
        others = np.setdiff1d(np.arange(len(x)), seeds)
        past = others[b.rel_time["flight"].numpy()[others] > 0]
        n_past += len(past)
        assert (x[past][:, miss] == 0).all()  # past flights keep their delay
    assert n_past > 0


def test_single_feature_leak_warns_and_masking_removes_it():
    from toolkit_frog.train import LeakageWarning, task_features, task_splits, warn_single_feature_leaks

    db = _flights()
    task = _flight_task(db, unknown=())
    feats = task_features(task)
    with pytest.warns(
        LeakageWarning, match=r"feature\(s\) delay \(1.000\).*alone predict the training label"
    ) as rec:
        warn_single_feature_leaks(task, feats, task_splits(task)["train"])
    assert rec[0].filename == __file__  # points at the caller's line
    masked = _flight_task(db, unknown=("delay", "late"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LeakageWarning)
        assert warn_single_feature_leaks(masked, task_features(masked), task_splits(masked)["train"]) == {}


def test_post_event_column_auroc_leaks_without_mask_and_not_with_it():
    from toolkit_frog.train import TrainConfig, run_models

    cfg = TrainConfig(epochs=5, channels=16, num_neighbors=(5, 5))
    db = _flights(600)
    with pytest.warns(Warning):
        leaky = run_models(_flight_task(db, unknown=()), ["row2node"], [], cfg, 0)["row2node"].test
    # about 30 test flights per seed: one seed's AUROC swings by +-0.2 (either aggregation), so average 3
    honest = np.mean(
        [
            run_models(
                _flight_task(_flights(600, seed=s), unknown=("delay", "late")), ["row2node"], [], cfg, s
            )["row2node"].test
            for s in range(3)
        ]
    )
    assert leaky > 0.95
    assert abs(honest - 0.5) < 0.12


def test_standardisation_fitted_on_rows_visible_at_fit_time():
    df = pd.DataFrame(
        {
            "id": range(6),
            "t": [0, 1, 2, 3, 10, 11],
            "v": [1.0, 2.0, 3.0, 2.0, 100.0, 200.0],
            "c": ["a", "b", "a", "b", "new", "new"],
        }
    )
    db = Database({"x": Table(df, {}, "id", "t")})
    f = encode_database(db, fit_time=3)["x"]
    v = f.numeric[:, f.numeric_cols.index("v")]
    past = np.array([1.0, 2.0, 3.0, 2.0])
    assert v[:4] == pytest.approx((past - past.mean()) / past.std(), abs=1e-6)
    assert f.categorical[4:, 0].tolist() == [0, 0]  # a category first seen after fit_time reads as unseen
    assert f.cardinalities == [3]
    whole = encode_database(db)["x"]
    assert whole.numeric[:4, 0].max() < 0  # fitted on all rows, the large future values pull the mean
