"""No test leakage (attributes standardised on each client's training graphs), one label space per dataset,
parameters that do not apply are not recorded, and the stopping rule."""

from __future__ import annotations

import numpy as np
import pytest
from toolkit_graphpfl.federation import build_clients, run_federation, standardise_on
from toolkit_graphpfl.graphs import Graph, GraphSet, align_features, canonical_edges, partition_random


def attributed_set(n_graphs=30, seed=0, scale=None):
    """Graphs with one one-hot column and one continuous attribute column (column 1)."""
    rng = np.random.default_rng(seed)
    graphs = []
    for i in range(n_graphs):
        n = 5
        x = np.stack([np.ones(n), rng.normal(3.0, 2.0, n)], axis=1).astype(np.float32)
        if scale is not None and i in scale:
            x[:, 1] *= 1000.0  # an outlier graph
        graphs.append(Graph(x, canonical_edges(np.array([[0, 1], [1, 2], [2, 3], [3, 4]])), i % 2))
    return GraphSet("attr", tuple(graphs), 2, 2, {}, (1,))


def real_nodes(batches, col):
    return np.concatenate([b.x[m.bool()][:, col].numpy() for b in batches for m in [b.mask]])


def test_standardisation_uses_the_clients_training_graphs_only(monkeypatch):
    import toolkit_graphpfl.federation as fed

    splits = []
    real_split = fed.split_train_val_test
    monkeypatch.setattr(
        fed, "split_train_val_test", lambda n, rng: splits.append(real_split(n, rng)) or splits[-1]
    )
    gs = attributed_set()
    parts = partition_random(len(gs), 2, np.random.default_rng(0))
    clients = build_clients(gs, parts, batch_size=4, seed=1)
    for c in clients:
        tr = real_nodes(c.train, 1)
        assert abs(tr.mean()) < 1e-5 and abs(tr.std() - 1) < 1e-4  # fit on the training nodes
        assert np.allclose(real_nodes(c.train, 0), 1.0)  # one-hot columns untouched
    # a test graph's values do not move any training feature: make every val/test graph an outlier
    held_out = {int(idx[i]) for idx, (_, va, te) in zip(parts, splits) for i in (*va, *te)}
    outliers = build_clients(attributed_set(scale=held_out), parts, batch_size=4, seed=1)
    for a, b in zip(clients, outliers):
        assert np.array_equal(real_nodes(a.train, 1), real_nodes(b.train, 1))
        assert not np.allclose(real_nodes(a.test, 1), real_nodes(b.test, 1))


def test_standardise_on_applies_the_fit_statistics_to_other_graphs():
    gs = attributed_set(4)
    out = standardise_on(gs.graphs, gs.graphs[:2], [1])
    fit = np.concatenate([g.x[:, 1] for g in gs.graphs[:2]])
    assert np.allclose(out[3].x[:, 1], (gs.graphs[3].x[:, 1] - fit.mean()) / fit.std(), atol=1e-5)
    const = GraphSet(
        "c",
        tuple(Graph(np.full((3, 1), 7.0, np.float32), np.zeros((0, 2), np.int64), 0) for _ in range(2)),
        1,
        1,
    )
    assert np.allclose(
        standardise_on(const.graphs, const.graphs, [0])[0].x, 0.0
    )  # sd 0: centred, not divided


def test_no_standardisation_when_asked():
    gs = attributed_set()
    parts = partition_random(len(gs), 2, np.random.default_rng(0))
    raw = build_clients(gs, parts, batch_size=4, seed=1, standardize=False)
    assert real_nodes(raw[0].train, 1).mean() > 1.0


def test_mixed_datasets_get_their_own_label_spaces(planted):
    other = attributed_set()
    a, b = align_features([planted, other])
    assert a.n_classes == b.n_classes == planted.n_classes + other.n_classes
    assert set(a.labels()) == {0, 1} and set(b.labels()) == {2, 3}  # class 0 of b is label 2, not 0
    assert b.meta["label_offset"] == 2 and b.continuous == (planted.n_features + 1,)


