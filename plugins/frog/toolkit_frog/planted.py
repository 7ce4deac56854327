"""Synthetic relational databases with a planted signal (no toolkit imports).

Schema: ``customer(customer_id, x)``, ``product(product_id, price)``,
``review(review_id, customer_id -> customer, product_id -> product, time, rating)`` (the bridge),
``vote(vote_id, review_id -> review, time, value)``, ``purchase(purchase_id, customer_id -> customer,
time, category)``. Each customer c has a latent group g_c and a seed time s_c; it writes its reviews
at times in [0, s_c] and makes one purchase at s_c + 1 whose ``category`` is the label (the task:
"category of the customer's purchase in (t, t + 1]").

Signal kinds (``strength`` in [0, 1] scales the planted effect):

* ``edge_easy`` / ``edge_hard``: customers review products of their own group with probability
  h = 1/2 + (0.4 | 0.25) * strength; the label only shows through co-reviewers (customer -
  review - product - review - customer: 4 Row2Node hops, 2 Row2Edge hops) plus a weak own
  feature x ~ N(+-mu_x, 1) (mu_x = 0.55 easy, 0.3 hard). Votes are noise.
* ``node``: products are random (h = 1/2); each review has 3 votes whose value ~ N(+-0.6 *
  strength, 1): the signal sits in rows attached to the bridge rows (customer - review - vote,
  2 Row2Node hops), which the Row2Edge graph drops. Own feature: noise.
* ``mixed``: both, at half strength.
* ``none``: nothing but the future purchase carries the label (leakage test: chance level).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from toolkit_frog.relational import Database, EntityTask, Table

SignalKind = Literal["edge_easy", "edge_hard", "node", "mixed", "none"]
SIGNAL_KINDS: tuple[str, ...] = ("edge_easy", "edge_hard", "node", "mixed", "none")

TRAIN_START, VAL_T, TEST_T, DELTA = 4, 9, 10, 1


@dataclass(frozen=True)
class PlantedSpec:
    homophily: float  # P(review goes to a product of the customer's group)
    reviews_per_customer: int
    mu_x: float  # own-feature signal of a customer
    votes_per_review: int
    mu_vote: float  # vote-value signal


def planted_spec(kind: str, strength: float = 1.0) -> PlantedSpec:
    if kind not in SIGNAL_KINDS:
        raise ValueError(f"signal kind must be one of {', '.join(SIGNAL_KINDS)}, got {kind!r}")
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must be in [0, 1], got {strength}")
    s = strength
    if kind == "edge_easy":
        return PlantedSpec(0.5 + 0.4 * s, 8, 0.55, 1, 0.0)
    if kind == "edge_hard":
        return PlantedSpec(0.5 + 0.25 * s, 3, 0.3, 1, 0.0)
    if kind == "node":
        return PlantedSpec(0.5, 4, 0.0, 3, 0.6 * s)
    if kind == "mixed":
        return PlantedSpec(0.5 + 0.2 * s, 4, 0.2, 2, 0.3 * s)
    return PlantedSpec(0.5, 4, 0.0, 1, 0.0)


def make_planted_database(
    kind: str = "edge_easy",
    strength: float = 1.0,
    n_customers: int = 3000,
    n_products: int = 200,
    seed: int = 0,
) -> Database:
    """A database with a planted signal (see module docstring); all randomness from ``seed``."""
    spec = planted_spec(kind, strength)
    if n_customers < 10 or n_products < 2:
        raise ValueError(f"need n_customers >= 10 and n_products >= 2, got {n_customers}, {n_products}")
    rng = np.random.default_rng(seed)
    g_c = rng.integers(0, 2, n_customers)
    g_p = np.arange(n_products) % 2  # balanced product groups
    rng.shuffle(g_p)
    seed_time = rng.integers(TRAIN_START, TEST_T + 1, n_customers)
    sign = 2 * g_c - 1
    customer = pd.DataFrame({"customer_id": np.arange(n_customers), "x": rng.normal(spec.mu_x * sign, 1.0)})
    product = pd.DataFrame({"product_id": np.arange(n_products), "price": rng.normal(0, 1, n_products)})
    k = spec.reviews_per_customer
    rc = np.repeat(np.arange(n_customers), k)
    same = rng.random(len(rc)) < spec.homophily
    want = np.where(same, g_c[rc], 1 - g_c[rc])
    by_group = [np.flatnonzero(g_p == 0), np.flatnonzero(g_p == 1)]
    rp = np.where(want == 0, rng.choice(by_group[0], len(rc)), rng.choice(by_group[1], len(rc)))
    rt = rng.integers(0, seed_time[rc] + 1)
    review = pd.DataFrame(
        {
            "review_id": np.arange(len(rc)),
            "customer_id": rc,
            "product_id": rp,
            "time": rt,
            "rating": rng.normal(0, 1, len(rc)),
        }
    )
    nv = spec.votes_per_review
    vr = np.repeat(np.arange(len(rc)), nv)
    vote = pd.DataFrame(
        {
            "vote_id": np.arange(len(vr)),
            "review_id": vr,
            "time": rt[vr],  # votes arrive with their review
            "value": rng.normal(spec.mu_vote * sign[rc[vr]], 1.0),
        }
    )
    label = g_c if kind != "none" else rng.integers(0, 2, n_customers)
    purchase = pd.DataFrame(
        {
            "purchase_id": np.arange(n_customers),
            "customer_id": np.arange(n_customers),
            "time": seed_time + DELTA,
            "category": label,
        }
    )
    return Database(
        {
            "customer": Table(customer, {}, "customer_id", None),
            "product": Table(product, {}, "product_id", None),
            "review": Table(
                review, {"customer_id": "customer", "product_id": "product"}, "review_id", "time"
            ),
            "vote": Table(vote, {"review_id": "review"}, "vote_id", "time"),
            "purchase": Table(purchase, {"customer_id": "customer"}, "purchase_id", "time"),
        }
    )


def purchase_label_fn(db: Database, timestamps: np.ndarray) -> pd.DataFrame:
    """Customers who purchase in (t, t+1]; label = 1 if that purchase's category is 1."""
    p = db.resolved["purchase"]
    cat = p.table.df["category"].to_numpy()
    c = db["customer"]
    pkey_values = c.df[c.pkey_col].to_numpy()  # labels name customers by primary-key value
    out = []
    for t in timestamps:
        m = (p.time > t) & (p.time <= t + DELTA) & (p.fkeys["customer_id"] >= 0)
        df = pd.DataFrame({"customer_id": pkey_values[p.fkeys["customer_id"][m]], "label": cat[m]})
        df = df.groupby("customer_id", as_index=False)["label"].max()
        df["time"] = t
        out.append(df)
    return pd.concat(out, ignore_index=True)[["customer_id", "time", "label"]]


