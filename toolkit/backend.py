"""Device choice, thread counts and seeding for random, numpy and torch.

Nothing here imports torch unless torch is already imported or a torch device is asked for, so the
core runs without torch installed.
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

DEVICES = ("cpu", "cuda", "auto")


def torch_available() -> bool:
    try:
        import importlib.util

        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def resolve_device(device: str | None = None) -> str:
    """``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when present) -> the torch device string to use.

    ``None`` reads ``TOOLKIT_DEVICE`` (default ``auto``). Asking for ``cuda`` without a GPU is an error.
    """
    from toolkit.errors import ParameterError

    device = (device or os.environ.get("TOOLKIT_DEVICE") or "auto").lower()
    base = device.split(":", 1)[0]
    if base not in DEVICES:
        raise ParameterError(f"device must be one of {', '.join(DEVICES)} (or cuda:N), got {device!r}")
    if base == "cpu":
        return "cpu"
    cuda = False
    if torch_available():
        import torch

        cuda = torch.cuda.is_available()
    if base == "auto":
        return "cuda" if cuda else "cpu"
    if not cuda:
        raise ParameterError(
            "device 'cuda' was asked for but no CUDA GPU is available; use device=cpu or auto"
        )
    return device


def torch_device(device: str | None = None) -> Any:
    """The ``torch.device`` for :func:`resolve_device`'s answer."""
    import torch

    return torch.device(resolve_device(device))


def set_threads(n_threads: int) -> None:
    """Use ``n_threads`` threads in BLAS/OpenMP and torch (1 is fastest for small matrices on 2 cores)."""
    if n_threads < 1:
        from toolkit.errors import ParameterError

        raise ParameterError(f"n_threads must be >= 1, got {n_threads}")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(n_threads)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.set_num_threads(n_threads)


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA) if imported.

    Simulations should still draw from generators built from their ``seed`` argument; this makes
    stray global randomness reproducible too.
    """
    random.seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed % 2**32)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.manual_seed(seed)


def device_description() -> str:
    """A short description of the compute device, for provenance."""
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        if torch.cuda.is_available():
            return f"cuda:{torch.cuda.get_device_name(0)}"
        return f"cpu(torch threads={torch.get_num_threads()})"
    return "cpu"


__all__ = [
    "DEVICES",
    "device_description",
    "resolve_device",
    "seed_everything",
    "set_threads",
    "torch_available",
    "torch_device",
]
