"""Strategies behind one interface, the third-party strategy hook, and the simulator's bookkeeping."""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch
from toolkit_graphpfl.federation import run_federation
from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES, FedPer, FLConfig, Local

import toolkit
from toolkit.errors import ParameterError

QUICK = {"dataset": "planted", "n_graphs": 60, "n_clients": 3, "n_rounds": 2, "hidden": 16}


def test_every_builtin_strategy_runs_and_reports_accuracy(small_federation):
    clients, base = small_federation
    for name, cls in BUILTIN_STRATEGIES.items():
        res = run_federation(clients, cls(FLConfig(n_rounds=2)), base, seed=0)
        assert 0.0 <= res.best["test_acc_pooled"] <= 1.0, name
        assert len(res.rounds) == 2


def test_fedper_keeps_heads_local_and_shares_the_body(small_federation):
    clients, base = small_federation
    res = run_federation(clients, FedPer(FLConfig(n_rounds=2)), base, seed=0)
    assert res.global_shared and not any(k.startswith("head.") for k in res.global_shared)
    heads = [s.params["head.2.weight"] for s in res.states]
    assert not torch.equal(heads[0], heads[1])
    assert res.n_shared_params < res.n_params


def test_local_shares_nothing_and_sends_no_bytes(small_federation):
    clients, base = small_federation
    res = run_federation(clients, Local(FLConfig(n_rounds=2)), base, seed=0)
    assert res.n_shared_params == 0
    assert all(r["bytes_up"] == 0 and r["bytes_down"] == 0 for r in res.rounds)


def test_communication_bytes_per_method(graphpfl_registry, tmp_path):
    got = {}
    for alg in ("fedavg", "fedper", "fedcurv"):
        r = toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, "algorithm": alg},
            seed=0,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        )
        got[alg] = r.records[-1]
        assert r.summary["bytes_per_round"] > 0
    fa = got["fedavg"]
    assert fa["bytes_up"] == fa["bytes_down"] == 4 * 3 * fa["n_shared_params"]
    assert got["fedper"]["bytes_up"] < fa["bytes_up"]
    assert got["fedcurv"]["bytes_up"] == 2 * fa["bytes_up"]  # parameters and their Fisher


def test_unknown_algorithm_names_the_allowed_ones(graphpfl_registry, tmp_path):
    with pytest.raises(ParameterError, match="allowed: .*fedavg.*graphpfl"):
        toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, "algorithm": "fedsomething"},
            seed=0,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        )


def test_missing_dataset_is_the_cores_error_naming_files_and_the_fetch(
    graphpfl_registry, tmp_path, monkeypatch
):
    from toolkit.errors import DatasetMissingError

    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    tu_quick = {k: v for k, v in QUICK.items() if k != "n_graphs"}  # n_graphs applies to 'planted' only
    with pytest.raises(
        DatasetMissingError, match="NCI1_A.txt.*NCI1_graph_indicator.txt.*toolkit data fetch graphpfl.nci1"
    ):
        toolkit.run(
            "graphpfl.noise_robustness",
            {**tu_quick, "dataset": "NCI1"},
            seed=0,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        )


THIRD_PARTY = textwrap.dedent("""
    import torch
    import toolkit
    from toolkit_graphpfl.strategies import Strategy

    __version__ = "0.0.1"

    class FedMedian(Strategy):
        name = "fedmedian"
        description = "coordinate-wise median of the client models"

        def aggregate(self, global_shared, uploads, sizes, fishers):
            return {k: torch.stack([u[k] for u in uploads]).median(0).values for k in global_shared}

    @toolkit.hookimpl
    def toolkit_graphpfl_register_strategies():
        return [FedMedian]
""")


