"""The optimizers against their identities, each other, and scikit-learn's optimum."""

import numpy as np
import pytest
from toolkit_svrg_poco import optimizers as opt
from toolkit_svrg_poco.problems import (
    CallableProblem,
    LeastSquares,
    Logistic,
    conditioned_least_squares,
    optimum,
)
from toolkit_svrg_poco.runs import cached_problem, epochs_to, method_iterator, suboptimality_curve


def _take(iterator, k):
    out = None
    for _ in range(k):
        out = next(iterator)
    return out


@pytest.fixture(scope="module")
def cancer():
    return cached_problem("breast_cancer", 10.0, None, 1000, 0)


def test_isotropic_poco_iterates_are_svrg_with_step_n_eta(cancer):
    problem = cancer[0]
    eta = 0.2 / problem.smoothness / problem.n
    a = _take(opt.poco_iso(problem, eta, 300, seed=1), 6)
    b = _take(opt.svrg(problem, eta * problem.n, 300, seed=1, option="I", engine="numpy"), 6)
    assert a[0] == b[0]
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=1e-12)


def test_isotropic_poco_with_alpha_is_alpha_svrg(cancer):
    problem = cancer[0]
    eta = 0.2 / problem.smoothness / problem.n
    a = _take(opt.poco_iso(problem, eta, 300, seed=2, alpha=0.4), 5)
    b = _take(opt.svrg(problem, eta * problem.n, 300, seed=2, alpha=0.4, option="I", engine="numpy"), 5)
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=1e-12)


def test_von_poco_natural_form_equals_closed_form(cancer):
    problem = cancer[0]
    a = _take(opt.von_poco(problem, 0.7, 60, seed=3, alpha=0.8), 5)
    b = _take(opt.von_poco(problem, 0.7, 60, seed=3, alpha=0.8, natural_form=True), 5)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10, atol=1e-12)


def test_on_quadratics_the_newton_like_estimator_is_the_full_gradient_and_one_step_converges():
    problem = conditioned_least_squares(1000.0, n=300, seed=4)
    w_star, p_star = optimum(problem)
    rng = np.random.default_rng(0)
    mean, m_out = rng.standard_normal(problem.dim), rng.standard_normal(problem.dim)
    N = problem.n
    G_hat, S_hat = N * problem.grad(m_out), N * problem.hess(m_out)
    full = N * problem.grad(mean)
    for i in range(0, N, 37):
        idx = np.array([i])
        H_bar = S_hat / N - problem.mean_hess(m_out, idx)
        direction = (
            N * (problem.sample_grads(mean, idx)[0] - problem.sample_grads(m_out, idx)[0])
            + G_hat
            + N * H_bar @ (mean - m_out)
        )
        np.testing.assert_allclose(direction, full, rtol=1e-9, atol=1e-9 * np.abs(full).max())
    # eta = 1 from the snapshot: one inner step reaches the optimum at kappa = 1000
    it = opt.von_poco(problem, 1.0, 1, seed=0)
    next(it)
    _, w, _ = next(it)
    assert np.linalg.norm(w - w_star) < 1e-8 * max(1.0, np.linalg.norm(w_star))


@pytest.mark.parametrize("name", ["least_squares", "breast_cancer"])
def test_compiled_and_plain_inner_loops_agree(name):
    problem, _, _ = cached_problem(name, 10.0, None, 200, 0)
    step = 0.2 / problem.smoothness
    for option in ("I", "II"):
        a = _take(opt.svrg(problem, step, 150, seed=5, option=option, alpha=0.7, engine="numba"), 4)
        b = _take(opt.svrg(problem, step, 150, seed=5, option=option, alpha=0.7, engine="numpy"), 4)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-11, atol=1e-13)
    a = _take(opt.sgd(problem, step, seed=6, engine="numba"), 3)
    b = _take(opt.sgd(problem, step, seed=6, engine="numpy"), 3)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-11, atol=1e-13)


