"""A database whose label depends only on how many rows reference the entity (no toolkit imports).

Schema: ``customer(customer_id, x)``, ``store(store_id, size)``, ``orders(order_id, customer_id ->
customer, store_id -> store, time, amount)`` (``orders`` has two keys and no table points to it: an
edge candidate). A third of the customers order twice as often as the others; every column but
the keys and times is noise. The label of customer c at time t is 1 when c has placed more orders
up to t than the median customer. A mean over the orders cannot see this; a count (or a sum) can.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit_frog.planted import customer_task
from toolkit_frog.relational import Database, EntityTask, Table

TRAIN_START, VAL_T, TEST_T, DELTA, T_MAX = 4, 9, 10, 1, 11


def make_count_database(
    n_customers: int = 1000, orders_per_step: float = 1.0, n_stores: int = 25, seed: int = 0
) -> Database:
    """Customers with Poisson(orders_per_step) orders per time step (twice that for a third of them)
    at integer times 0..11, each at a random store."""
    if n_customers < 10:
        raise ValueError(f"n_customers must be >= 10, got {n_customers}")
    if orders_per_step <= 0:
        raise ValueError(f"orders_per_step must be > 0, got {orders_per_step}")
    if n_stores < 1:
        raise ValueError(f"n_stores must be >= 1, got {n_stores}")
    rng = np.random.default_rng(seed)
    rate = orders_per_step * np.where(rng.random(n_customers) < 1 / 3, 2.0, 1.0)
    n = rng.poisson(rate * (T_MAX + 1))
    cust = np.repeat(np.arange(n_customers), n)
    orders = pd.DataFrame(
        {
            "order_id": np.arange(len(cust)),
            "customer_id": cust,
            "store_id": rng.integers(0, n_stores, len(cust)),
            "time": rng.integers(0, T_MAX + 1, len(cust)),
            "amount": rng.normal(0.0, 1.0, len(cust)),
        }
    )
    return Database(
        {
            "customer": Table(
                pd.DataFrame({"customer_id": np.arange(n_customers), "x": rng.normal(size=n_customers)}),
                {},
                "customer_id",
                None,
            ),
            "store": Table(
                pd.DataFrame({"store_id": np.arange(n_stores), "size": rng.normal(size=n_stores)}),
                {},
                "store_id",
                None,
            ),
            "orders": Table(orders, {"customer_id": "customer", "store_id": "store"}, "order_id", "time"),
        }
    )


def count_label_fn(db: Database, timestamps: np.ndarray) -> pd.DataFrame:
    """Every customer at each t; label 1 when its orders up to t outnumber the median customer's."""
    o = db.resolved["orders"]
    ids = db["customer"].df["customer_id"].to_numpy()
    out = []
    for t in timestamps:
        seen = (o.time <= t) & (o.fkeys["customer_id"] >= 0)
        count = np.bincount(o.fkeys["customer_id"][seen], minlength=len(ids))
        out.append(
            pd.DataFrame({"customer_id": ids, "time": t, "label": (count > np.median(count)).astype(int)})
        )
    return pd.concat(out, ignore_index=True)


def count_task(db: Database) -> EntityTask:
    """Binary task on a count database: train seeds at t = 4..8, val at 9, test at 10."""
    return customer_task(db, count_label_fn, TRAIN_START, VAL_T, TEST_T, DELTA)
