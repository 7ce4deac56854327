import pytest
from sbayfdnn_fixtures import SMALL_FIT
from toolkit_sbayfdnn.designs import simulate


@pytest.fixture(scope="session")
def linear_data():
    """A small two-region design with a linear link (train 200, test 300, m = 50)."""
    return simulate("two_region", "linear", 5.0, 200, 300, 50, seed=0)


@pytest.fixture(scope="session")
def fitted(linear_data):
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    d = linear_data
    return SparseBayesianFDNN(random_state=0, **SMALL_FIT).fit(d.X, d.y, d.grid)