def test_a_mixed_federation_trains_one_head_over_both_label_spaces(planted):
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, build_federation

    gs, clients = build_federation(
        NoiseRobustnessParams(dataset="planted+MUTAG", n_clients=4, n_graphs=40), 0
    )
    assert gs.n_classes == 4
    labels = [set(np.concatenate([b.y.numpy() for b in c.train])) for c in clients]
    assert labels[0] | labels[1] <= {0, 1} and labels[2] | labels[3] <= {2, 3}


def test_parameters_that_do_not_apply_are_not_recorded():
    from toolkit_graphpfl.simulation import NoiseRobustnessParams

    from toolkit.config import validate_params
    from toolkit.errors import ParameterError

    tu = NoiseRobustnessParams(dataset="MUTAG").model_dump()
    assert tu["n_graphs"] is None and tu["dirichlet_alpha"] is None and tu["min_per_client"] is None
    assert NoiseRobustnessParams().n_graphs == 200
    assert NoiseRobustnessParams(partition="dirichlet").dirichlet_alpha == 0.5
    with pytest.raises(ParameterError, match="n_graphs applies only when the dataset includes 'planted'"):
        validate_params(NoiseRobustnessParams, {"dataset": "MUTAG", "n_graphs": 200})
    with pytest.raises(ParameterError, match="dirichlet_alpha applies only when partition='dirichlet'"):
        validate_params(NoiseRobustnessParams, {"dirichlet_alpha": 0.1})


def test_a_tu_run_records_no_n_graphs(tmp_path):
    import toolkit

    res = toolkit.run(
        "graphpfl.noise_robustness",
        params={"dataset": "MUTAG", "n_clients": 2, "n_rounds": 1, "hidden": 8},
        seed=0,
        store=str(tmp_path / "s.sqlite"),
    )
    assert res.params["n_graphs"] is None


# -- the stopping rule -----------------------------------------------------------------------------


def _strategy(**cfg):
    from toolkit_graphpfl.strategies import FedAvg, FLConfig

    return FedAvg(FLConfig(**cfg))


def test_patience_stops_on_validation_loss_and_reports_the_round(small_federation, monkeypatch):
    import toolkit_graphpfl.federation as fed

    clients, base = small_federation
    losses = iter(
        [1.0, 0.8, 0.9, 0.85, 0.95, 0.7, 0.6]
    )  # best at round 2, then 3 rounds without a lower loss

    def fake_eval(*args, **kwargs):
        loss = next(losses)
        return {
            "val_acc_pooled": 1 - loss,
            "val_acc_client_mean": 0.0,
            "val_loss": loss,
            "test_acc_pooled": 0.5,
            "test_acc_client_mean": 0.5,
        }

    monkeypatch.setattr(fed, "_evaluate_all", fake_eval)
    res = run_federation(clients, _strategy(n_rounds=7, patience=3), base, seed=0)
    assert res.stop_round == 5 and res.stopped_early and len(res.rounds) == 5
    assert res.best["round"] == 2  # the lowest validation loss among the rounds run
    losses = iter([1.0, 0.8, 0.9, 0.85, 0.95, 0.7, 0.6])
    full = run_federation(clients, _strategy(n_rounds=7, patience=0), base, seed=0)
    assert full.stop_round == 7 and not full.stopped_early and full.best["round"] == 7


TIMING_COLUMNS = (
    "client_time_s",
    "fisher_time_s",
    "train_time_s",
    "eval_time_s",
    "round_time_s",
    "round_cpu_time_s",
)


def _untimed(rows):
    return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]


