"""A small retail database written as a SQLite file, and its task spec: the offline stand-in for
"your own database" (walk-through, tests, the quick run of ``frog.database``). No toolkit imports.

Schema (``CREATE TABLE`` with primary and foreign keys, so SQLAlchemy reflects them):
``customer(customer_id, region, signup_year)``, ``product(product_id, category, price)``,
``invoice(invoice_id, customer_id -> customer, invoice_date, channel)`` and
``line_item(line_id, invoice_id -> invoice, product_id -> product, quantity)``: the line-item
table has no date of its own; its rows inherit their invoice's date.

Each customer has a latent activity rate: it sets how often the customer buys (invoices are a
Poisson process over 2020-2021) and tilts which product category it buys (so the products on
past line items carry the signal too). Task: will the customer place an invoice in the next 60
days (``any``), for customers with an invoice before t.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

START, END = np.datetime64("2020-01-01"), np.datetime64("2021-12-31")
CATEGORIES = ("basics", "garden", "tools", "premium")

DEMO_SPEC = {
    "entity_table": "customer",
    "label": {"kind": "any", "table": "invoice", "fkey": "customer_id"},
    "timedelta": "60D",
    "train_start": "2020-07-01",
    "step": "60D",
    "val_timestamps": ["2021-05-01", "2021-07-01"],
    "test_timestamps": ["2021-09-01", "2021-11-01"],
    "time_cols": {"invoice": "invoice_date"},
    "edge_tables": ["line_item"],
}

_SCHEMA = """
CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, region TEXT, signup_year INTEGER);
CREATE TABLE product (product_id INTEGER PRIMARY KEY, category TEXT, price REAL);
CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id),
                      invoice_date TEXT, channel TEXT);
CREATE TABLE line_item (line_id INTEGER PRIMARY KEY, invoice_id INTEGER REFERENCES invoice(invoice_id),
                        product_id INTEGER REFERENCES product(product_id), quantity INTEGER);
"""


def write_demo_sqlite(path: str | Path, n_customers: int = 600, n_products: int = 40, seed: int = 0) -> Path:
    """Write the retail database to ``path`` (overwritten); all randomness from ``seed``."""
    if n_customers < 20 or n_products < len(CATEGORIES):
        raise ValueError(
            f"need n_customers >= 20 and n_products >= {len(CATEGORIES)}, got {n_customers}, {n_products}"
        )
    rng = np.random.default_rng(seed)
    path = Path(path)
    if path.exists():
        path.unlink()
    rate = rng.gamma(1.2, 1.0, n_customers) / 60.0  # invoices per day; mean one per 50 days
    days = int((END - START).astype(int))
    cat_of = np.arange(n_products) % len(CATEGORIES)
    customers = [
        (int(c), str(rng.choice(["north", "south", "east", "west"])), int(rng.integers(2015, 2020)))
        for c in range(n_customers)
    ]
    products = [
        (int(p), CATEGORIES[cat_of[p]], float(np.round(rng.lognormal(2 + 0.3 * cat_of[p], 0.4), 2)))
        for p in range(n_products)
    ]
    invoices, lines = [], []
    for c in range(n_customers):
        n = rng.poisson(rate[c] * days)
        when = np.sort(rng.integers(0, days, n))
        active = rate[c] > np.median(rate)  # busy customers favour the premium category
        for d in when:
            inv = len(invoices)
            invoices.append(
                (inv, c, str(START + np.timedelta64(int(d), "D")), str(rng.choice(["web", "store"])))
            )
            probs = np.array([1.0, 1.0, 1.0, 3.0 if active else 0.3])
            for _ in range(int(rng.integers(1, 5))):
                cat = rng.choice(len(CATEGORIES), p=probs / probs.sum())
                prod = int(rng.choice(np.flatnonzero(cat_of == cat)))
                lines.append((len(lines), inv, prod, int(rng.integers(1, 4 if active else 2))))
    con = sqlite3.connect(path)
    try:
        con.executescript(_SCHEMA)
        con.executemany("INSERT INTO customer VALUES (?, ?, ?)", customers)
        con.executemany("INSERT INTO product VALUES (?, ?, ?)", products)
        con.executemany("INSERT INTO invoice VALUES (?, ?, ?, ?)", invoices)
        con.executemany("INSERT INTO line_item VALUES (?, ?, ?, ?)", lines)
        con.commit()
    finally:
        con.close()
    return path
