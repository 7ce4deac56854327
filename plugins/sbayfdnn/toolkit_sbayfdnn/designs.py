"""Synthetic functional regression designs with planted regions, and the real / semi-synthetic
curves (El Nino from statsmodels, ECG beats from neurokit2). Pure numpy; no toolkit imports.

Simulation design (the reference reconstruction, RECON): t on m points in [0, 1];
``X_i(t) = sum_{k=1..50} c_ik phi_k(t)``, ``phi_1 = 1``, ``phi_k = sqrt2 cos((k-1) pi t)``,
``c_ik = 3 k^-0.8 U(-sqrt3, sqrt3)``; ``eta = integral X beta`` standardised by its population sd;
``Y = g(eta) + eps`` with ``var g / sigma^2 = SNR``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

LINKS = {
    "linear": lambda u: u,
    "sin": lambda u: np.sin(2 * u) + u,
    "square": lambda u: u**2,
    "exp": lambda u: np.exp(u / 2),
}
"""Link functions g: u, sin 2u + u, u^2, e^(u/2)."""

REGIONS = {
    "two_region": [(0.1, 0.3), (0.6, 0.8)],
    "one_region": [(0.1, 0.3)],
    "null": [],
}
"""True regions (where beta is non-zero) of each design, in [0, 1]."""

N_COMPONENTS = 50
FINE_GRID = 4001  # quadrature grid for eta = integral X beta (exact up to ~1e-7)


def beta_function(design: str, t: np.ndarray) -> np.ndarray:
    """beta(t) of a design: two bumps 3 sin(pi(t-0.1)/0.2) on [0.1,0.3] and -3 sin(pi(t-0.6)/0.2) on
    [0.6,0.8]; the one-region design keeps the first; the null design is beta = 0."""
    if design not in REGIONS:
        raise ValueError(f"design: must be one of {', '.join(REGIONS)}, got {design!r}")
    t = np.asarray(t, dtype=float)
    beta = np.zeros_like(t)
    if design in ("two_region", "one_region"):
        inside = (t >= 0.1) & (t <= 0.3)
        beta += np.where(inside, 3 * np.sin(np.pi * (t - 0.1) / 0.2), 0.0)
    if design == "two_region":
        inside = (t >= 0.6) & (t <= 0.8)
        beta -= np.where(inside, 3 * np.sin(np.pi * (t - 0.6) / 0.2), 0.0)
    return beta


def cosine_basis(t: np.ndarray) -> np.ndarray:
    """phi_1..phi_50 on t: (len(t), 50)."""
    k = np.arange(1, N_COMPONENTS + 1)
    phi = np.sqrt(2) * np.cos((k[None, :] - 1) * np.pi * np.asarray(t)[:, None])
    phi[:, 0] = 1.0
    return phi


@dataclass
class FunctionalData:
    """Curves on a common grid with a response and, when planted, the truth."""

    X: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    f_test: np.ndarray | None = None  # noiseless E[y | X] on the test set
    true_regions: list = field(default_factory=list)  # in grid units
    beta: np.ndarray | None = None  # true beta on the grid
    noise_sd: float = float("nan")
    description: str = ""

    @property
    def oracle_rmse(self) -> float:
        """RMSE of the true regression function on the noisy test responses."""
        return float(np.sqrt(np.mean((self.y_test - self.f_test) ** 2)))


def simulate(
    design: str = "two_region",
    link: str = "linear",
    snr: float = 5.0,
    n_train: int = 500,
    n_test: int = 2000,
    m: int = 100,
    seed: int = 0,
) -> FunctionalData:
    """Draw a train/test split of the design. For ``design='null'`` y is pure noise of variance 1."""
    if link not in LINKS:
        raise ValueError(f"link: must be one of {', '.join(LINKS)}, got {link!r}")
    if snr <= 0:
        raise ValueError(f"snr: must be > 0, got {snr}")
    if n_train < 2 or n_test < 1 or m < 4:
        raise ValueError(f"need n_train >= 2, n_test >= 1, m >= 4; got {n_train}, {n_test}, {m}")
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    k = np.arange(1, N_COMPONENTS + 1)
    coef = 3 * k**-0.8 * rng.uniform(-np.sqrt(3), np.sqrt(3), size=(n, N_COMPONENTS))
    grid = np.linspace(0.0, 1.0, m)
    X = coef @ cosine_basis(grid).T
    fine = np.linspace(0.0, 1.0, FINE_GRID)
    beta_fine = beta_function(design, fine)
    # eta_i = sum_k c_ik integral phi_k beta; population sd uses var(c_ik) = 9 k^-1.6
    inner = np.trapezoid(cosine_basis(fine) * beta_fine[:, None], fine, axis=0)
    eta_raw = coef @ inner
    pop_sd = float(np.sqrt(np.sum(9 * k**-1.6 * inner**2)))
    if design == "null":
        f = np.zeros(n)
        noise_sd = 1.0
    else:
        f = LINKS[link](eta_raw / pop_sd)
        noise_sd = float(np.sqrt(np.var(f) / snr))
    y = f + noise_sd * rng.standard_normal(n)
    return FunctionalData(
        X=X[:n_train],
        y=y[:n_train],
        grid=grid,
        X_test=X[n_train:],
        y_test=y[n_train:],
        f_test=f[n_train:],
        true_regions=list(REGIONS[design]),
        beta=beta_function(design, grid),
        noise_sd=noise_sd,
        description=f"{design} design, link {link}, SNR {snr}, n = {n_train}",
    )


def elnino_curves() -> FunctionalData:
    """statsmodels El Nino sea-surface temperatures (61 years x 12 months) as curves on months 1..12.

    Response (our choice, the data set has none): the mean temperature of January-March of the
    *next* year, so 60 (curve, response) pairs; no planted truth.
    """
    import statsmodels.api as sm

    frame = sm.datasets.elnino.load_pandas().data
    months = frame.columns[1:]
    curves = frame[months].to_numpy(dtype=float)
    y = curves[1:, :3].mean(axis=1)
    return FunctionalData(
        X=curves[:-1],
        y=y,
        grid=np.arange(1.0, 13.0),
        description="El Nino SST (statsmodels): year t curve -> mean Jan-Mar of year t+1",
    )


def ecg_beats(
    n_train: int = 300,
    n_test: int = 300,
    m: int = 100,
    window_s: float = 0.6,
    qrs_halfwidth_s: float = 0.05,
    snr: float = 5.0,
    seed: int = 0,
) -> FunctionalData:
    """Semi-synthetic ECG design: neurokit2-simulated beats cut around their R peaks onto a common grid
    (seconds relative to the R peak); the response depends on the QRS window only.

    ``y = integral_{|t| <= qrs_halfwidth} X(t) w(t) dt`` (w a half-sine bump over the window),
    standardised, plus Gaussian noise at the given SNR; the QRS window is the true region.
    The first ``n_train`` beats are the training set, the next ``n_test`` the test set.
    """
    import neurokit2 as nk

    rng = np.random.default_rng(seed)
    n_beats = n_train + n_test
    sampling_rate = 250
    grid = np.linspace(-window_s / 3, 2 * window_s / 3, m)
    beats = []
    chunk = 0
    duration = int(np.clip(n_beats / 1.1 + 5, 10, 60))  # seconds per simulated record (~1.2 beats/s)
    while len(beats) < n_beats and chunk < 200:
        heart_rate = float(rng.uniform(55, 85))
        ecg = nk.ecg_simulate(
            duration=duration,
            sampling_rate=sampling_rate,
            heart_rate=heart_rate,
            heart_rate_std=3,
            noise=0.02,
            method="ecgsyn",
            random_state=int(rng.integers(2**31)),
        )
        _, info = nk.ecg_peaks(ecg, sampling_rate=sampling_rate)
        times = np.arange(len(ecg)) / sampling_rate
        for peak in info["ECG_R_Peaks"]:
            t_peak = peak / sampling_rate
            if t_peak + grid[0] < 0 or t_peak + grid[-1] > times[-1]:
                continue
            beats.append(np.interp(t_peak + grid, times, ecg))
        chunk += 1
    X = np.asarray(beats)
    X = X[rng.permutation(len(X))[:n_beats]]
    if len(X) < n_beats:
        raise RuntimeError(f"neurokit2 produced only {len(X)} beats, fewer than n_beats = {n_beats}")
    weight = np.where(np.abs(grid) <= qrs_halfwidth_s, np.cos(np.pi * grid / (2 * qrs_halfwidth_s)), 0.0)
    eta = np.trapezoid(X * weight[None, :], grid, axis=1)
    eta = (eta - eta.mean()) / eta.std()
    noise_sd = float(np.sqrt(1.0 / snr))
    y = eta + noise_sd * rng.standard_normal(n_beats)
    return FunctionalData(
        X=X[:n_train],
        y=y[:n_train],
        grid=grid,
        X_test=X[n_train:],
        y_test=y[n_train:],
        f_test=eta[n_train:],
        true_regions=[(-qrs_halfwidth_s, qrs_halfwidth_s)],
        beta=weight,
        noise_sd=noise_sd,
        description=f"neurokit2 ECG beats, response on the QRS window +/-{qrs_halfwidth_s}s",
    )


def simulate_offset(
    link: str = "linear",
    snr: float = 5.0,
    n_train: int = 200,
    n_test: int = 1000,
    m: int = 100,
    offset_sd: float = 10.0,
    baseline_sd: float = 3.0,
    smoothness: float = 2.0,
    seed: int = 0,
) -> FunctionalData:
    """Hard design for users' curves: a large common offset, random linear baselines, strong collinearity.

    ``X_i(t) = a_i + b_i (t - 1/2) + S_i(t)`` with ``a_i ~ N(0, offset_sd^2)`` (common offset),
    ``b_i ~ N(0, baseline_sd^2)`` (random baseline slope) and a smooth signal
    ``S_i = sum_{k=2..50} c_ik phi_k``, ``c_ik = 3 k^-smoothness U(-sqrt3, sqrt3)`` (smoothness 2:
    neighbouring grid values almost collinear; the reference design has 0.8 and includes phi_1).
    The response depends on the signal only, through the two planted regions:
    ``y = g(eta) + eps``, ``eta = integral S beta`` standardised by its population sd (beta of the
    two-region design, which integrates to 0, so the offset alone carries no information either way).
    The offsets and baselines are the variation a user's spectra are dominated by, unrelated to y.
    """
    if link not in LINKS:
        raise ValueError(f"link: must be one of {', '.join(LINKS)}, got {link!r}")
    for name, value in (("snr", snr), ("smoothness", smoothness)):
        if not value > 0:
            raise ValueError(f"{name}: must be > 0, got {value}")
    for name, value in (("offset_sd", offset_sd), ("baseline_sd", baseline_sd)):
        if not value >= 0:
            raise ValueError(f"{name}: must be >= 0, got {value}")
    if n_train < 2 or n_test < 1 or m < 4:
        raise ValueError(f"need n_train >= 2, n_test >= 1, m >= 4; got {n_train}, {n_test}, {m}")
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    k = np.arange(1, N_COMPONENTS + 1)
    scale = 3 * k ** -float(smoothness)
    scale[0] = 0.0  # the constant component is the offset below
    coef = scale * rng.uniform(-np.sqrt(3), np.sqrt(3), size=(n, N_COMPONENTS))
    grid = np.linspace(0.0, 1.0, m)
    offset = offset_sd * rng.standard_normal(n)
    slope = baseline_sd * rng.standard_normal(n)
    X = coef @ cosine_basis(grid).T + offset[:, None] + slope[:, None] * (grid - 0.5)[None, :]
    fine = np.linspace(0.0, 1.0, FINE_GRID)
    inner = np.trapezoid(cosine_basis(fine) * beta_function("two_region", fine)[:, None], fine, axis=0)
    pop_sd = float(np.sqrt(np.sum(scale**2 * inner**2)))  # var U(-sqrt3, sqrt3) = 1
    f = LINKS[link](coef @ inner / pop_sd)
    noise_sd = float(np.sqrt(np.var(f) / snr))
    y = f + noise_sd * rng.standard_normal(n)
    return FunctionalData(
        X=X[:n_train],
        y=y[:n_train],
        grid=grid,
        X_test=X[n_train:],
        y_test=y[n_train:],
        f_test=f[n_train:],
        true_regions=list(REGIONS["two_region"]),
        beta=beta_function("two_region", grid),
        noise_sd=noise_sd,
        description=f"offset design (offset sd {offset_sd}, baseline sd {baseline_sd}, "
        f"smoothness {smoothness}), link {link}, SNR {snr}, n = {n_train}",
    )


def tecator_curves() -> FunctionalData:
    """Tecator (sktime's copy of the Monash TSER problem, shipped inside the package): near-infrared
    absorbance spectra of meat, 100 channels (850-1050 nm), response fat content (%); the standard
    split is 172 training and 43 test spectra. No planted truth."""
    from sktime.datasets import load_tecator

    parts = {}
    for split in ("train", "test"):
        X, y = load_tecator(split=split, return_X_y=True, return_type="numpy2D")
        parts[split] = (np.asarray(X, dtype=float), np.asarray(y, dtype=float))
    grid = np.linspace(850.0, 1050.0, parts["train"][0].shape[1])
    return FunctionalData(
        X=parts["train"][0],
        y=parts["train"][1],
        grid=grid,
        X_test=parts["test"][0],
        y_test=parts["test"][1],
        true_regions=None,
        description="Tecator NIR spectra (sktime), fat %, 172 train / 43 test",
    )


def covid_curves() -> FunctionalData:
    """Covid3Month (sktime's copy of the Monash TSER problem, shipped inside the package): daily
    confirmed COVID-19 cases of a country over three months (84 days, WHO data), response the
    country's death rate on 1 April 2020; the standard split is 140 training and 61 test curves.
    No planted truth."""
    from sktime.datasets import load_covid_3month

    parts = {}
    for split in ("train", "test"):
        X, y = load_covid_3month(split=split, return_X_y=True)
        parts[split] = (
            np.stack([np.asarray(row, dtype=float) for row in X.iloc[:, 0]]),
            np.asarray(y, dtype=float),
        )
    grid = np.arange(1.0, parts["train"][0].shape[1] + 1.0)
    return FunctionalData(
        X=parts["train"][0],
        y=parts["train"][1],
        grid=grid,
        X_test=parts["test"][0],
        y_test=parts["test"][1],
        true_regions=None,
        description="Covid3Month (sktime): daily cases over 84 days -> death rate, 140 train / 61 test",
    )


def tecator_mixtures(n: int = 400, m: int = 600, n_test: int = 100, seed: int = 0) -> FunctionalData:
    """A larger NIR case built from Tecator: every one of its 215 spectra (train and test) resampled to
    ``m`` wavelengths on 850-1050 nm (cubic spline), then ``n + n_test`` curves drawn as mixtures
    u x_i + (1 - u) x_j of two random spectra with fat u y_i + (1 - u) y_j (absorbance and fat content both
    mix linearly, Beer-Lambert), u ~ U(0, 1), plus channel noise at 1% of the spectra's sd. It is
    NIR-like, not new measurements: a stand-in for a user's own 400 x 600 spectra."""
    from scipy.interpolate import CubicSpline

    base = tecator_curves()
    X = np.vstack([base.X, base.X_test])
    y = np.concatenate([base.y, base.y_test])
    grid = np.linspace(850.0, 1050.0, m)
    Xm = CubicSpline(base.grid, X, axis=1)(grid)
    rng = np.random.default_rng([seed, 215])
    total = n + n_test
    i, j = rng.integers(0, len(y), total), rng.integers(0, len(y), total)
    u = rng.uniform(0.0, 1.0, total)
    curves = u[:, None] * Xm[i] + (1 - u)[:, None] * Xm[j]
    curves += 0.01 * Xm.std() * rng.standard_normal(curves.shape)
    fat = u * y[i] + (1 - u) * y[j]
    return FunctionalData(
        X=curves[:n],
        y=fat[:n],
        grid=grid,
        X_test=curves[n:],
        y_test=fat[n:],
        true_regions=None,
        description=f"Tecator mixtures: {n} train / {n_test} test spectra x {m} wavelengths (NIR-like)",
    )
