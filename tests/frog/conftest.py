import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd
import pytest
import torch
from toolkit_frog.relational import Database, Table

torch.set_num_threads(1)


@pytest.fixture
def shop_db():
    """customer <- review -> product, with one dangling review key and a vote table on reviews."""
    cust = pd.DataFrame({"cid": [10, 11, 12], "age": [1.0, 2.0, 3.0]})
    prod = pd.DataFrame({"pid": ["a", "b"], "price": [1.0, 2.0]})
    rev = pd.DataFrame(
        {
            "rid": [0, 1, 2, 3, 4],
            "cid": [10, 11, 12, 12, 99],
            "pid": ["a", "a", "b", "a", "b"],
            "t": [1, 2, 3, 4, 5],
            "rating": [1, 2, 3, 4, 5],
        }
    )
    vote = pd.DataFrame({"vid": [0, 1, 2], "rid": [0, 2, 4], "t": [1, 3, 6], "v": [1.0, -1.0, 0.5]})
    with pytest.warns(UserWarning, match="1 of 5 values of foreign key 'cid'"):
        return Database(
            {
                "customer": Table(cust, {}, "cid", None),
                "product": Table(prod, {}, "pid", None),
                "review": Table(rev, {"cid": "customer", "pid": "product"}, "rid", "t"),
                "vote": Table(vote, {"rid": "review"}, "vid", "t"),
            }
        )