def test_a_shorter_patience_run_is_the_replayed_prefix_of_a_full_run(small_federation):
    """The patience pilot reads every candidate patience off one patience-0 run (rows_under_patience);
    that is only valid if a real run with that patience trains exactly the same rounds."""
    from toolkit_graphpfl.federation import replay_patience, rows_under_patience

    clients, base = small_federation
    full = run_federation(clients, _strategy(n_rounds=8, patience=0, lr=0.05), base, seed=0)
    stopped_early = 0
    for patience in (1, 2, 3):
        real = run_federation(clients, _strategy(n_rounds=8, patience=patience, lr=0.05), base, seed=0)
        replay = rows_under_patience(full.rounds, patience)
        assert _untimed(replay) == _untimed(real.rounds)
        assert replay[-1]["round"] == real.stop_round
        summary = replay_patience(full.rounds, patience, n_rounds=8)
        assert summary["best_round"] == real.best["round"] and summary["stop_round"] == real.stop_round
        assert summary["stopped_early"] == real.stopped_early
        assert summary["test_acc_pooled"] == real.best["test_acc_pooled"]
        stopped_early += real.stopped_early
    assert stopped_early  # at least one candidate stopped before round 8, so the prefix was tested
    assert rows_under_patience(full.rounds, 0) == full.rounds


def test_selection_by_accuracy_is_still_available():
    from toolkit_graphpfl.federation import best_round

    rows = [
        {"round": 1, "val_acc_pooled": 0.9, "val_loss": 0.5},
        {"round": 2, "val_acc_pooled": 0.8, "val_loss": 0.3},
    ]
    assert best_round(rows)["round"] == 2 and best_round(rows, selection="val_acc")["round"] == 1
    with pytest.raises(ValueError, match="selection must be one of"):
        best_round(rows, selection="test_acc")


def test_summary_reports_the_stop_round():
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness

    out = noise_robustness(
        NoiseRobustnessParams(n_graphs=40, n_clients=2, n_rounds=3, hidden=8, patience=1), 0
    )
    s = out.summary
    assert 1 <= s["best_round"] <= s["stop_round"] <= 3 and len(out.records) == s["stop_round"]
    assert s["stopped_early"] == (s["stop_round"] < 3)


def test_a_run_the_rule_stops_before_its_cap_is_the_same_under_a_larger_cap(small_federation):
    """The section-5 rerun with n_rounds=100 reuses the 20-round runs the rule stopped: nothing but the
    loop bound reads n_rounds, so such a run trains, evaluates and reports exactly the same rounds."""
    import torch
    from toolkit_graphpfl.federation import stopped_by_rule

    clients, base = small_federation
    large = run_federation(clients, _strategy(n_rounds=30, patience=2, lr=0.05), base, seed=0)
    s = large.stop_round
    assert large.stopped_early and 2 < s < 30  # the rule, not the cap, ended it
    for cap in (s, s + 1, 12 if s < 12 else s + 2):  # at cap s the rule fires on the cap's own round
        small = run_federation(clients, _strategy(n_rounds=cap, patience=2, lr=0.05), base, seed=0)
        assert _untimed(small.rounds) == _untimed(large.rounds)
        assert _untimed([small.best]) == _untimed([large.best])
        assert small.stop_round == s and all(
            torch.equal(small.global_shared[k], large.global_shared[k]) for k in large.global_shared
        )
        assert stopped_by_rule(small.rounds, 2)
    assert (
        small.stopped_early
        and not run_federation(
            clients, _strategy(n_rounds=s, patience=2, lr=0.05), base, seed=0
        ).stopped_early
    )  # the flag differs at cap s
    cut = run_federation(clients, _strategy(n_rounds=s - 1, patience=2, lr=0.05), base, seed=0)
    assert not stopped_by_rule(cut.rounds, 2)  # reached its cap first: must be rerun under a larger one
    assert _untimed(cut.rounds) == _untimed(large.rounds[: s - 1])
    assert not stopped_by_rule(large.rounds, 0)  # patience 0 never stops


def test_with_eval_every_the_caps_own_evaluation_does_not_count_for_reuse():
    from toolkit_graphpfl.federation import stopped_by_rule

    rows = [
        {"round": 1, "val_loss": 1.0},
        {"round": 2},
        {"round": 3},
        {"round": 4, "val_loss": 2.0},
        {"round": 5, "val_loss": 3.0},
    ]  # round 5 evaluated only as the cap (eval_every=2)
    assert stopped_by_rule(rows, 2, eval_every=1) and not stopped_by_rule(rows, 2, eval_every=2)
    assert stopped_by_rule(rows[:4] + [{"round": 5}, {"round": 6, "val_loss": 3.0}], 2, eval_every=2)