def test_every_gradient_evaluation_is_counted(cancer):
    problem = cancer[0]
    N, m = problem.n, 100
    ends = [
        e
        for e, _, info in _iter_until(opt.svrg(problem, 0.1 / problem.smoothness, m, seed=0), 3)
        if info.get("end_of_loop")
    ]
    assert ends[:2] == [N + 2 * m, 2 * (N + 2 * m)]
    records = [e for e, _, _ in _iter_until(opt.von_poco(problem, 1.0, m, seed=0), 3)]
    assert records[1] == 2 * N + 4 * m  # snapshot: N gradients + N Hessians; 4 per inner step


def _iter_until(iterator, n):
    out = []
    for item in iterator:
        out.append((item[0], item[1].copy(), dict(item[2])))
        if len(out) > n:
            break
    return out


def test_optimum_agrees_with_scikit_learn_saga(cancer):
    from sklearn.linear_model import LogisticRegression

    problem, w_star, p_star = cancer
    clf = LogisticRegression(
        solver="saga",
        C=1 / (problem.n * problem.lam),
        fit_intercept=False,
        tol=1e-12,
        max_iter=100_000,
        random_state=0,
    ).fit(problem.X, problem.y)
    assert abs(problem.value(clf.coef_.ravel()) - p_star) < 1e-8


def test_gate_g1_seed_0():
    problem, w_star, p_star = cached_problem("least_squares", 10.0, None, 1000, 0)
    L = problem.smoothness
    svrg = suboptimality_curve(
        problem,
        p_star,
        method_iterator(problem, "svrg", step=0.25 / L, m=2 * problem.n, seed=0),
        max_epochs=60,
    )
    sgd = suboptimality_curve(
        problem, p_star, method_iterator(problem, "sgd", step=0.1 / L, m=0, seed=0), max_epochs=100
    )
    assert epochs_to(svrg, 1e-6) <= 40
    assert sgd[-1]["rel_suboptimality"] > 1e-5


def test_a_users_own_problem_from_callables_converges():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((80, 3)), rng.standard_normal(80)
    user = CallableProblem(
        n=80,
        dim=3,
        grad_i=lambda w, i: (X[i] @ w - y[i]) * X[i],
        loss_i=lambda w, i: 0.5 * (X[i] @ w - y[i]) ** 2,
        hess_i=lambda w, i: np.outer(X[i], X[i]),
        L=float((X**2).sum(1).max()),
    )
    reference = LeastSquares(X, y)
    w_star, p_star = optimum(reference)
    rows = suboptimality_curve(
        user,
        p_star,
        method_iterator(user, "svrg", step=0.2 / user.smoothness, m=160, seed=0),
        max_epochs=60,
        tol=1e-10,
    )
    assert rows[-1]["rel_suboptimality"] <= 1e-10
    rows = suboptimality_curve(
        user, p_star, method_iterator(user, "von_poco", step=1.0, m=8, seed=0), max_epochs=10
    )
    assert rows[-1]["rel_suboptimality"] <= 1e-10


def test_bad_input_is_refused_with_the_parameter_named():
    X = np.ones((10, 2))
    with pytest.raises(ValueError, match="y must hold two classes"):
        Logistic(X, np.arange(10.0), 1e-2)
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        Logistic(X, np.r_[np.zeros(5), np.ones(5)], 0.0)
    with pytest.raises(ValueError, match=r"y must have shape \(10,\)"):
        LeastSquares(X, np.ones(9))
    with pytest.raises(ValueError, match="finite"):
        LeastSquares(np.full((10, 2), np.nan), np.ones(10))
    with pytest.raises(ValueError, match="loss_i"):
        CallableProblem(n=3, dim=2, grad_i=lambda w, i: w)
    problem, _, _ = cached_problem("least_squares", 10.0, None, 200, 0)
    with pytest.raises(ValueError, match="method must be one of"):
        method_iterator(problem, "saga", step=0.1, m=10, seed=0)
    user = CallableProblem(n=3, dim=2, grad_i=lambda w, i: w, loss_i=lambda w, i: 0.0)
    with pytest.raises(ValueError, match="engine='numba' needs a built-in array problem"):
        next(opt.svrg(user, 0.1, 5, seed=0, engine="numba"))


