"""Bring your own database: the task spec, the demo SQLite, the frog.database simulation and CLI."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from toolkit_frog.demo import DEMO_SPEC, write_demo_sqlite
from toolkit_frog.relational import ALWAYS, SchemaError
from toolkit_frog.spec import load_database, read_spec


@pytest.fixture(scope="module")
def retail(tmp_path_factory):
    path = write_demo_sqlite(tmp_path_factory.mktemp("retail") / "retail.db", n_customers=120, seed=0)
    return path, load_database(str(path), read_spec(DEMO_SPEC))


def test_demo_sqlite_loads_with_reflected_keys_and_inherited_line_times(retail):
    path, db = retail
    assert db["invoice"].fkey_col_to_pkey_table == {"customer_id": "customer"}
    assert db["line_item"].fkey_col_to_pkey_table == {"invoice_id": "invoice", "product_id": "product"}
    assert db.time_kind == "datetime"
    assert db.inherited_times == {"line_item": ("invoice_id",)}
    inv_time = pd.Series(db.resolved["invoice"].time, index=db["invoice"].df.invoice_id)
    assert np.array_equal(
        db.resolved["line_item"].time, inv_time.loc[db["line_item"].df.invoice_id].to_numpy()
    )
    assert (db.resolved["customer"].time == ALWAYS).all()
    again = load_database(f"sqlite:///{path}", read_spec(DEMO_SPEC))  # a SQLAlchemy URL works the same
    assert again.n_rows == db.n_rows


def test_spec_builds_the_task(retail):
    _, db = retail
    task = read_spec(DEMO_SPEC).task(db)
    assert task.task_type == "binary_classification" and task.delta == pd.Timedelta("60D").value
    assert len(task.split_timestamps("val")) == 2 and len(task.split_timestamps("test")) == 2
    val = task.get_table("val", mask_input_cols=False)
    assert set(val.label.unique()) == {0, 1}


def test_spec_label_kinds(retail):
    _, db = retail
    base = {k: v for k, v in DEMO_SPEC.items() if k not in ("label",)}
    for kind, col in (("count", None), ("sum", "quantity"), ("mean", "quantity")):
        table = "invoice" if col is None else "line_item"
        label = {"kind": kind, "table": table} | ({"column": col} if col else {})
        if table == "line_item":  # line items reference invoices, not customers: label on invoices instead
            with pytest.raises(SchemaError, match="foreign keys to 'customer'"):
                read_spec({**base, "label": label}).task(db)
            continue
        task = read_spec({**base, "label": label}).task(db)
        assert task.task_type == "regression"
        assert (task.get_table("val", mask_input_cols=False).label >= 0).all()
    own = read_spec(
        {
            **base,
            "entity_table": "invoice",
            "label": {"kind": "future_column", "table": "invoice", "column": "customer_id"},
        }
    ).task(db)
    assert own.unknown_at_seed == ("customer_id",)  # the seed row's own label column is masked


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"entity_table": "customer"}, r"missing key\(s\) \['label', 'timedelta'"),
        ({**DEMO_SPEC, "labels": {}}, r"unknown key\(s\) \['labels'\]"),
        ({**DEMO_SPEC, "label": {"kind": "median", "table": "invoice"}}, "label.kind must be one of"),
        ({**DEMO_SPEC, "label": {"kind": "sum", "table": "invoice"}}, "needs label.column"),
        ({**DEMO_SPEC, "timedelta": 60}, "timedelta=60 is a bare number"),
        ({**DEMO_SPEC, "entity_table": "client"}, "entity_table 'client' is not in the database"),
        (
            {**DEMO_SPEC, "label": {"kind": "any", "table": "invoice", "fkey": "invoice_id"}},
            "does not reference",
        ),
    ],
)
def test_spec_errors_name_the_key(retail, spec, match):
    _, db = retail
    with pytest.raises(SchemaError, match=match):
        read_spec(spec).task(db)


def test_spec_from_file_and_bad_json(tmp_path):
    p = tmp_path / "task.json"
    p.write_text(json.dumps(DEMO_SPEC))
    assert read_spec(str(p)).raw == DEMO_SPEC
    p.write_text('{"entity_table": "customer",\n "label": }')
    with pytest.raises(SchemaError, match=r"task.json: not valid JSON \(line 2"):
        read_spec(str(p))
    with pytest.raises(SchemaError, match="neither a JSON object nor an existing file"):
        read_spec(str(tmp_path / "nope.json"))


def test_database_simulation_quick_defaults_compare_four_models():
    from toolkit_frog.simulation import SIMULATIONS, DatabaseParams, database

    sim = next(s for s in SIMULATIONS if s.name == "frog.database")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = database(DatabaseParams(**sim.quick), seed=0)
    rows = pd.DataFrame(out.records)
    assert rows.model.tolist() == ["row2node", "row2edge", "frog", "lgbm"]
    assert rows.test_auroc.between(0, 1).all()
    assert 0 < rows.pi_line_item[2] < 1
    assert rows.role_line_item.tolist()[0:2] == ["nodes", "edges"]
    # two epochs move no role: said in the row, and the value is kept out of the summary
    assert "not moved" in rows.role_line_item[2] and "pi_line_item" not in out.summary


def test_cli_path_on_a_sqlite_file(tmp_path, capsys):
    """`toolkit run frog.database -p url=... -p task=task.json` on a SQLite file made here."""
    from toolkit.cli import main

    db_path = write_demo_sqlite(tmp_path / "shop.db", n_customers=80, seed=1)
    task = tmp_path / "task.json"
    task.write_text(json.dumps(DEMO_SPEC))
    out_csv = tmp_path / "out.csv"
    args = [
        "--store",
        str(tmp_path / "runs.sqlite"),
        "run",
        "frog.database",
        "-p",
        f"url={db_path}",
        "-p",
        f"task={task}",
        "-p",
        "epochs=1",
        "-p",
        "channels=8",
        "-p",
        "fanout=3",
        "-p",
        "models=row2node,frog",
        "--out",
        str(out_csv),
    ]
    code = 0
    try:
        main(args)
    except SystemExit as e:
        code = e.code or 0
    assert code == 0, capsys.readouterr().err
    table = pd.read_csv(out_csv)
    assert table.model.tolist() == ["row2node", "frog"] and "pi_line_item" in table.columns
    for bad, match in ((f"url={tmp_path / 'missing.db'}", "parameter url"), ("task={}", "parameter task")):
        code = 0
        try:
            main(
                [
                    *args[:4],
                    "-p",
                    bad,
                    *(["-p", f"task={task}"] if bad.startswith("url") else ["-p", f"url={db_path}"]),
                    "--no-cache",
                ]
            )
        except SystemExit as e:
            code = e.code
        assert code == 2 and match in capsys.readouterr().err


def test_roles_outside_the_receptive_field_are_reported_not_reached():
    """The link table is 3 hops from the entity; with 2 layers its role gets no gradient."""
    from toolkit_frog.planted import make_untimed_link_database, untimed_link_task
    from toolkit_frog.train import TrainConfig, run_models

    db = make_untimed_link_database(3, n_customers=100, seed=0)
    # make 'line' a candidate with 2 keys; owner -> s2 (2 hops), invoice -> customer
    cfg = TrainConfig(epochs=2, channels=8, num_neighbors=(5, 5), num_layers=2)
    res = run_models(untimed_link_task(db), ["frog"], ["line"], cfg, 0)["frog"]
    assert res.unreached == {}  # through invoice, line reaches the customer at 2 hops
    cfg1 = TrainConfig(epochs=2, channels=8, num_neighbors=(5,), num_layers=1)
    res1 = run_models(untimed_link_task(db), ["frog"], ["line"], cfg1, 0)["frog"]
    assert res1.unreached == {"line": "not reached (2 hops > 1 layers)"}
    assert res1.pi == {} and res1.history["pi_line"].isna().all()
    assert res1.role("line") == "not reached (2 hops > 1 layers)"
