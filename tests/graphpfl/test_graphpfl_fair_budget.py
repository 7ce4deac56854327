"""Compared algorithms get the same budget (every round run) and the same checkpoint rule by default."""

from __future__ import annotations


def test_every_algorithm_runs_the_same_rounds_and_reports_by_the_same_rule():
    from toolkit_graphpfl.federation import best_round
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness
    from toolkit_graphpfl.strategies import FLConfig

    assert NoiseRobustnessParams().patience == 0 and FLConfig().patience == 0
    stops = {}
    for alg in ("fedavg", "graphpfl"):
        params = NoiseRobustnessParams(
            n_graphs=40, n_clients=2, n_rounds=12, hidden=8, lr=0.05, algorithm=alg, noise_p=0.3
        )
        out = noise_robustness(params, 0)
        rounds = [r for r in out.records if "val_loss" in r]
        stops[alg] = (out.summary["stop_round"], out.summary["stopped_early"], len(rounds))
        assert out.summary["best_round"] == best_round(rounds, selection="val_loss")["round"]
    assert stops == {"fedavg": (12, False, 12), "graphpfl": (12, False, 12)}