def test_a_third_party_plugin_registers_a_strategy_and_runs_it(tmp_path, monkeypatch):
    """A distribution with a ``toolkit.plugins`` entry point adds ``fedmedian``; the simulator runs it."""
    (tmp_path / "fedmedian_plugin.py").write_text(THIRD_PARTY)
    dist = tmp_path / "fedmedian_plugin-0.0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fedmedian-plugin\nVersion: 0.0.1\n")
    (dist / "entry_points.txt").write_text("[toolkit.plugins]\nfedmedian = fedmedian_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TOOLKIT_DISABLE_PLUGINS", "gd_perceptron,langgen,sbayfdnn,frog")
    try:
        pm = toolkit.get_plugin_manager()
        assert pm.has_plugin("fedmedian") and pm.has_plugin("graphpfl")
        from toolkit_graphpfl.simulation import strategy_classes

        classes = strategy_classes(pm)
        assert "fedmedian" in classes and "graphpfl" in classes
        r = toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, "algorithm": "fedmedian"},
            seed=0,
            store=tmp_path / "s.sqlite",
        )
        assert 0.0 <= r.summary["test_acc_pooled"] <= 1.0
        fa = toolkit.run(
            "graphpfl.noise_robustness", {**QUICK, "algorithm": "fedavg"}, seed=0, store=tmp_path / "s.sqlite"
        )
        assert r.records[-1]["train_loss"] != fa.records[-1]["train_loss"]  # a different aggregation ran
    finally:
        sys.modules.pop("fedmedian_plugin", None)


def test_a_duplicate_strategy_name_is_an_error_naming_both():
    from toolkit_graphpfl.simulation import strategy_classes
    from toolkit_graphpfl.strategies import Strategy

    class Impostor(Strategy):
        name = "fedavg"

    class Plugin:
        @toolkit.hookimpl
        def toolkit_graphpfl_register_strategies(self):
            return [Impostor]

    import toolkit_graphpfl as gp

    pm = toolkit.get_plugin_manager(load_entrypoints=False, plugins=[gp, Plugin()])
    with pytest.raises(ValueError, match="'fedavg' registered twice"):
        strategy_classes(pm)


def test_client_processes_give_the_serial_result(graphpfl_registry, tmp_path):
    params = {**QUICK, "algorithm": "graphpfl"}
    serial = toolkit.run(
        "graphpfl.noise_robustness", params, seed=3, store=tmp_path / "a.sqlite", registry=graphpfl_registry
    )
    procs = toolkit.run(
        "graphpfl.noise_robustness",
        {**params, "client_executor": "processes", "n_workers": 2},
        seed=3,
        store=tmp_path / "b.sqlite",
        registry=graphpfl_registry,
    )
    for a, b in zip(serial.records, procs.records):
        assert a["train_loss"] == b["train_loss"] and a["test_acc_pooled"] == b["test_acc_pooled"]


def test_partitions_and_cross_domain_run(graphpfl_registry, tmp_path):
    for extra in (
        {"partition": "dirichlet", "dirichlet_alpha": 1.0, "min_per_client": 5},
        {"partition": "topology"},
        {"dataset": "planted+MUTAG", "n_clients": 4},
    ):
        r = toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, **extra},
            seed=0,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        )
        assert len(r.records) == QUICK["n_rounds"]


def test_same_seed_pairs_data_across_algorithms():
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, build_federation

    a = build_federation(NoiseRobustnessParams(**{**QUICK, "algorithm": "fedavg", "noise_p": 0.3}), 4)[1]
    b = build_federation(NoiseRobustnessParams(**{**QUICK, "algorithm": "graphpfl", "noise_p": 0.3}), 4)[1]
    for ca, cb in zip(a, b):
        for xa, xb in zip(ca.train + ca.test, cb.train + cb.test):
            assert torch.equal(xa.adj, xb.adj) and torch.equal(xa.y, xb.y)