def test_minibatch_optimizers_run_on_numpy_and_torch_alike(cancer):
    torch = pytest.importorskip("torch")
    from toolkit_svrg_poco.minibatch import OPTIMIZERS, ProblemOracle

    problem = cancer[0]

    class TorchOracle(ProblemOracle):  # same batches and noise, tensors instead of arrays
        def grad(self, theta, batch):
            return torch.as_tensor(super().grad(theta.numpy(), batch))

        def normal_like(self, theta):
            return torch.as_tensor(self.noise.standard_normal(tuple(theta.shape)))

    for name in OPTIMIZERS:
        results = []
        for oracle, theta in (
            (ProblemOracle(problem, 0), np.zeros(problem.dim)),
            (TorchOracle(problem, 0), torch.zeros(problem.dim, dtype=torch.float64)),
        ):
            optimizer = OPTIMIZERS[name](oracle, 0.01)
            for _ in range(2):
                if optimizer.snapshots:
                    optimizer.snapshot(theta)
                for batch in oracle.epoch_batches():
                    theta = optimizer.step(theta, batch)
            results.append((np.asarray(optimizer.mean(theta)), optimizer.evals))
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
        assert results[0][1] == results[1][1]
        assert problem.value(results[0][0]) < problem.value(np.zeros(problem.dim)), name


def _mlp_reference_run(step_ours, step_reference, steps=60):
    """Runs our optimizer and a reference one on the digits MLP from the same weights, batches and noise."""
    torch = pytest.importorskip("torch")
    from toolkit_svrg_poco.mlp import DigitsMLP

    class GlobalNoise(DigitsMLP):  # the references draw their noise from torch's global generator
        def normal_like(self, theta):
            return torch.randn(theta.shape, dtype=theta.dtype)

    oracle = GlobalNoise(0)
    batches = [b for _ in range(2) for b in oracle.epoch_batches()][:steps]
    torch.manual_seed(7)
    ours = step_ours(oracle, oracle.initial(0), batches)
    torch.manual_seed(7)
    param = torch.nn.Parameter(oracle.initial(0).clone())
    step_reference(oracle, param, batches)
    return ours, param.detach()


def test_our_adam_is_torchs_adam_on_the_mlp():
    from toolkit_svrg_poco.minibatch import Adam

    def ours(oracle, theta, batches):
        adam = Adam(oracle, 3e-3)
        for b in batches:
            theta = adam.step(theta, b)
        return theta

    def reference(oracle, param, batches):
        import torch

        adam = torch.optim.Adam([param], lr=3e-3)
        for b in batches:
            adam.zero_grad()
            oracle.loss(param, oracle.X_train[b], oracle.y_train[b]).backward()
            adam.step()

    a, b = _mlp_reference_run(ours, reference)
    assert float((a - _initial_mlp_weights()).abs().max()) > 1e-2  # the runs went somewhere
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("beta2", [0.99999, 0.99])  # the spec's, and one where the Hessian estimate h moves
def test_our_ivon_is_ivon_opt_on_the_mlp(beta2):
    ivon = pytest.importorskip(
        "ivon", reason="the IVON reference: pip install 'theory-toolkit-svrg-poco[reference]'"
    )
    from toolkit_svrg_poco.minibatch import IVON

    def ours(oracle, theta, batches):
        opt_ = IVON(oracle, 0.15, beta2=beta2)
        for b in batches:
            theta = opt_.step(theta, b)
        return theta

    def reference(oracle, param, batches):
        opt_ = ivon.IVON(
            [param], lr=0.15, ess=oracle.n, weight_decay=1e-4, hess_init=1.0, beta1=0.9, beta2=beta2
        )
        for b in batches:
            with opt_.sampled_params(train=True):
                opt_.zero_grad()
                oracle.loss(param, oracle.X_train[b], oracle.y_train[b]).backward()
            opt_.step()

    a, b = _mlp_reference_run(ours, reference)
    moved = float((a - _initial_mlp_weights()).abs().max())
    assert moved > 1e-2  # the runs went somewhere
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def _initial_mlp_weights():
    from toolkit_svrg_poco.mlp import DigitsMLP

    return DigitsMLP(0).initial(0)


