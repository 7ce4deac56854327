import numpy as np
import pytest
from toolkit_care.care_svd import CareSVD, correlation
from toolkit_care.model import make_model, simulate
from toolkit_care.precision import decompose

import toolkit


def objective(sigma, S, L, gamma):
    """The program's objective at (S, L), penalty at the published level."""
    lam = 4e-3 / np.sqrt(sigma.shape[0])
    R = S - L
    return 0.5 * np.trace(R @ sigma @ R) - np.trace(R) + lam * (gamma * np.abs(S).sum() + np.trace(L))


def simulated_correlation(seed=0):
    model = make_model(8, 1, 1.0, 2, 0.0, seed)
    return correlation(simulate(model, 500, "continuous", seed).votes)


def test_clarabel_and_a_tight_scs_reach_the_same_optimum():
    sigma = simulated_correlation()
    S_c, L_c = decompose(sigma, gamma=1.0, solver="clarabel")
    S_s, L_s = decompose(sigma, gamma=1.0, max_iters=200_000, eps=1e-10)
    assert objective(sigma, S_c, L_c, 1.0) == pytest.approx(objective(sigma, S_s, L_s, 1.0), abs=1e-7)
    assert np.abs(L_c - L_s).max() < 1e-3
    for M in (S_c, L_c):
        assert np.linalg.eigvalsh(M).min() > -1e-6


def test_scs_at_the_published_settings_stops_where_the_objective_is_flat_in_L():
    # the published code's settings: SCS's default tolerance, at most 10,000 iterations
    X = toolkit.get_registry().dataset("care.asset").load().X
    sigma = correlation(X)
    S_s, L_s = decompose(sigma, gamma=1.0, max_iters=10000)
    S_c, L_c = decompose(sigma, gamma=1.0, solver="clarabel")
    f_s, f_c = objective(sigma, S_s, L_s, 1.0), objective(sigma, S_c, L_c, 1.0)
    assert f_c <= f_s + 1e-8
    assert f_s - f_c < 1e-4 * abs(f_c)
    assert np.abs(L_s - L_c).max() > 0.1


def test_an_unknown_solver_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"solver must be one of \('auto', 'scs', 'clarabel'\)"):
        CareSVD(solver="mosek")
    with pytest.raises(ValueError, match="solver must be one of"):
        decompose(np.eye(3), gamma=1.0, solver="mosek")
    sim = toolkit.get_registry().simulation("care.benchmark")
    with pytest.raises(ValueError, match="solver"):
        sim.params(solver="mosek")


def test_the_principled_mode_runs_with_either_solver():
    model = make_model(8, 1, 1.0, 2, 0.0, 1)
    votes = simulate(model, 400, "continuous", 1).votes
    fits = [
        CareSVD("principled", gamma_grid=(1, 10), scale_grid=(1, 100), solver=s, seed=1).fit(votes)
        for s in ("scs", "clarabel")
    ]
    for fit in fits:
        assert np.isfinite(fit.weights_).all() and fit.rank_ >= 1


def test_auto_is_scs_for_the_faithful_mode_and_clarabel_for_the_principled_one():
    assert CareSVD("faithful").solver_used == "scs"
    assert CareSVD("principled").solver_used == "clarabel"
    assert CareSVD("principled", solver="scs").solver_used == "scs"
    sigma = simulated_correlation(2)
    fit = CareSVD("principled", gamma_grid=(1,), scale_grid=(1,), rank_by="eigengap").fit(
        simulate(make_model(8, 1, 1.0, 2, 0.0, 2), 500, "continuous", 2).votes
    )
    _, L_c = decompose(sigma, gamma=1.0, solver="clarabel")
    assert np.abs(fit.L_ - L_c).max() < 1e-4
    assert "_programs" not in vars(fit)  # the compiled programs do not outlive the fit