@pytest.mark.slow
def test_client_dask_gives_the_serial_result(graphpfl_registry, tmp_path):
    """Slow only because a LocalCluster takes ~10-60 s to start and stop on this machine."""
    params = {**QUICK, "algorithm": "graphpfl"}
    serial = toolkit.run(
        "graphpfl.noise_robustness", params, seed=3, store=tmp_path / "a.sqlite", registry=graphpfl_registry
    )
    dask = toolkit.run(
        "graphpfl.noise_robustness",
        {**params, "client_executor": "dask", "n_workers": 2},
        seed=3,
        store=tmp_path / "b.sqlite",
        registry=graphpfl_registry,
    )
    assert [r["train_loss"] for r in serial.records] == [r["train_loss"] for r in dask.records]


def test_evaluation_modes_score_the_same_training_and_select_keeps_each_clients_better_model(
    small_federation,
):
    from toolkit_graphpfl.strategies import GraphPFL

    clients, base = small_federation
    runs = {
        mode: run_federation(clients, GraphPFL(FLConfig(n_rounds=3, evaluation=mode)), base, seed=2)
        for mode in ("personal", "global", "select")
    }
    sel = runs["select"].rounds
    for v in (
        "personal",
        "global",
    ):  # evaluation never changes training: select's columns are the other runs' rows
        for r_sel, r_v in zip(sel, runs[v].rounds):
            assert r_sel[f"test_acc_pooled_{v}"] == r_v["test_acc_pooled"]
            assert r_sel[f"val_acc_pooled_{v}"] == r_v["val_acc_pooled"]
            assert r_sel[f"val_loss_{v}"] == pytest.approx(r_v["val_loss"], abs=1e-12)
    assert (
        runs["personal"].rounds[-1]["test_acc_pooled"] != runs["global"].rounds[-1]["test_acc_pooled"]
        or runs["personal"].rounds[-1]["val_loss"] != runs["global"].rounds[-1]["val_loss"]
    )  # the two models differ
    for r in sel:  # per client the better validation accuracy, so pooled it is >= either variant's
        assert r["val_acc_pooled"] >= max(r["val_acc_pooled_personal"], r["val_acc_pooled_global"]) - 1e-12
        assert 0.0 <= r["share_personal"] <= 1.0


def test_evaluation_defaults_and_bad_value(graphpfl_registry, tmp_path):
    from toolkit_graphpfl.strategies import FRPA, FedAvg, GraphPFL

    assert FedAvg(FLConfig()).evaluation_mode() == "global"
    assert Local(FLConfig()).evaluation_mode() == "personal"
    assert FedPer(FLConfig()).evaluation_mode() == "personal"
    assert GraphPFL(FLConfig()).evaluation_mode() == FRPA(FLConfig()).evaluation_mode()
    assert FedAvg(FLConfig(evaluation="select")).evaluation_mode() == "select"
    with pytest.raises(ValueError, match="evaluation must be one of auto, personal, global, select"):
        FedAvg(FLConfig(evaluation="best")).evaluation_mode()
    with pytest.raises(ParameterError, match="evaluation"):
        toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, "evaluation": "best"},
            seed=0,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        )


def test_select_summary_reports_each_variant_at_its_own_best_round(graphpfl_registry, tmp_path):
    got = {
        mode: toolkit.run(
            "graphpfl.noise_robustness",
            {**QUICK, "n_rounds": 3, "evaluation": mode},
            seed=1,
            store=tmp_path / "s.sqlite",
            registry=graphpfl_registry,
        ).summary
        for mode in ("personal", "global", "select")
    }
    for v in ("personal", "global"):
        assert got["select"][f"test_acc_pooled_{v}"] == got[v]["test_acc_pooled"]
        assert got["select"][f"val_acc_pooled_{v}"] == got[v]["val_acc_pooled"]
    assert "share_personal" in got["select"] and "share_personal" not in got["global"]