def customer_task(
    db: Database,
    label_fn,
    train_start: int = TRAIN_START,
    val_timestamp: int = VAL_T,
    test_timestamp: int = TEST_T,
    delta: int = DELTA,
) -> EntityTask:
    """Binary task on the ``customer`` table of a synthetic database, labelled by ``label_fn(db, ts)``:
    train seeds at ``train_start .. val_timestamp - 1``, validation at ``val_timestamp``, test at
    ``test_timestamp`` (defaults 4..8, 9, 10), each label over the next ``delta``."""
    return EntityTask(
        db=db,
        entity_table="customer",
        entity_col="customer_id",
        time_col="time",
        target_col="label",
        timedelta=delta,
        task_type="binary_classification",
        label_fn=label_fn,
        val_timestamp=val_timestamp,
        test_timestamp=test_timestamp,
        train_start=train_start,
    )


def planted_task(db: Database) -> EntityTask:
    """Binary task on a planted database: train seeds at t = 4..8, val at 9, test at 10."""
    return customer_task(db, purchase_label_fn)


def make_untimed_link_database(
    hops: int = 2, n_customers: int = 400, seed: int = 0, static_link: bool = False
) -> Database:
    """A future label that is reachable at ``hops`` hops only through an untimed link table.

    ``customer`` (static) <- ``s1`` <- ... <- ``s{hops-1}`` (static chain, one row per customer)
    <- ``line`` (no time column; keys to the chain's last table and to ``invoice``) -> ``invoice``
    (timed, -> customer). Every customer has past invoices with a random ``category`` and one
    invoice at s_c + 1 whose category is the label; each invoice has two lines whose ``value`` copies
    its invoice's category. A line of the future invoice is ``hops`` hops from the customer through
    the chain: visible there unless the line inherits its invoice's time (``static_link=True``
    declares the line table static: the leaky control).
    """
    if hops < 1:
        raise ValueError(f"hops must be >= 1, got {hops}")
    rng = np.random.default_rng(seed)
    seed_time = rng.integers(TRAIN_START, TEST_T + 1, n_customers)
    label = rng.integers(0, 2, n_customers)
    n_past = rng.integers(2, 5, n_customers)
    inv_c = np.concatenate([np.repeat(np.arange(n_customers), n_past), np.arange(n_customers)])
    inv_t = np.concatenate(
        [rng.integers(0, seed_time[np.repeat(np.arange(n_customers), n_past)] + 1), seed_time + DELTA]
    )
    inv_cat = np.concatenate([rng.integers(0, 2, int(n_past.sum())), label])
    n_inv = len(inv_c)
    tables = {
        "customer": Table(
            pd.DataFrame({"customer_id": np.arange(n_customers), "x": rng.normal(size=n_customers)}),
            {},
            "customer_id",
            None,
        ),
        "invoice": Table(
            pd.DataFrame(
                {"invoice_id": np.arange(n_inv), "customer_id": inv_c, "time": inv_t, "category": inv_cat}
            ),
            {"customer_id": "customer"},
            "invoice_id",
            "time",
        ),
    }
    parent = "customer"
    for i in range(1, hops):
        tables[f"s{i}"] = Table(
            pd.DataFrame(
                {
                    f"s{i}_id": np.arange(n_customers),
                    "ref": np.arange(n_customers),
                    "z": rng.normal(size=n_customers),
                }
            ),
            {"ref": parent},
            f"s{i}_id",
            None,
        )
        parent = f"s{i}"
    line_inv = np.repeat(np.arange(n_inv), 2)
    line = pd.DataFrame(
        {
            "line_id": np.arange(len(line_inv)),
            "invoice_id": line_inv,
            "owner": inv_c[line_inv],  # the chain row of the invoice's customer (row i = customer i)
            "value": inv_cat[line_inv].astype(float),
        }
    )
    tables["line"] = Table(line, {"invoice_id": "invoice", "owner": parent}, "line_id", None)
    return Database(tables, static_tables=["line"] if static_link else ())


def untimed_link_task(db: Database) -> EntityTask:
    """Category of the customer's invoice in (t, t + 1]; train seeds t = 4..8, val 9, test 10."""
    from toolkit_frog.relational import events_label_fn

    fn = events_label_fn(
        "customer_id",
        "time",
        "label",
        event_table="invoice",
        event_fkey="customer_id",
        kind="last",
        value_col="category",
    )
    return EntityTask(
        db=db,
        entity_table="customer",
        entity_col="customer_id",
        time_col="time",
        target_col="label",
        timedelta=DELTA,
        task_type="binary_classification",
        label_fn=fn,
        val_timestamp=VAL_T,
        test_timestamp=TEST_T,
        train_start=TRAIN_START,
    )
