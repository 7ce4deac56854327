"""Unit-level "Must show" items: PIP closed form, threshold, region example, partition of unity,
mixture = Gaussian at equal variances, Laplace evidence vs brute force, Jacobian and GGN pieces."""

import math

import numpy as np
import pytest
import torch
from toolkit_sbayfdnn import basis
from toolkit_sbayfdnn.network import (
    PriorConfig,
    flatten,
    forward,
    gauss_newton_hessian,
    init_params,
    laplace_log_evidence,
    neg_log_prior,
    one_column_toy_evidence,
    output_jacobian,
    unflatten,
)
from toolkit_sbayfdnn.prior import (
    gaussian_logpdf_norm,
    inclusion_probability,
    inclusion_probability_from_densities,
    log_mixture_prior,
    pip_logit,
    pip_threshold,
    torch_log_mixture_prior,
)

SPEC = dict(H=64, lam=1e-5, sigma0_sq=1e-5, sigma1_sq=2e-3)


def test_pip_closed_form_within_1e12_of_definition():
    norms = np.linspace(0.0, 0.012, 1201)
    closed = inclusion_probability(norms, **SPEC)
    direct = inclusion_probability_from_densities(norms, **SPEC)
    assert np.max(np.abs(closed - direct)) <= 1e-12
    assert closed[0] < 1e-50 and closed[-1] > 1 - 1e-12  # both regimes are covered by the range


def test_pip_is_exactly_half_at_threshold_and_threshold_matches_spec():
    threshold = pip_threshold(**SPEC)
    assert threshold == pytest.approx(3.6394e-3, abs=5e-8)
    assert abs(pip_logit(threshold, **SPEC)) < 1e-12
    assert inclusion_probability(threshold, **SPEC) == pytest.approx(0.5, abs=1e-12)
    assert (
        inclusion_probability(threshold * 1.01, **SPEC)
        > 0.5
        > inclusion_probability(threshold * 0.99, **SPEC)
    )


def test_threshold_needs_a_spike_narrower_than_the_slab():
    with pytest.raises(ValueError, match="sigma0_sq must be smaller"):
        pip_threshold(64, 1e-5, 2e-3, 1e-5)
    with pytest.raises(ValueError, match="lam"):
        pip_threshold(64, 1.5, 1e-5, 2e-3)


def test_mixture_prior_equals_gaussian_when_variances_are_equal():
    norms = np.linspace(0, 3, 50)
    for lam in (1e-5, 0.3, 0.9):
        mix = log_mixture_prior(norms, 8, lam, 0.7, 0.7)
        np.testing.assert_allclose(mix, gaussian_logpdf_norm(norms, 8, 0.7), rtol=0, atol=1e-12)
    t = torch_log_mixture_prior(torch.tensor(norms), 8, 0.3, 0.7, 0.7).numpy()
    np.testing.assert_allclose(t, gaussian_logpdf_norm(norms, 8, 0.7), atol=1e-12)


def test_torch_and_numpy_mixture_agree():
    norms = np.linspace(0, 0.02, 101)
    a = log_mixture_prior(norms, 64, 1e-5, 1e-5, 5e-3)
    b = torch_log_mixture_prior(torch.tensor(norms, dtype=torch.float64), 64, 1e-5, 1e-5, 5e-3).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_region_example_of_the_spec():
    assert basis.selected_regions({0, 1, 2, 17, 18, 19}, 24, 4) == [(0.0, 0.15), (0.65, 1.0)]


def test_merge_intervals_and_region_inclusion():
    assert basis.merge_intervals([(0.5, 0.7), (0.0, 0.2), (0.2, 0.3)]) == [(0.0, 0.3), (0.5, 0.7)]
    pip = np.zeros(24)
    pip[[0, 1, 2]] = [0.9, 0.6, 0.7]
    regions = basis.selected_regions([0, 1, 2], 24, 4)
    assert basis.region_inclusion(regions, pip, 24, 4)[0] == pytest.approx(1 - 0.1 * 0.4 * 0.3)


