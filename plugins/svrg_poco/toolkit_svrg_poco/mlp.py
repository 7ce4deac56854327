"""A small MLP on scikit-learn's digits (64-64 tanh-10), trained by the mini-batch optimizers.

The parameters are one flat torch tensor, so the optimizers of ``minibatch.py`` (written with
operators only) run on it unchanged, on the CPU by default or on CUDA. Imported only when an MLP run
needs it (torch is the plugin's optional dependency ``theory-toolkit-svrg-poco[torch]``).
"""

from __future__ import annotations

import math

import numpy as np

SIZES = (64, 64, 10)


def _torch():
    try:
        import torch
    except ImportError as exc:  # the optional dependency, named where it is used
        raise ImportError(
            "svrg_poco's MLP needs torch: pip install 'theory-toolkit-svrg-poco[torch]' "
            "(install the CPU build first: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
        ) from exc
    return torch


class DigitsMLP:
    """The oracle of an MLP on digits: ``grad(theta, batch)``, epochs of mini-batches, evaluation.

    :param seed: seeds the initial weights, the mini-batch order and the optimizers' noise.
    :param split_seed: seeds the 80/20 train/test split (the same for every run by default).
    """

    def __init__(
        self,
        seed: int,
        *,
        batch_size: int = 32,
        device: str = "cpu",
        split_seed: int = 0,
        full_batch_size: int = 512,
        dtype: str = "float32",
    ):
        torch = _torch()
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        order = np.random.default_rng([split_seed, 5]).permutation(len(X))
        n_train = int(round(0.8 * len(X)))
        self.device = torch.device(device)
        self.dtype = getattr(torch, dtype)
        to = lambda a, dt: torch.as_tensor(a, dtype=dt, device=self.device)
        self.X_train, self.y_train = (
            to(X[order[:n_train]] / 16.0, self.dtype),
            to(y[order[:n_train]], torch.long),
        )
        self.X_test, self.y_test = (
            to(X[order[n_train:]] / 16.0, self.dtype),
            to(y[order[n_train:]], torch.long),
        )
        self.n = n_train
        self.batch_size = int(batch_size)
        self.full_batch_size = int(full_batch_size)
        self.shapes = [(SIZES[1], SIZES[0]), (SIZES[1],), (SIZES[2], SIZES[1]), (SIZES[2],)]
        self.dim = sum(math.prod(s) for s in self.shapes)
        self.batch_rng = np.random.default_rng([seed, 1])
        self.noise = torch.Generator(device=self.device).manual_seed(
            int(np.random.SeedSequence([seed, 2]).generate_state(1)[0])
        )
        self._torch = torch

    def initial(self, seed: int):
        """PyTorch's default Linear initialisation (uniform +-1/sqrt(fan_in)), seeded."""
        torch = self._torch
        gen = torch.Generator().manual_seed(int(seed))
        parts = []
        for shape, fan_in in zip(self.shapes, (SIZES[0], SIZES[0], SIZES[1], SIZES[1])):
            bound = 1.0 / math.sqrt(fan_in)
            parts.append((torch.rand(math.prod(shape), generator=gen, dtype=torch.float64) * 2 - 1) * bound)
        return torch.cat(parts).to(device=self.device, dtype=self.dtype)

    def _unflatten(self, theta):
        out, start = [], 0
        for shape in self.shapes:
            size = math.prod(shape)
            out.append(theta[start : start + size].view(shape))
            start += size
        return out

    def logits(self, theta, X):
        W1, b1, W2, b2 = self._unflatten(theta)
        return self._torch.tanh(X @ W1.T + b1) @ W2.T + b2

    def loss(self, theta, X, y):
        return self._torch.nn.functional.cross_entropy(self.logits(theta, X), y)

    def grad(self, theta, batch):
        torch = self._torch
        theta = theta.detach().requires_grad_(True)
        idx = torch.as_tensor(batch, device=self.device)
        (g,) = torch.autograd.grad(self.loss(theta, self.X_train[idx], self.y_train[idx]), theta)
        return g

    def epoch_batches(self) -> list[np.ndarray]:
        order = self.batch_rng.permutation(self.n)
        return [order[i : i + self.batch_size] for i in range(0, self.n, self.batch_size)]

    def full_batches(self) -> list[np.ndarray]:
        return [
            np.arange(i, min(self.n, i + self.full_batch_size))
            for i in range(0, self.n, self.full_batch_size)
        ]

    def normal_like(self, theta):
        return self._torch.randn(theta.shape, generator=self.noise, device=self.device, dtype=theta.dtype)

    def evaluate(self, theta) -> dict:
        torch = self._torch
        with torch.no_grad():
            train_loss = float(self.loss(theta, self.X_train, self.y_train))
            logits = self.logits(theta, self.X_test)
            test_loss = float(torch.nn.functional.cross_entropy(logits, self.y_test))
            test_acc = float((logits.argmax(1) == self.y_test).float().mean())
        return {"train_loss": train_loss, "test_loss": test_loss, "test_accuracy": test_acc}


