"""Models g(b; theta) of the paper: linear and two-layer g(b) = sum_j a_j phi(w_j^T b).

Pure numpy, no toolkit imports. An :class:`Activation` carries phi, its derivative and its degree of
positive homogeneity (phi(c s) = c^k phi(s) for c > 0), which decides how the dynamics are rescaled:
degree-1 models run in the exact rescaled form u = w / gamma (the generalized perceptron in the
limit), higher-degree models are renormalised every step (their sign pattern is scale-invariant) so
nothing overflows, and models of unknown degree run unscaled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

LEAKY_SLOPE = 0.1


@dataclass(frozen=True)
class Activation:
    """phi with its derivative; ``degree`` = k when phi(c s) = c^k phi(s) for every c > 0, else None.
    ``grad_at_zero``: the (sub)gradient used at s = 0 by ReLU-type units (None: not a choice)."""

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    grad: Callable[[np.ndarray], np.ndarray]
    degree: float | None = None
    grad_at_zero: float | None = None


def _identity(s):
    return s


def _ones(s):
    return np.ones_like(s)


def _relu(s):
    return np.maximum(s, 0.0)


def _relu_grad(s):
    # ReLU'(0) = 0: a unit exactly on its hinge is inactive (the gate 1[w^T b > 0])
    return (s > 0).astype(s.dtype)


RELU_GRAD_AT_ZERO = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class _ReluGrad:
    """ReLU's derivative with the subgradient ``at_zero`` in [0, 1] at s = 0 (a picklable callable)."""

    at_zero: float

    def __call__(self, s):
        return np.where(s > 0, 1.0, np.where(s == 0, self.at_zero, 0.0))


def relu(grad_at_zero: float = 0.0) -> Activation:
    """ReLU with ReLU'(0) = ``grad_at_zero``: 0 (default: a unit exactly on its hinge is inactive,
    the indicator 1[w^T b > 0]), 1/2 or 1 (the indicator 1[w^T b >= 0])."""
    if grad_at_zero not in RELU_GRAD_AT_ZERO:
        raise ValueError(f"relu_grad_at_zero must be one of 0, 0.5, 1, got {grad_at_zero!r}")
    if grad_at_zero == 0.0:
        return ACTIVATIONS["relu"]
    return Activation("relu", _relu, _ReluGrad(float(grad_at_zero)), 1.0, float(grad_at_zero))


def _leaky(s):
    return np.where(s > 0, s, LEAKY_SLOPE * s)


def _leaky_grad(s):
    return np.where(s > 0, 1.0, LEAKY_SLOPE)


def _square(s):
    return s * s


def _square_grad(s):
    return 2.0 * s


ACTIVATIONS: dict[str, Activation] = {
    "linear": Activation("linear", _identity, _ones, 1.0),
    "relu": Activation("relu", _relu, _relu_grad, 1.0, 0.0),
    "leaky_relu": Activation("leaky_relu", _leaky, _leaky_grad, 1.0),
    "quadratic": Activation("quadratic", _square, _square_grad, 2.0),
}


def get_activation(activation: str | Activation) -> Activation:
    if isinstance(activation, Activation):
        return activation
    try:
        return ACTIVATIONS[activation]
    except KeyError:
        raise ValueError(
            f"activation must be one of {', '.join(ACTIVATIONS)} or an Activation, got {activation!r}"
        ) from None


@dataclass(frozen=True)
class Model:
    """A linear model (``kind='linear'``: g = b^T v, v_0 = 0) or a two-layer model.

    :param width: hidden units m of the two-layer model (ignored for linear).
    :param train_outer: train the outer weights a_j too (else they stay at the balanced +-1/sqrt(m)).
    :param init_scale: inner weights start i.i.d. N(0, init_scale^2 / d).
    """

    kind: str = "linear"
    activation: Activation = field(default_factory=lambda: ACTIVATIONS["linear"])
    width: int = 1
    train_outer: bool = False
    init_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in ("linear", "two_layer"):
            raise ValueError(f"model kind must be 'linear' or 'two_layer', got {self.kind!r}")
        if self.width < 1:
            raise ValueError(f"width must be >= 1, got {self.width}")
        if self.kind == "linear" and (
            self.width != 1 or self.train_outer or self.activation.name != "linear"
        ):
            raise ValueError("a linear model has width 1, identity activation and a fixed outer weight 1")

    @property
    def degree(self) -> float | None:
        """Homogeneity degree of g in all trained parameters jointly (None when unknown)."""
        k = self.activation.degree
        if k is None:
            return None
        return k + 1.0 if self.train_outer else k


def linear() -> Model:
    return Model()


def two_layer(
    activation: str | Activation = "relu",
    width: int = 20,
    *,
    train_outer: bool = False,
    init_scale: float = 1.0,
    relu_grad_at_zero: float = 0.0,
) -> Model:
    """A two-layer model; ``relu_grad_at_zero`` sets ReLU'(0) of ``activation='relu'`` (see :func:`relu`)."""
    if activation == "relu":
        activation = relu(relu_grad_at_zero)
    elif relu_grad_at_zero != 0.0:
        raise ValueError(
            f"relu_grad_at_zero applies to activation='relu' only, got activation {activation!r}"
        )
    return Model("two_layer", get_activation(activation), width, train_outer, init_scale)


def balanced_outer(width: int) -> np.ndarray:
    """Outer weights +1/sqrt(m) for the first ceil(m/2) units and -1/sqrt(m) for the rest."""
    a = np.full(width, 1.0 / np.sqrt(width))
    a[(width + 1) // 2 :] *= -1.0
    return a


def init_weights(model: Model, d: int, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Initial (W0, a0) of shapes (R, m, d) and (R, m), one independent draw per seed.

    Linear: W0 = 0, a0 = 1. Two-layer: W0 ~ N(0, init_scale^2 / d) from ``default_rng(seed)``.
    """
    seeds = list(seeds)
    R = len(seeds)
    if model.kind == "linear":
        return np.zeros((R, 1, d)), np.ones((R, 1))
    W0 = np.empty((R, model.width, d))
    for r, s in enumerate(seeds):
        W0[r] = np.random.default_rng(s).standard_normal((model.width, d)) * (model.init_scale / np.sqrt(d))
    a0 = np.tile(balanced_outer(model.width), (R, 1))
    return W0, a0


def outputs(B: np.ndarray, W: np.ndarray, a: np.ndarray, activation: Activation) -> np.ndarray:
    """g(b_i) for every run: W (R, m, d), a (R, m), B (n, d) -> (R, n)."""
    pre = np.einsum("rmd,nd->rmn", W, B)
    return np.einsum("rm,rmn->rn", a, activation.fn(pre))
