"""Registered datasets: real binary problems as (X, y) pairs for ``svrg_poco.convergence`` (dataset=)."""

from __future__ import annotations

from toolkit import Dataset


def affairs():
    """statsmodels' Fair (1978) affairs survey: 6,366 women x 8 raw features (rating of the marriage,
    age, years married, children, religiousness, education, own and husband's occupation); y = 1
    when any time was spent in extramarital affairs (2,053 of 6,366). Shipped inside statsmodels."""
    import numpy as np
    from statsmodels.datasets import fair

    frame = fair.load_pandas().data
    y = (frame.pop("affairs") > 0).astype(float).to_numpy()
    return frame.to_numpy(dtype=np.float64), y


DATASETS = [
    Dataset(
        name="svrg_poco.affairs",
        description="statsmodels' Fair affairs survey (6,366 x 8 raw features, binary: any affair); "
        "ill-conditioned on raw features",
        loader=affairs,
    ),
]