@pytest.mark.parametrize("degree", [0, 1, 3, 4])
def test_partition_of_unity_of_the_projection(degree):
    grid = np.linspace(0, 1, 100)
    z = basis.project(np.ones((3, 100)), grid, 24, degree)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-6)
    # an uneven grid in other units: the unit interval is the reference measure
    uneven = np.sort(np.random.default_rng(0).uniform(2, 7, 80))
    z = basis.project(np.ones((2, 80)), uneven, 10, degree)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-6)


def test_projection_is_the_integral_against_each_basis_function():
    grid = np.linspace(0, 1, 2001)
    X = np.sin(3 * grid)[None, :]
    z = basis.project(X, grid, 8, 3)
    design = basis.bspline_design(grid, 8, 3)
    exact = [np.trapezoid(np.sin(3 * grid) * design[:, j], grid) for j in range(8)]
    np.testing.assert_allclose(z[0], exact, atol=1e-12)


def test_region_metrics_on_the_grid():
    u = np.linspace(0, 1, 101)
    truth = basis.region_mask(u, [(0.1, 0.3), (0.6, 0.8)])
    assert truth.sum() == 42
    m = basis.region_metrics(truth, truth)
    assert m == {"tpr": 1.0, "fpr": 0.0, "f1": 1.0}
    everything = basis.region_metrics(np.ones(101, bool), truth)
    assert everything["tpr"] == 1.0 and everything["fpr"] == 1.0
    assert everything["f1"] == pytest.approx(2 * 42 / (2 * 42 + 59))


def test_laplace_evidence_within_5_percent_of_brute_force_on_one_column_toy():
    for seed in range(3):
        result = one_column_toy_evidence(seed=seed)
        assert result["relative_gap"] <= 0.05, result


def test_laplace_is_exact_for_a_gaussian_objective():
    # exp(-n obj) with obj quadratic integrates in closed form: the Laplace formula must be exact
    n, d = 40, 3
    A = torch.tensor([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.5]], dtype=torch.float64)
    mu = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)

    def objective(theta):
        diff = theta - mu
        return 0.5 * diff @ A @ diff + 0.25

    result = laplace_log_evidence(objective, mu, n)
    exact = -n * 0.25 + 0.5 * d * math.log(2 * math.pi) - 0.5 * float(torch.logdet(n * A))
    assert result["log_evidence"] == pytest.approx(exact, abs=1e-10)


def _toy_network(seed=0):
    g = torch.Generator().manual_seed(seed)
    params = [p.double() for p in init_params(1, 5, (6, 4), g)]
    shapes = [torch.Size([6, 5])] + [p.shape for p in params[1:]]
    theta = flatten([params[0][0]] + params[1:])
    Z = torch.randn(11, 5, generator=g, dtype=torch.float64)
    return params, shapes, theta, Z


def test_hand_written_jacobian_matches_autograd():
    _, shapes, theta, Z = _toy_network()

    def f(th):
        parts = unflatten(th, shapes)
        return forward([parts[0].unsqueeze(0)] + parts[1:], Z)[0]

    expected = torch.func.jacrev(f)(theta)
    assert torch.allclose(output_jacobian(shapes, theta, Z), expected, atol=1e-12)


def test_gauss_newton_prior_block_matches_exact_prior_hessian():
    # with a huge noise variance the likelihood part vanishes and the GGN is the prior's exact Hessian
    params, shapes, theta, Z = _toy_network()
    prior = PriorConfig(lam=0.1, sigma0_sq=0.01, sigma1_sq=0.5, sigma_other_sq=2.0)
    y = torch.zeros(Z.shape[0], dtype=torch.float64)
    ggn = gauss_newton_hessian(shapes, theta, Z, y, task="regression", prior=prior, noise_var=1e30)

    def nlp(th):
        parts = unflatten(th, shapes)
        return neg_log_prior([parts[0].unsqueeze(0)] + parts[1:], prior, None)[0] / Z.shape[0]

    exact = torch.func.hessian(nlp)(theta)
    assert torch.allclose(ggn, exact, atol=1e-9)
