"""The issue's "Must show" identities, each against an independent computation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from toolkit_graphpfl.federation import ClientTask, client_update, init_params, run_federation
from toolkit_graphpfl.graphs import noisy_copy, partition_dirichlet, topology_noise
from toolkit_graphpfl.model import GIN, ModelConfig, collate
from toolkit_graphpfl.strategies import (
    FRPA,
    ClientState,
    FedAvg,
    FisherAccumulator,
    FLConfig,
    empirical_fisher,
    fedprox_penalty,
    frpa_penalty,
)


def _gin_params(seed=0):
    torch.manual_seed(seed)
    model = GIN(ModelConfig(n_features=5, n_classes=3, hidden=8))
    return model, dict(model.named_parameters())


def test_frpa_with_unit_fisher_and_global_anchor_is_fedprox_loss_and_gradient():
    model, params = _gin_params(0)
    torch.manual_seed(1)
    global_params = {k: v.detach() + 0.3 * torch.randn_like(v) for k, v in params.items()}
    ones = {k: torch.ones_like(v) for k, v in params.items()}
    mu = 0.37
    a = frpa_penalty(params, global_params, ones, mu)
    grads_a = torch.autograd.grad(a, list(params.values()))
    b = fedprox_penalty(params, global_params, mu)
    grads_b = torch.autograd.grad(b, list(params.values()))
    assert a.item() > 0.1
    assert abs(a.item() - b.item()) <= 1e-6 * max(1.0, abs(b.item()))
    for ga, gb in zip(grads_a, grads_b):
        torch.testing.assert_close(ga, gb, atol=1e-6, rtol=0)
    # and the gradient is mu (theta - theta_global), written out
    for (k, p), ga in zip(params.items(), grads_a):
        torch.testing.assert_close(ga, mu * (p.detach() - global_params[k]), atol=1e-6, rtol=0)


def test_frpa_penalty_weights_and_anchor_matter():
    model, params = _gin_params(0)
    anchor = {k: torch.zeros_like(v) for k, v in params.items()}
    half = {k: torch.full_like(v, 0.5) for k, v in params.items()}
    ones = {k: torch.ones_like(v) for k, v in params.items()}
    assert frpa_penalty(params, anchor, half, 1.0).item() == pytest.approx(
        0.5 * frpa_penalty(params, anchor, ones, 1.0).item(), rel=1e-6
    )


@pytest.mark.parametrize("form", ["A", "B"])
def test_lambda_fisher_zero_gives_fedavgs_update_exactly(small_federation, form):
    clients, base = small_federation
    cfg = FLConfig(n_rounds=3, lambda_fisher=0.0, frpa_form=form)
    fed = run_federation(clients, FedAvg(cfg), base, seed=5)
    frpa = run_federation(clients, FRPA(cfg), base, seed=5)
    assert fed.global_shared.keys() == frpa.global_shared.keys()
    for k in fed.global_shared:
        assert torch.equal(fed.global_shared[k], frpa.global_shared[k]), k
    # with lambda_F > 0 the updates differ (the identity is not vacuous)
    frpa_on = run_federation(
        clients, FRPA(FLConfig(n_rounds=3, lambda_fisher=10.0, frpa_form=form)), base, seed=5
    )
    assert any(not torch.equal(fed.global_shared[k], frpa_on.global_shared[k]) for k in fed.global_shared)


def _logistic_batches(rng, n=50, d=4, batch=8):
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < 0.5).astype(float)
    return (
        [(torch.tensor(X[s : s + batch]), torch.tensor(y[s : s + batch])) for s in range(0, n, batch)],
        X,
        y,
    )


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_fisher_is_mean_over_all_batches_and_matches_logistic_regression_closed_form():
    rng = np.random.default_rng(0)
    batches, X, y = _logistic_batches(rng)
    w = rng.normal(size=4)
    model = torch.nn.Linear(4, 1, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(torch.tensor(w)[None])
    loss = lambda m, b: torch.nn.functional.binary_cross_entropy_with_logits(m(b[0])[:, 0], b[1])
    fisher = empirical_fisher(model, batches, loss)["weight"][0].numpy()
    # analytic: mean over batches of (mean_i (sigma(w.x_i) - y_i) x_i)^2
    per_batch = []
    for s in range(0, len(y), 8):
        xb, yb = X[s : s + 8], y[s : s + 8]
        g = ((_sigmoid(xb @ w) - yb)[:, None] * xb).mean(0)
        per_batch.append(g**2)
    analytic = np.mean(per_batch, axis=0)
    np.testing.assert_allclose(fisher, analytic, rtol=0, atol=1e-5)
    # the public-FedCurv bug (only the last batch) would give a different value
    assert np.abs(per_batch[-1] - analytic).max() > 1e-3
    # batch size 1: the per-example empirical Fisher E[(sigma - y)^2 x^2]
    singles = [(b[0][i : i + 1], b[1][i : i + 1]) for b in batches for i in range(len(b[1]))]
    f1 = empirical_fisher(model, singles, loss)["weight"][0].numpy()
    np.testing.assert_allclose(f1, (((_sigmoid(X @ w) - y) ** 2)[:, None] * X**2).mean(0), rtol=0, atol=1e-5)


def test_training_fisher_accumulates_every_batch_of_the_local_epochs(small_federation):
    clients, base = small_federation
    cfg = FLConfig(local_epochs=2, lambda_fisher=1.0)
    strategy = FRPA(cfg)
    init = init_params(base, 0)
    calls = []
    orig_add = FisherAccumulator.add

    def counting_add(self, grads):
        calls.append(1)
        return orig_add(self, grads)

    FisherAccumulator.add = counting_add
    try:
        res = client_update(
            ClientTask(
                strategy,
                base,
                ClientState(init, n_train=clients[0].n_train),
                dict(init),
                {},
                clients[0].train,
                (0, 1, 0),
                "cpu",
            )
        )
    finally:
        FisherAccumulator.add = orig_add
    assert len(calls) == 2 * len(clients[0].train) >= 4
    assert res.state.fisher is not None
    for k, f in res.state.fisher.items():
        assert float(f.max()) <= 1.0 + 1e-6 and float(f.min()) >= 0.0


def test_structure_learner_with_beta0_and_unit_plausibility_is_the_plain_gin(planted):
    batch = collate(planted.graphs[:12])
    plain_cfg = ModelConfig(planted.n_features, 2, hidden=16)
    sl_cfg = ModelConfig(
        planted.n_features, 2, hidden=16, structure_learner=True, sl_beta=0.0, plausibility="ones"
    )
    torch.manual_seed(0)
    plain = GIN(plain_cfg).eval()
    sl = GIN(sl_cfg).eval()
    missing = sl.load_state_dict(plain.state_dict(), strict=False)
    assert all(k.startswith("structure.") for k in missing.missing_keys) and not missing.unexpected_keys
    out_plain, _ = plain(batch)
    out_sl, _ = sl(batch)
    torch.testing.assert_close(out_sl, out_plain, atol=1e-6, rtol=0)
    # beta > 0 changes the output (so the identity is not vacuous)
    sl2 = GIN(ModelConfig(planted.n_features, 2, hidden=16, structure_learner=True, sl_beta=0.5)).eval()
    sl2.load_state_dict(plain.state_dict(), strict=False)
    assert (sl2(batch)[0] - out_plain).abs().max() > 1e-4


def _tie_split_topk_reference(s, valid, k, tol=1e-6):
    """Row by row: weight 1 above the k-th largest valid S, remaining slots shared by its ties; max-symmetrised."""
    sel = torch.zeros_like(s)
    for b in range(s.shape[0]):
        for i in range(s.shape[1]):
            cand = [j for j in range(s.shape[2]) if valid[b, i, j] > 0]
            if not cand:
                continue
            values = sorted((float(s[b, i, j]) for j in cand), reverse=True)
            kth = values[min(k, len(values)) - 1]
            above = [j for j in cand if s[b, i, j] > kth + tol]
            tied = [j for j in cand if abs(float(s[b, i, j]) - kth) <= tol]
            for j in above:
                sel[b, i, j] = 1.0
            for j in tied:
                sel[b, i, j] = (min(k, len(cand)) - len(above)) / len(tied)
    return torch.maximum(sel, sel.transpose(1, 2))


def test_structure_learner_fused_arithmetic_matches_the_textbook_formulas(planted):
    """Refined adjacency and SSL loss against direct, unfused computations (values and gradients)."""
    import torch.nn.functional as F
    from toolkit_graphpfl.model import StructureLearner

    batch = collate(planted.graphs[:12])
    torch.manual_seed(3)
    sl = StructureLearner(planted.n_features, 16, topk=3, beta=0.7, tau=0.2, plausibility="sigmoid")
    refined, s = sl(batch.x, batch.adj, batch.mask)
    ssl = sl.ssl_loss(s, batch.adj, batch.mask)
    n = s.shape[-1]
    valid = batch.mask.unsqueeze(1) * batch.mask.unsqueeze(2) * (1.0 - torch.eye(n))
    sel = _tie_split_topk_reference(s.detach(), valid, 3)
    assert ((sel > 0) & (sel < 1)).any()  # one-hot node types: ties occur, so the split is exercised
    want = 0.3 * batch.adj * torch.sigmoid(s / 0.2) + 0.7 * sel * F.relu(s)
    torch.testing.assert_close(refined, want, atol=1e-6, rtol=0)
    assert (refined - refined.transpose(1, 2)).abs().max() < 1e-6
    bce = F.binary_cross_entropy_with_logits(s / 0.2, batch.adj, reduction="none")
    pos, neg = batch.adj * valid, (1.0 - batch.adj) * valid
    want_ssl = (bce * pos).sum() / pos.sum() + (bce * neg).sum() / neg.sum()
    torch.testing.assert_close(ssl, want_ssl, atol=1e-5, rtol=1e-6)
    params = list(sl.parameters())
    g_new = torch.autograd.grad(refined.sum() + ssl, params, retain_graph=True)
    g_ref = torch.autograd.grad(want.sum() + want_ssl, params)
    for a, b in zip(g_new, g_ref):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_one_client_server_model_equals_the_clients(small_federation):
    clients, base = small_federation
    res = run_federation(clients[:1], FedAvg(FLConfig(n_rounds=2)), base, seed=1)
    for k, v in res.global_shared.items():
        assert torch.equal(v, res.states[0].params[k]), k


def test_noise_p0_leaves_graphs_unchanged(planted):
    noisy = noisy_copy(planted, 0.0, seed=4)
    for g, h in zip(planted.graphs, noisy.graphs):
        assert h is g


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 1.0])
def test_noise_keeps_exactly_round_1_minus_p_edges(planted, p):
    rng = np.random.default_rng(7)
    for g in planted.graphs:
        h = topology_noise(g, p, rng)
        orig = set(map(tuple, g.edges.tolist()))
        new = set(map(tuple, h.edges.tolist()))
        assert len(orig & new) == int(round((1 - p) * g.n_edges))
        free = g.n_nodes * (g.n_nodes - 1) // 2 - g.n_edges
        assert len(new - orig) == min(int(round(p * g.n_edges)), free)
        assert (h.edges[:, 0] < h.edges[:, 1]).all()  # stored once (symmetric), no self loops


def test_noise_on_mutag_exact_counts_and_seeded():
    from toolkit_graphpfl.data import load_tu

    gs = load_tu("MUTAG")
    a, b = noisy_copy(gs, 0.3, seed=1), noisy_copy(gs, 0.3, seed=1)
    c = noisy_copy(gs, 0.3, seed=2)
    assert all(np.array_equal(x.edges, y.edges) for x, y in zip(a.graphs, b.graphs))
    assert any(not np.array_equal(x.edges, y.edges) for x, y in zip(a.graphs, c.graphs))
    kept = sum(
        len(set(map(tuple, g.edges.tolist())) & set(map(tuple, h.edges.tolist())))
        for g, h in zip(gs.graphs, a.graphs)
    )
    assert kept == sum(int(round(0.7 * g.n_edges)) for g in gs.graphs)
    # the dense adjacency of a noisy graph is symmetric
    batch = collate(a.graphs[:5])
    assert torch.equal(batch.adj, batch.adj.transpose(1, 2))


def test_dirichlet_large_alpha_gives_near_uniform_label_histograms():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(3), 400)
    parts = partition_dirichlet(labels, 5, alpha=1e6, rng=rng, min_per_client=10)
    hist = np.array([np.bincount(labels[p], minlength=3) / len(p) for p in parts])
    assert np.abs(hist - 1 / 3).max() < 0.02
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(labels)))  # a partition
    skewed = partition_dirichlet(labels, 5, alpha=0.1, rng=np.random.default_rng(0), min_per_client=10)
    hist_s = np.array([np.bincount(labels[p], minlength=3) / len(p) for p in skewed])
    assert np.abs(hist_s - 1 / 3).max() > 0.2
    assert min(len(p) for p in skewed) >= 10


def test_dirichlet_impossible_minimum_is_a_clear_error():
    with pytest.raises(ValueError, match="at least 50"):
        partition_dirichlet(np.zeros(100, int), 5, 1.0, np.random.default_rng(0), min_per_client=50)


def test_sparse_neighbour_sum_equals_the_dense_adjacency_product():
    from toolkit_graphpfl.data import load_tu
    from toolkit_graphpfl.model import Batch

    gs = load_tu("PROTEINS")
    b = collate(gs.graphs[:24])
    torch.manual_seed(0)
    model = GIN(ModelConfig(gs.n_features, 2)).eval()
    sparse_out, _ = model(b)
    dense_out, _ = model(Batch(b.x, b.adj, b.mask, b.y, None))
    torch.testing.assert_close(sparse_out, dense_out, atol=1e-4, rtol=1e-5)


def test_bucketed_batches_hold_every_graph_once(planted):
    from toolkit_graphpfl.model import make_batches

    batches = make_batches(planted.graphs, 8, np.random.default_rng(0))
    assert sum(b.n_graphs for b in batches) == len(planted)
    sizes = [int(b.mask.sum(1).max()) for b in batches]
    assert sizes == sorted(sizes)  # sorted by node count: little padding
    assert sorted(int(y) for b in batches for y in b.y) == sorted(planted.labels().tolist())


@pytest.mark.parametrize("embed, plausibility", [("mlp", "sigmoid"), ("gin", "sigmoid"), ("mlp", "ones")])
def test_sparse_structure_learner_path_equals_the_dense_one(planted, embed, plausibility):
    """The edge-list refined adjacency and SSL loss (the default path) against the dense formulas."""
    from toolkit_graphpfl.graphs import Graph
    from toolkit_graphpfl.model import Batch

    noisy = noisy_copy(planted, 0.3, seed=2)
    tiny = Graph(
        np.ones((3, planted.n_features), np.float32), np.array([[0, 1]]), 1
    )  # fewer nodes than k + 1
    batch = collate(list(noisy.graphs[:10]) + [tiny])
    dense = Batch(batch.x, batch.adj, batch.mask, batch.y, edge_index=None)
    cfg = ModelConfig(
        planted.n_features,
        2,
        hidden=16,
        structure_learner=True,
        sl_topk=4,
        sl_beta=0.5,
        msff=True,
        vib=True,
        sl_embed=embed,
        plausibility=plausibility,
    )
    torch.manual_seed(0)
    model = GIN(cfg).train()
    model.SPARSE_STRUCTURE_RATIO = 0.0  # force the edge-list path on these small graphs
    assert model._sparse_structure_pays(batch)
    outs = []
    for b in (batch, dense):
        logits, aux = model(b, torch.Generator().manual_seed(1))
        grads = torch.autograd.grad(logits.square().sum() + aux["ssl"] + aux["kl"], list(model.parameters()))
        outs.append((logits, aux["ssl"], grads))
    (l_sparse, ssl_sparse, g_sparse), (l_dense, ssl_dense, g_dense) = outs
    torch.testing.assert_close(l_sparse, l_dense, atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(ssl_sparse, ssl_dense, atol=1e-5, rtol=1e-6)
    scale = max(float(g.abs().max()) for g in g_dense)
    for name, a, b in zip([n for n, _ in model.named_parameters()], g_sparse, g_dense):
        torch.testing.assert_close(a, b, atol=1e-4 * scale, rtol=0, msg=name)
    # the learned edges matter: without them (β = 0) the logits differ
    model.structure.beta = 0.0
    assert (model(batch, torch.Generator().manual_seed(1))[0] - l_sparse).abs().max() > 1e-3


def test_structure_learner_takes_the_edge_list_path_only_on_large_padded_batches(planted):
    from toolkit_graphpfl.graphs import Graph

    model = GIN(ModelConfig(planted.n_features, 2, hidden=16, structure_learner=True))
    small = collate(list(planted.graphs[:8]))
    # one 400-node path graph padded with 7 small graphs: B·N² far above the message count
    path = Graph(
        np.ones((400, planted.n_features), np.float32), np.stack([np.arange(399), np.arange(1, 400)], 1), 0
    )
    large = collate(list(planted.graphs[:7]) + [path])
    assert not model._sparse_structure_pays(small)
    assert model._sparse_structure_pays(large)


def test_mlp_structure_learner_cannot_tell_same_type_atoms_apart_on_mutag():
    """On one-hot atom types S depends only on the type pair, so top-k among same-type atoms is a tie.

    Why the top-k selection splits ties (plugin README, "learned graph on molecules"): with
    ``sl_embed="mlp"`` a carbon's k learned neighbours would otherwise be carbons picked by node
    index; ``sl_embed="gin"`` (MLP(x + A x)) separates atoms whose neighbourhoods differ.
    """
    from toolkit_graphpfl.data import load_tu
    from toolkit_graphpfl.model import StructureLearner

    gs = load_tu("MUTAG")
    batch = collate(gs.graphs[:8])
    types = batch.x.argmax(-1)
    real = batch.mask > 0
    torch.manual_seed(0)
    for embed, ties_everywhere in (("mlp", True), ("gin", False)):
        sl = StructureLearner(
            gs.n_features, 16, topk=4, beta=0.5, tau=0.2, plausibility="sigmoid", embed=embed
        )
        with torch.no_grad():
            s = sl.similarity(batch.x, batch.adj, batch.mask)
        same_pair_same_s = True
        for b in range(s.shape[0]):
            idx = real[b].nonzero().squeeze(1)
            t = types[b, idx]
            sb = s[b][idx][:, idx]
            for i in range(len(idx)):
                for j in range(len(idx)):
                    twin = (t == t[i]).nonzero().squeeze(1)
                    same_pair_same_s &= bool(torch.allclose(sb[twin, j], sb[i, j], atol=1e-6))
        assert same_pair_same_s == ties_everywhere
    # mlp: a carbon's top-4 among the other carbons of its molecule all tie at cosine 1
    sl = StructureLearner(gs.n_features, 16, topk=4, beta=0.5, tau=0.2, plausibility="sigmoid", embed="mlp")
    with torch.no_grad():
        s = sl.similarity(batch.x, batch.adj, batch.mask)
    carbons = ((types[0] == 0) & real[0]).nonzero().squeeze(1)
    assert len(carbons) > 5
    torch.testing.assert_close(
        s[0][carbons][:, carbons], torch.ones(len(carbons), len(carbons)), atol=1e-6, rtol=0
    )


def test_structure_learner_model_does_not_depend_on_node_order():
    """Relabelling the nodes of each molecule leaves the graph-level output unchanged (ties split, not by index)."""
    import dataclasses

    from toolkit_graphpfl.data import load_tu

    gs = load_tu("MUTAG")
    rng = np.random.default_rng(0)
    graphs = gs.graphs[:20]
    permuted = []
    for g in graphs:
        order = rng.permutation(g.n_nodes)
        permuted.append(dataclasses.replace(g, x=g.x[order], edges=np.argsort(order)[g.edges]))
    for embed in ("mlp", "gin"):
        torch.manual_seed(0)
        model = GIN(
            ModelConfig(gs.n_features, 2, hidden=32, structure_learner=True, sl_beta=0.5, sl_embed=embed)
        ).eval()
        with torch.no_grad():
            torch.testing.assert_close(
                model(collate(permuted))[0], model(collate(graphs))[0], atol=1e-5, rtol=0
            )


def test_top_k_selection_without_ties_is_the_plain_top_k_and_rows_carry_k_slots():
    from toolkit_graphpfl.model import StructureLearner

    torch.manual_seed(0)
    b, n, k = 3, 9, 3
    s = torch.rand(b, n, n)
    mask = torch.ones(b, n)
    mask[2, 6:] = 0  # a smaller graph in the batch
    sl = StructureLearner(4, 8, topk=k, beta=0.5, tau=0.2, plausibility="sigmoid")
    valid = sl.valid_pairs(mask)
    sel = sl._topk_selection(s, mask)
    plain = (
        torch.zeros_like(s).scatter_(-1, s.masked_fill(valid == 0, -1.0).topk(k, dim=-1).indices, 1.0) * valid
    )
    torch.testing.assert_close(sel, torch.maximum(plain, plain.transpose(1, 2)))
    # float64 similarities give the same selection, in float64
    torch.testing.assert_close(sl._topk_selection(s.double(), mask), sel.double())
    # all-tied rows: every other real node gets k / (n_real - 1) before symmetrisation
    flat = sl._topk_selection(torch.ones(b, n, n), mask)
    torch.testing.assert_close(flat[0, 0, 1:], torch.full((n - 1,), k / (n - 1)))
    torch.testing.assert_close(flat[2, 0, 1:6], torch.full((5,), k / 5))
    assert float(flat[2, 0, 6:].abs().sum()) == 0.0
