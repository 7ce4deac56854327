"""The Flower benchmark runs the simulator's own FedAvg work: its client updates, averaged as Flower's
FedAvg does, give the simulator's global model after a round (so the measured ratio compares like with like)."""

from __future__ import annotations

import numpy as np


def _fedavg_round_through_benchmark(bench, n_clients, seed, server_round, arrays):
    """The benchmark's client updates, sample-weighted and averaged in numpy as Flower's FedAvg does."""
    fits = [bench.local_fit("MUTAG", n_clients, seed, c, server_round, arrays) for c in range(n_clients)]
    weights = np.array([n for _, n in fits], dtype=float)
    weights /= weights.sum()
    return [sum(w * a[i] for w, (a, _) in zip(weights, fits)) for i in range(len(arrays))]


def test_flower_benchmark_client_work_reproduces_the_simulators_fedavg(load_script):
    from toolkit_graphpfl.federation import run_federation
    from toolkit_graphpfl.strategies import FedAvg, FLConfig

    bench = load_script("plugins/graphpfl/benchmarks/graphpfl_flower.py")
    n_clients, seed = 4, 0
    clients, cfg, init = bench.workload("MUTAG", n_clients, seed)
    # one round, equal up to the float32 vs float64 averaging (later rounds: Adam turns that rounding into
    # differences up to ~lr on near-zero gradients, so one round is the sharp comparison)
    arrays = _fedavg_round_through_benchmark(bench, n_clients, seed, 1, [v.numpy() for v in init.values()])
    ours = run_federation(clients, FedAvg(FLConfig(n_rounds=1)), cfg, seed).global_shared
    assert list(ours) == list(init)
    for (name, value), flower in zip(ours.items(), arrays):
        np.testing.assert_allclose(flower, value.numpy(), rtol=0, atol=1e-6, err_msg=name)
    loss, n, acc = bench.local_evaluate("MUTAG", n_clients, seed, 0, arrays)
    assert n == clients[0].n_val + clients[0].n_test and 0.0 <= acc <= 1.0 and loss > 0


def test_flower_benchmark_detects_a_different_workload(load_script):
    """The comparison above can fail: another round's seeds give other client updates."""
    from toolkit_graphpfl.federation import run_federation
    from toolkit_graphpfl.strategies import FedAvg, FLConfig

    bench = load_script("plugins/graphpfl/benchmarks/graphpfl_flower.py")
    clients, cfg, init = bench.workload("MUTAG", 4, 0)
    arrays = _fedavg_round_through_benchmark(bench, 4, 0, 2, [v.numpy() for v in init.values()])
    ours = run_federation(clients, FedAvg(FLConfig(n_rounds=1)), cfg, 0).global_shared
    assert max(float(np.abs(a - v.numpy()).max()) for a, v in zip(arrays, ours.values())) > 1e-4
