"""Mini-batch optimizers with one interface, written once for numpy arrays and torch tensors.

Each optimizer is a class with ``step(theta, batch) -> theta`` and, for the snapshot methods,
``snapshot(theta)``; it counts gradient evaluations in ``evals`` (a mini-batch gradient costs its
batch size, a full pass N). The vector arithmetic uses only operators (+ - * / **), so the same
code runs on numpy arrays (convex problems) and on flat torch tensors (the MLP, CPU or CUDA).

The oracle gives ``n`` (training-set size), ``grad(theta, batch) -> mean gradient over batch``,
``batches(rng_epoch) -> list of index arrays`` (one epoch) and ``normal_like(theta) -> eps``
(drawn from the oracle's own seeded generator).

IVON follows ``ivon-opt`` 0.1.3 (one MC sample, rescaled learning rate):
  sigma = 1 / sqrt(N (h + delta)),  theta = m + sigma eps,  g_hat = grad l_B(theta),  h_hat = g_hat eps / sigma,
  g <- b1 g + (1 - b1) g_hat,  h <- b2 h + (1 - b2) h_hat + (1 - b2)^2 (h - h_hat)^2 / (2 (h + delta)),
  m <- m - lr (h0 + delta) (g / (1 - b1^t) + delta m) / (h + delta).
IVON-PoCo [reconstructed]: at a snapshot, m_out, sigma_out and one pass over the data (a fresh eps
per mini-batch) giving g_bar_out = mean of grad l_B(m_out + sigma_out eps) and h_bar_out = mean of
its h_hat; each inner step, with the same eps and batch, corrects
  g_hat <- g_hat - alpha (grad l_B(m_out + sigma_out eps) - g_bar_out),  h_hat <- h_hat - alpha (h_hat_out - h_bar_out).
"""

from __future__ import annotations

import math


class Optimizer:
    name = "optimizer"
    snapshots = False

    def __init__(self, oracle, lr: float):
        if not (lr > 0 and math.isfinite(lr)):
            raise ValueError(f"{self.name}: learning rate must be a finite number > 0, got {lr}")
        self.oracle, self.lr, self.evals, self.t = oracle, float(lr), 0, 0

    def grad(self, theta, batch):
        self.evals += len(batch)
        return self.oracle.grad(theta, batch)

    def full_grad(self, theta):
        """Mean gradient over the whole training set, one pass in the oracle's batches (costs N)."""
        total, count = None, 0
        for batch in self.oracle.full_batches():
            g = self.grad(theta, batch) * len(batch)
            total = g if total is None else total + g
            count += len(batch)
        return total / count

    def mean(self, theta):
        """The point the model is evaluated at (the posterior mean for the variational methods)."""
        return theta


class SGD(Optimizer):
    name = "sgd"

    def step(self, theta, batch):
        self.t += 1
        return theta - self.lr * self.grad(theta, batch)


