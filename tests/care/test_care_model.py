import numpy as np
import pytest
from toolkit_care.model import bayes_floor, error, make_model, simulate


def test_same_seed_same_table_other_seed_other_table():
    m = make_model(8, 2, 1.5, 2, 0.1, seed=3)
    for task in ("continuous", "binary", "pairwise"):
        a, b = simulate(m, 200, task, seed=5), simulate(m, 200, task, seed=5)
        assert np.array_equal(a.votes, b.votes) and np.array_equal(a.truth, b.truth)
        assert not np.array_equal(a.X, simulate(m, 200, task, seed=6).X)


def test_anchors_carry_only_their_leak_of_the_confounders():
    m = make_model(6, 1, 2.0, 2, 0.0, seed=0)
    assert np.all(m.B[:2] == 0) and np.all(m.B[2:] > 0)


def test_bayes_floor_is_the_optimal_linear_error_and_matches_a_large_sample():
    m = make_model(10, 1, 1.0, 2, 0.0, seed=1)
    w = m.optimal_weights()
    assert m.linear_error(w) == pytest.approx(m.bayes_error(), abs=1e-12)
    assert m.linear_error(np.ones(10)) > m.bayes_error()
    s = simulate(m, 200_000, "continuous", seed=2)
    assert error("continuous", s.X @ w, s.Q) == pytest.approx(m.bayes_error(), abs=0.01)
    b = simulate(m, 5000, "binary", seed=2)
    assert 0 < bayes_floor(m, b) < 0.5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_judges": 2}, "n_judges"), ({"n_anchors": 11}, "n_anchors"), ({"strength": -1}, "strength")],
)
def test_bad_model_parameters_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_model(**{"n_judges": 10, **kwargs})


def test_bad_task_is_refused():
    with pytest.raises(ValueError, match="task must be one of"):
        simulate(make_model(), 10, "ranking")
