"""Wall time of one sparse Bayesian fit (n = 500, m = 100, J = 24, 3000 epochs, 3 restarts, Laplace)
on one CPU thread, or on CUDA with --device cuda. Target: <= 90 s on one CPU thread.

    python plugins/sbayfdnn/benchmarks/sbayfdnn_fit.py [--device cpu|cuda|auto] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=3000)
    args = parser.parse_args(argv)

    import torch
    from toolkit_sbayfdnn.designs import simulate
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    from toolkit.backend import resolve_device

    torch.set_num_threads(1)
    device = resolve_device(args.device)
    data = simulate("two_region", "linear", 5.0, 500, 2000, 100, seed=0)
    SparseBayesianFDNN(epochs=5, anneal_epochs=2, finetune_epochs=2, n_restarts=1, device=device).fit(
        data.X[:50], data.y[:50], data.grid
    )  # warm-up: torch's lazy imports are not the fit's cost
    times = []
    for r in range(args.repeats):
        start = time.perf_counter()
        model = SparseBayesianFDNN(epochs=args.epochs, device=device, random_state=r).fit(
            data.X, data.y, data.grid
        )
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    print(
        f"device={device} threads={torch.get_num_threads()} n=500 m=100 J=24 epochs={args.epochs} "
        f"restarts=3: fit {min(times):.1f} s (best of {len(times)}), selected {len(model.selected_)} columns"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