class Adam(Optimizer):
    name = "adam"

    def __init__(self, oracle, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        super().__init__(oracle, lr)
        self.b1, self.b2, self.eps = beta1, beta2, eps
        self.m1 = self.m2 = None

    def step(self, theta, batch):
        g = self.grad(theta, batch)
        if self.m1 is None:
            self.m1, self.m2 = g * 0, g * 0
        self.t += 1
        self.m1 = self.b1 * self.m1 + (1 - self.b1) * g
        self.m2 = self.b2 * self.m2 + (1 - self.b2) * g * g
        m_hat = self.m1 / (1 - self.b1**self.t)
        v_hat = self.m2 / (1 - self.b2**self.t)
        return theta - self.lr * m_hat / (v_hat**0.5 + self.eps)


class MiniBatchSVRG(Optimizer):
    """SVRG with mini-batches: v = grad l_B(theta) - alpha (grad l_B(theta_out) - mu_out)."""

    name = "svrg"
    snapshots = True

    def __init__(self, oracle, lr, alpha=1.0):
        super().__init__(oracle, lr)
        self.alpha = float(alpha)
        self.theta_out = self.mu_out = None

    def snapshot(self, theta):
        self.theta_out, self.mu_out = theta, self.full_grad(theta)

    def step(self, theta, batch):
        self.t += 1
        v = self.grad(theta, batch) - self.alpha * (self.grad(self.theta_out, batch) - self.mu_out)
        return theta - self.lr * v


class IVON(Optimizer):
    name = "ivon"

    def __init__(self, oracle, lr, beta1=0.9, beta2=0.99999, hess_init=1.0, weight_decay=1e-4, ess=None):
        super().__init__(oracle, lr)
        self.b1, self.b2, self.h0, self.delta = beta1, beta2, hess_init, weight_decay
        self.ess = float(ess if ess is not None else oracle.n)
        self.g = self.h = None
        self.m = None

    def _init(self, theta):
        if self.m is None:
            self.m, self.g, self.h = theta, theta * 0, theta * 0 + self.h0

    def sigma(self, h):
        return 1.0 / (self.ess * (h + self.delta)) ** 0.5

    def _estimates(self, batch):
        """(g_hat, h_hat, eps, sigma) at theta = m + sigma eps; subclasses correct them."""
        sigma = self.sigma(self.h)
        eps = self.oracle.normal_like(self.m)
        g_hat = self.grad(self.m + sigma * eps, batch)
        return g_hat, g_hat * eps / sigma, eps, sigma

    def step(self, theta, batch):
        self._init(theta)
        self.t += 1
        g_hat, h_hat, _, _ = self._estimates(batch)
        self.g = self.b1 * self.g + (1 - self.b1) * g_hat
        self.h = (
            self.b2 * self.h
            + (1 - self.b2) * h_hat
            + 0.5 * (1 - self.b2) ** 2 * (self.h - h_hat) ** 2 / (self.h + self.delta)
        )
        self.m = self.m - self.lr * (self.h0 + self.delta) * (
            self.g / (1 - self.b1**self.t) + self.delta * self.m
        ) / (self.h + self.delta)
        return self.m

    def mean(self, theta):
        return self.m if self.m is not None else theta


class IVONPoCo(IVON):
    name = "ivon_poco"
    snapshots = True

    def __init__(self, oracle, lr, alpha=0.5, **kwargs):
        super().__init__(oracle, lr, **kwargs)
        self.alpha = float(alpha)
        self.m_out = self.sigma_out = self.g_bar = self.h_bar = None

    def snapshot(self, theta):
        self._init(theta)
        self.m_out, self.sigma_out = self.m, self.sigma(self.h)
        g_total = h_total = None
        count = 0
        for batch in self.oracle.full_batches():
            eps = self.oracle.normal_like(self.m)
            g = self.grad(self.m_out + self.sigma_out * eps, batch)
            hh = g * eps / self.sigma_out
            k = len(batch)
            g_total = g * k if g_total is None else g_total + g * k
            h_total = hh * k if h_total is None else h_total + hh * k
            count += k
        self.g_bar, self.h_bar = g_total / count, h_total / count

    def _estimates(self, batch):
        g_hat, h_hat, eps, sigma = super()._estimates(batch)
        g_out = self.grad(self.m_out + self.sigma_out * eps, batch)
        h_out = g_out * eps / self.sigma_out
        return (
            g_hat - self.alpha * (g_out - self.g_bar),
            h_hat - self.alpha * (h_out - self.h_bar),
            eps,
            sigma,
        )


OPTIMIZERS = {cls.name: cls for cls in (SGD, Adam, MiniBatchSVRG, IVON, IVONPoCo)}


def make_optimizer(name: str, oracle, lr: float, alpha: float | None = None, **options):
    """The optimizer ``name`` on ``oracle``; ``options`` are its keyword arguments (e.g. ``beta2``)."""
    if name not in OPTIMIZERS:
        raise ValueError(f"method must be one of {', '.join(OPTIMIZERS)}; got {name!r}")
    cls = OPTIMIZERS[name]
    if alpha is not None and cls in (MiniBatchSVRG, IVONPoCo):
        options["alpha"] = alpha
    import inspect

    allowed = {
        p.name
        for klass in cls.__mro__
        if "__init__" in vars(klass)
        for p in inspect.signature(klass.__init__).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD
    } - {"self", "oracle", "lr"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ValueError(
            f"{name}: unknown option(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed)) or 'none'}"
        )
    return cls(oracle, lr, **options)


class ProblemOracle:
    """A finite sum of ``problems.py`` as a mini-batch oracle (numpy), so that Adam, IVON and IVON-PoCo
    run on the convex problems with the same code as on the MLP."""

    def __init__(self, problem, seed: int, *, batch_size: int = 32, full_batch_size: int = 512):
        import numpy as np

        self.problem, self.n, self.dim = problem, problem.n, problem.dim
        self.batch_size, self.full_batch_size = int(batch_size), int(full_batch_size)
        self._np = np
        self.batch_rng = np.random.default_rng([seed, 1])
        self.noise = np.random.default_rng([seed, 2])

    def grad(self, theta, batch):
        return self.problem.grad(theta, self._np.asarray(batch))

    def epoch_batches(self):
        order = self.batch_rng.permutation(self.n)
        return [order[i : i + self.batch_size] for i in range(0, self.n, self.batch_size)]

    def full_batches(self):
        return [
            self._np.arange(i, min(self.n, i + self.full_batch_size))
            for i in range(0, self.n, self.full_batch_size)
        ]

    def normal_like(self, theta):
        return self.noise.standard_normal(theta.shape)