class ExactGradientMLP(DigitsMLP):
    """The digits MLP whose every step sees the whole training set (as many steps per epoch as mini-batches).
    With ``weight_noise=False`` the variational methods (IVON, IVON-PoCo) sample no weight noise either:
    IVON's zero-variance limit."""

    def __init__(self, seed: int, *, weight_noise: bool = True, **kwargs):
        super().__init__(seed, **kwargs)
        self.weight_noise = weight_noise

    def epoch_batches(self):
        return [np.arange(self.n)] * math.ceil(self.n / self.batch_size)

    def normal_like(self, theta):
        return super().normal_like(theta) if self.weight_noise else theta * 0


GRADIENTS = ("mini-batch", "exact", "deterministic")


def digits_oracle(seed: int, gradient: str = "mini-batch", **kwargs) -> DigitsMLP:
    """The digits MLP whose steps see mini-batches, the exact full-batch gradient (``exact``), or the exact
    gradient without weight noise (``deterministic``); ``kwargs`` go to :class:`DigitsMLP`."""
    if gradient == "mini-batch":
        return DigitsMLP(seed, **kwargs)
    if gradient not in GRADIENTS:
        raise ValueError(f"gradient must be one of {', '.join(GRADIENTS)}; got {gradient!r}")
    return ExactGradientMLP(seed, weight_noise=gradient == "exact", **kwargs)


def train_mlp(
    method: str,
    lr: float,
    seed: int,
    *,
    epochs: int = 40,
    batch_size: int = 32,
    alpha: float | None = None,
    device: str = "cpu",
    **options,
) -> list[dict]:
    """Train the digits MLP; one row per epoch (steps, gradient evaluations, losses, test accuracy).

    ``options`` go to the optimizer (e.g. ``beta2`` for IVON). Snapshot methods (SVRG, IVON-PoCo) take a
    snapshot at the start of every epoch.
    """
    from toolkit_svrg_poco.minibatch import make_optimizer

    oracle = DigitsMLP(seed, batch_size=batch_size, device=device)
    return fit_mlp(oracle, make_optimizer(method, oracle, lr, alpha, **options), seed, epochs)


def fit_mlp(oracle, optimizer, seed: int, epochs: int) -> list[dict]:
    """Run ``optimizer`` on ``oracle`` (a ``DigitsMLP`` or one derived from it) from the seeded initial weights."""
    theta = oracle.initial(seed)
    rows = [{"epoch": 0, "steps": 0, "evals": 0, **oracle.evaluate(theta)}]
    for epoch in range(1, epochs + 1):
        if optimizer.snapshots:
            optimizer.snapshot(theta)
        for batch in oracle.epoch_batches():
            theta = optimizer.step(theta, batch)
        scores = oracle.evaluate(optimizer.mean(theta))
        rows.append({"epoch": epoch, "steps": optimizer.t, "evals": optimizer.evals, **scores})
        if not math.isfinite(scores["train_loss"]):
            break
    return rows