def test_optimizer_options_reach_the_optimizer_and_unknown_ones_are_refused():
    from toolkit_svrg_poco.minibatch import make_optimizer

    class Oracle:
        n = 10

    assert make_optimizer("ivon_poco", Oracle(), 0.1, 0.25, beta2=0.999).b2 == 0.999
    assert make_optimizer("ivon_poco", Oracle(), 0.1, 0.25).alpha == 0.25
    with pytest.raises(ValueError, match="unknown option.*bta2.*allowed: beta1, beta2"):
        make_optimizer("ivon", Oracle(), 0.1, bta2=0.999)
    with pytest.raises(ValueError, match="sgd: unknown option.*allowed: none"):
        make_optimizer("sgd", Oracle(), 0.1, beta2=0.999)


@pytest.mark.parametrize("method", ["adam", "ivon_poco"])
def test_a_users_own_torch_model_trains_through_fit_mlp(method):
    torch = pytest.importorskip("torch")
    from toolkit_svrg_poco.minibatch import make_optimizer
    from toolkit_svrg_poco.mlp import fit_mlp

    class LinearRegression:  # a user's own model: flat parameters, mean-squared error
        n, batch_size = 200, 20

        def __init__(self):
            gen = torch.Generator().manual_seed(3)
            self.X = torch.randn(self.n, 5, generator=gen, dtype=torch.float64)
            self.y = self.X @ torch.arange(1.0, 6.0, dtype=torch.float64) + 0.1 * torch.randn(
                self.n, generator=gen, dtype=torch.float64
            )
            self.order, self.noise = np.random.default_rng(0), torch.Generator().manual_seed(4)

        def loss(self, theta, idx):
            return ((self.X[idx] @ theta - self.y[idx]) ** 2).mean() / 2

        def grad(self, theta, batch):
            theta = theta.detach().requires_grad_(True)
            return torch.autograd.grad(self.loss(theta, torch.as_tensor(batch)), theta)[0]

        def epoch_batches(self):
            order = self.order.permutation(self.n)
            return [order[i : i + self.batch_size] for i in range(0, self.n, self.batch_size)]

        def full_batches(self):
            return [np.arange(self.n)]

        def normal_like(self, theta):
            return torch.randn(theta.shape, generator=self.noise, dtype=theta.dtype)

        def initial(self, seed):
            return torch.zeros(5, dtype=torch.float64)

        def evaluate(self, theta):
            return {"train_loss": float(self.loss(theta, torch.arange(self.n)))}

    model = LinearRegression()
    lr = 0.05 if method == "adam" else 0.1
    rows = fit_mlp(model, make_optimizer(method, model, lr, 0.5 if method == "ivon_poco" else None), 0, 30)
    assert [r["epoch"] for r in rows] == list(range(31))
    assert rows[-1]["steps"] == 30 * 10
    assert rows[-1]["evals"] == 30 * (10 * 20 if method == "adam" else 200 + 2 * 10 * 20)
    assert rows[-1]["train_loss"] < 0.05 * rows[0]["train_loss"]


def test_the_precision_safeguard_keeps_s_positive_definite_where_the_plain_update_does_not():
    # S + eta D + eta^2/2 D S^-1 D = S/2 + (S + eta D) S^-1 (S + eta D)/2 is positive definite for any
    # symmetric target; the plain (1 - eta) S + eta target is not when the target is indefinite
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4))
    S = A @ A.T + 0.1 * np.eye(4)
    target = np.diag([3.0, 1.0, -2.0, -5.0])  # an indefinite Hessian sum, as a non-convex loss gives
    for eta in (0.5, 1.0):
        plain = opt._new_precision(S, target, eta, safeguard=False)
        kept = opt._new_precision(S, target, eta, safeguard=True)
        assert np.linalg.eigvalsh(plain).min() < 0
        assert np.linalg.eigvalsh(kept).min() > 0
        assert np.allclose(kept, 0.5 * S + 0.5 * plain @ np.linalg.solve(S, plain))
