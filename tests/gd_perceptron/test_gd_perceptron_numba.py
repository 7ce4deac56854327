"""The compiled one-run linear loop (numba) against the batched engine, on dense, sparse and staircase data."""

import math

import pytest
from toolkit_gd_perceptron import data, engine, models
from toolkit_gd_perceptron import simulation as sims

pytest.importorskip("numba")
from toolkit_gd_perceptron.engine_numba import linear_run

LINEAR_CASES = [
    ("gd", dict(mode="gd"), [1.0, 100.0, 1e4]),
    ("normalized gd", dict(mode="gd", normalized=True), [0.1, 10.0]),
    ("exponential", dict(mode="gd", loss="exponential"), [0.5, 5.0]),
    ("batch perceptron", dict(mode="perceptron", tie_weight=1.0), [1.0]),
    ("normalized batch perceptron", dict(mode="perceptron", tie_weight=1.0, normalized=True), [1.0]),
    ("gd limit", dict(mode="perceptron", tie_weight=0.5), [1.0]),
]


@pytest.mark.parametrize("label, opts, gammas", LINEAR_CASES, ids=[c[0] for c in LINEAR_CASES])
@pytest.mark.parametrize("dataset", ["planted", "r1", "staircase", "thm51"])
def test_compiled_loop_matches_the_batched_engine(label, opts, gammas, dataset):
    B, y = {
        "planted": lambda: data.planted(30, 12, 0.05, seed=3),
        "r1": lambda: data.r1(32),
        "staircase": lambda: data.staircase(12),
        "thm51": lambda: data.thm51(100),
    }[dataset]()
    lin = models.linear()
    W0, a0 = models.init_weights(lin, B.shape[1], [0])
    for g in gammas:
        expected = engine.run_batch(B, y, lin, [g], W0, a0, max_iter=3000, **opts).iterations[0]
        got = linear_run(B, y, g, max_iter=3000, **opts)[0]
        if dataset == "staircase" and opts["mode"] == "gd":
            # GD at finite gamma on the staircase meets near-ties: the last bits of the sums (CSR order vs
            # BLAS) move the count a little; the perceptron forms are exact
            assert abs(got - expected) <= 0.2 * expected
        else:
            assert got == expected


def test_exact_counts_through_the_compiled_loop_and_sparse_input():
    import scipy.sparse as sp

    for d in (8, 64, 128):
        B, y = data.staircase(d)
        assert linear_run(B, y, mode="perceptron", tie_weight=1.0, max_iter=10**6)[0] == d * d
        assert linear_run(sp.csr_matrix(B), y, mode="perceptron", tie_weight=1.0, max_iter=10**6)[0] == d * d
    for d in (16, 256, 4096):
        assert linear_run(*data.r1(d), mode="perceptron", tie_weight=1.0)[0] == 2 * d + 4
        assert linear_run(*data.r1(d), mode="perceptron", tie_weight=0.5)[0] == d + 4  # GD's limit on R1
    assert linear_run(*data.thm51(1000), mode="perceptron", tie_weight=1.0)[0] == 301  # Table 1
    with pytest.raises(ValueError, match="mode"):
        linear_run(*data.r1(8), mode="bogus")


def test_scaling_backends_agree_on_linear_runs():
    p = dict(d_values=[16, 64], gammas=[math.inf, 100.0])
    for dataset in ("r1", "staircase"):
        runs = {
            b: sims.scaling(sims.ScalingParams(dataset=dataset, backend=b, **p), seed=0).records
            for b in ("auto", "numpy", "numba")
        }
        counts = {b: [r["iterations"] for r in rows] for b, rows in runs.items()}
        assert counts["auto"] == counts["numpy"], dataset  # auto compiles the perceptron form only: exact
        perceptron = {
            b: [r["iterations"] for r in rows if math.isinf(r["gamma"])] for b, rows in runs.items()
        }
        assert perceptron["numba"] == perceptron["numpy"], dataset
    with pytest.raises(Exception, match="numba runs the linear model only"):
        sims.scaling(
            sims.ScalingParams(model="two_layer", backend="numba", d_values=[8], gammas=[math.inf]), seed=0
        )
