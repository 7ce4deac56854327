"""Designs and data loaders: planted truth, SNR, seeding, El Nino and ECG shapes."""

import numpy as np
import pytest
from toolkit_sbayfdnn.designs import LINKS, beta_function, ecg_beats, elnino_curves, simulate


def test_true_region_is_forty_percent_and_beta_vanishes_outside():
    t = np.linspace(0, 1, 100001)
    beta = beta_function("two_region", t)
    assert np.mean(beta != 0) == pytest.approx(0.4, abs=1e-3)
    assert np.all(beta[(t < 0.1) | ((t > 0.3) & (t < 0.6)) | (t > 0.8)] == 0)
    assert np.all(beta_function("null", t) == 0)
    assert np.all(beta_function("one_region", t)[t > 0.3] == 0)


@pytest.mark.parametrize("link", list(LINKS))
def test_snr_and_oracle(link):
    d = simulate("two_region", link, 5.0, 2000, 2000, 50, seed=0)
    assert d.oracle_rmse == pytest.approx(d.noise_sd, rel=0.05)
    assert np.var(d.f_test) / d.noise_sd**2 == pytest.approx(5.0, rel=0.15)
    # the noiseless test response is the link applied to the standardised index
    assert np.all(d.f_test >= 0) if link in ("square", "exp") else np.any(d.f_test < 0)


def test_eta_is_standardised_by_its_population_sd():
    d = simulate("two_region", "linear", 1e6, 5000, 10, 50, seed=1)  # nearly noiseless: y ~ eta
    assert np.std(d.y) == pytest.approx(1.0, rel=0.05)
    assert abs(np.mean(d.y)) < 0.05


def test_simulation_is_seeded():
    a, b, c = (simulate("one_region", "sin", 5.0, 20, 10, 30, seed=s) for s in (3, 3, 4))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.allclose(a.y, c.y)


def test_bad_design_arguments():
    with pytest.raises(ValueError, match="link"):
        simulate(link="cubic")
    with pytest.raises(ValueError, match="design"):
        simulate(design="three_region")
    with pytest.raises(ValueError, match="snr"):
        simulate(snr=0.0)


def test_elnino_curves():
    d = elnino_curves()
    assert d.X.shape == (60, 12) and d.y.shape == (60,)
    np.testing.assert_array_equal(d.grid, np.arange(1, 13))
    assert 20 < d.X.mean() < 30  # sea-surface temperatures in deg C


def test_ecg_beats_are_aligned_on_the_r_peak():
    d = ecg_beats(n_train=40, n_test=10, m=60, seed=0)
    assert d.X.shape == (40, 60) and d.X_test.shape == (10, 60)
    peak = np.argmin(np.abs(d.grid))
    # the R peak (largest deflection) sits at t = 0 for most beats
    assert np.mean(np.abs(np.argmax(d.X, axis=1) - peak) <= 2) > 0.8
    assert d.true_regions == [(-0.05, 0.05)]
    assert np.all(d.beta[np.abs(d.grid) > 0.05] == 0)


def test_registered_datasets_load():
    import toolkit

    registry = toolkit.get_registry()
    data = registry.datasets["sbayfdnn.synthetic"].load(n_train=20, n_test=5, m=20, link="exp")
    assert data.X.shape == (20, 20)


def test_offset_design_is_dominated_by_variation_unrelated_to_y():
    from toolkit_sbayfdnn.designs import simulate_offset

    d = simulate_offset(n_train=400, n_test=2000, seed=0)
    level = d.X.mean(axis=1)  # offset (plus a little signal): most of the curves' variance
    assert np.var(level) > 0.8 * np.var(d.X - d.X.mean(axis=0))
    assert abs(np.corrcoef(level, d.y)[0, 1]) < 0.15  # ... and unrelated to the response
    assert d.true_regions == [(0.1, 0.3), (0.6, 0.8)]
    assert np.var(d.f_test) / d.noise_sd**2 == pytest.approx(5.0, rel=0.5)
    with pytest.raises(ValueError, match="offset_sd"):
        simulate_offset(offset_sd=-1.0)
    np.testing.assert_array_equal(simulate_offset(seed=3).X, simulate_offset(seed=3).X)


def test_tecator_and_covid_load_offline_from_sktime_with_the_standard_split():
    import toolkit

    registry = toolkit.get_registry()
    tecator = registry.datasets["sbayfdnn.tecator"].load()
    assert tecator.X.shape == (172, 100) and tecator.X_test.shape == (43, 100)
    assert tecator.grid[0] == 850.0 and tecator.grid[-1] == 1050.0
    assert 0 < tecator.y.min() and tecator.y.max() < 100  # fat, %
    covid = registry.datasets["sbayfdnn.covid"].load()
    assert covid.X.shape == (140, 84) and covid.X_test.shape == (61, 84) and covid.y.shape == (140,)
    assert np.all(covid.X >= 0) and np.all((covid.y >= 0) & (covid.y <= 1))  # case counts, death rate
    offset = registry.datasets["sbayfdnn.offset"].load(n_train=20, n_test=5, m=30)
    assert offset.X.shape == (20, 30)
