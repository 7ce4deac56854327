"""A fixture plugin whose dataset lives under the data root and is fetched from a declared source.

The tests serve the archive themselves on 127.0.0.1; they pass its address and SHA-256 through
``DATAFIX_URL`` and ``DATAFIX_SHA256`` (read when the plugin registers its datasets). With
``DATAFIX_SHA256=none`` the source declares no checksum.
"""

from __future__ import annotations

import os

import toolkit
from toolkit import Comparison, Dataset, DatasetMissingError, DataSource, Experiment, ExperimentOutcome
from toolkit.settings import data_path

__version__ = "0.1.0"

TARGET = "datafix/walks"


def load_walks() -> list[int]:
    """The integers in ``<data root>/datafix/walks/values.txt``, one per line."""
    path = data_path(TARGET, "values.txt")
    if not path.is_file():
        raise DatasetMissingError(f"datafix.walks not found: expected {path}", dataset="datafix.walks")
    return [int(line) for line in path.read_text().split()]


def _mean_experiment(quick: bool) -> ExperimentOutcome:
    import pandas as pd

    values = load_walks()
    table = pd.DataFrame({"value": values})
    mean = float(table["value"].mean())
    return ExperimentOutcome(table=table, comparisons=[Comparison("mean value", "2", f"{mean:g}", mean == 2)])


def _wrapped_experiment(quick: bool) -> ExperimentOutcome:
    """Like a plugin that turns the missing data into a parameter error (``from None``)."""
    from toolkit.errors import ParameterError

    try:
        load_walks()
    except DatasetMissingError as exc:
        raise ParameterError(f"parameter 'dataset': {exc}") from None
    return _mean_experiment(quick)


def _source() -> DataSource:
    sha = os.environ.get("DATAFIX_SHA256", "0" * 64)
    return DataSource(
        url=os.environ.get("DATAFIX_URL", "http://127.0.0.1:9/walks.tar.gz"),
        sha256=None if sha == "none" else sha,
        target=TARGET,
        unpack="tar",
        strip_components=1,
        license="CC0-1.0 (test fixture)",
        size_bytes=200,
    )


@toolkit.hookimpl
def toolkit_register_datasets():
    return [
        Dataset(
            name="datafix.walks",
            description="integers read from the data root",
            loader=load_walks,
            source=_source(),
        )
    ]


@toolkit.hookimpl
def toolkit_register_experiments():
    return [
        Experiment(
            name="datafix.mean", description="The mean of the fetched values is 2.", run=_mean_experiment
        ),
        Experiment(
            name="datafix.wrapped", description="The same, through a wrapped error.", run=_wrapped_experiment
        ),
    ]