def test_graphpfl_msff_and_vib_switches_change_the_model(small_federation):
    from toolkit_graphpfl.strategies import GraphPFL

    clients, base = small_federation
    off = GraphPFL(FLConfig(n_rounds=1))  # defaults: MSFF and VIB off (pilot seeds, plugin README)
    on = GraphPFL(FLConfig(n_rounds=1, use_msff=True, use_vib=True))
    cfg_off, cfg_on = off.model_config(base), on.model_config(base)
    assert (cfg_off.msff, cfg_off.vib, cfg_on.msff, cfg_on.vib) == (False, False, True, True)
    assert cfg_off.structure_learner and cfg_on.structure_learner
    res_on = run_federation(clients, on, base, seed=0)
    res_off = run_federation(clients, off, base, seed=0)
    assert res_on.n_params > res_off.n_params  # the VIB layer and the wider all-layer readout
    assert any(k.startswith("vib.") for k in res_on.global_shared)
    assert not any(k.startswith("vib.") for k in res_off.global_shared)


def test_the_three_config_layers_share_their_defaults():
    """The simulation's parameters, the strategies' FLConfig and the ModelConfig each carry defaults for the
    same names (the benchmark builds FLConfig and ModelConfig directly): a default changed in one place only
    would make the benchmark and the studies run different models. (One source would need a torch-free
    defaults module: simulation.py is imported at plugin registration and must not import torch.)"""
    import dataclasses

    from toolkit_graphpfl.model import ModelConfig
    from toolkit_graphpfl.simulation import NoiseRobustnessParams

    fl = {f.name: f.default for f in dataclasses.fields(FLConfig)}
    sim = {name: field.default for name, field in NoiseRobustnessParams.model_fields.items()}
    model = {
        f.name: f.default for f in dataclasses.fields(ModelConfig) if f.default is not dataclasses.MISSING
    }
    shared_sim = sorted(set(fl) & set(sim))
    shared_model = sorted(set(fl) & set(model))
    assert {"sl_topk", "sl_beta", "lr", "lambda_fisher", "use_msff"} <= set(shared_sim)
    assert {"sl_topk", "sl_beta", "sl_tau", "sl_embed"} <= set(shared_model)
    assert {n: sim[n] for n in shared_sim} == {n: fl[n] for n in shared_sim}
    assert {n: model[n] for n in shared_model} == {n: fl[n] for n in shared_model}
    shared_sim_model = sorted(set(sim) & set(model))  # the GIN's size and the structure learner
    assert {"hidden", "n_layers", "dropout", "sl_topk"} <= set(shared_sim_model)
    assert {n: sim[n] for n in shared_sim_model} == {n: model[n] for n in shared_sim_model}


ROUND_TIMES = (
    "client_time_s",
    "fisher_time_s",
    "train_time_s",
    "eval_time_s",
    "round_time_s",
    "round_cpu_time_s",
)


@pytest.mark.parametrize(
    "switches, same_as",
    [
        ({"use_structure": False}, "frpa"),  # topology reconstruction off
        ({"lambda_fisher": 0.0}, "fedavg_sl"),  # Fisher alignment off
        ({"use_structure": False, "lambda_fisher": 0.0}, "fedavg"),  # both off
    ],
)
def test_graphpfl_ablations_are_the_named_strategies_exactly(switches, same_as):
    """The study's ablation rows run `frpa`, `fedavg_sl` and `fedavg`: with the current defaults
    (MSFF and VIB off, nothing kept local, global evaluation) they are GraphP-FL with the switches off."""
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness

    def rounds(**kw):
        params = NoiseRobustnessParams(**{**QUICK, "n_rounds": 3, "noise_p": 0.3, "patience": 0, **kw})
        return [
            {k: v for k, v in r.items() if k not in ROUND_TIMES} for r in noise_robustness(params, 1).records
        ]

    ablated = rounds(algorithm="graphpfl", **switches)
    assert ablated == rounds(algorithm=same_as)
    assert ablated != rounds(algorithm="graphpfl")  # the switch changes the run
