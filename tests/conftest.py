"""Test-wide settings: one torch/BLAS thread, the shared data root, a throw-away run store.

A test that needs a dataset absent from the data root is skipped with the command that fetches it
(``toolkit.testing.missing_data``); ``TOOLKIT_REQUIRE_DATA=1`` (CI) makes it fail instead.
"""

from __future__ import annotations

import os
from pathlib import Path

# small matrices on 2 cores: one thread is 10-40x faster than two
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

REPO = Path(__file__).resolve().parent.parent
_shared_data = REPO.parent / "shared" / "data"
if "TOOLKIT_DATA_DIR" not in os.environ and _shared_data.is_dir():
    os.environ["TOOLKIT_DATA_DIR"] = str(_shared_data)

import pytest

from toolkit.testing.missing_data import (  # noqa: F401  (hooks: missing data -> skip with the fetch command)
    pytest_make_collect_report,
    pytest_runtest_call,
    pytest_runtest_setup,
)

try:  # torch is optional for the core
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path_factory, monkeypatch):
    """Never write to the user's real run store from a test."""
    if "TOOLKIT_STORE" not in os.environ or not os.environ["TOOLKIT_STORE"].startswith(
        str(tmp_path_factory.getbasetemp())
    ):
        monkeypatch.setenv("TOOLKIT_STORE", str(tmp_path_factory.mktemp("store") / "runs.sqlite"))


@pytest.fixture(autouse=True)
def _close_figures():
    """Figures a test (or the code it runs in-process) leaves open are closed, so they do not pile up."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
