import pytest
import torch
from toolkit_frog.features import encode_database
from toolkit_frog.graph import TemporalSampler, make_frog_graph, make_pkey_fkey_graph, make_row2edge_graph
from toolkit_frog.models import RDLModel, Roles, make_batch, share_weights
from toolkit_frog.planted import make_planted_database, planted_task
from toolkit_frog.train import TrainConfig, fit, task_splits


@pytest.fixture(scope="module")
def planted_small():
    db = make_planted_database("mixed", 1.0, 150, 12, seed=3)
    return db, encode_database(db), planted_task(db)


def _batch(graph, feats, task, split="val"):
    sp = task_splits(task)[split]
    sub = TemporalSampler(graph, [-1, -1]).sample("customer", sp.entity, int(sp.time[0]))
    return make_batch(sub, graph, feats, sp.y, 1.0)


def _models(db, feats, kind_graph, seed=0):
    torch.manual_seed(seed)
    return RDLModel(kind_graph, feats, "customer", channels=16, num_layers=2)


def test_pi_zero_reproduces_row2node_baseline(planted_small):
    db, feats, task = planted_small
    g_node, g_frog = make_pkey_fkey_graph(db), make_frog_graph(db, ["review"])
    base = _models(db, feats, g_node)
    frog = RDLModel(g_frog, feats, "customer", 16, 2, roles=Roles(["review"], channels=16))
    copied = share_weights(frog, base)
    assert len(copied) == len(base.state_dict())  # every baseline weight has a FROG counterpart
    frog.roles.fixed = torch.zeros(1)
    base.eval(), frog.eval()
    out_base = base(_batch(g_node, feats, task))
    out_frog = frog(_batch(g_frog, feats, task))
    assert torch.allclose(out_base, out_frog, atol=1e-6)
    frog.roles.fixed = torch.full((1,), 0.5)  # and the role matters
    assert not torch.allclose(out_base, frog(_batch(g_frog, feats, task)), atol=1e-3)


def test_pi_one_reproduces_row2edge_gnn(planted_small):
    db, feats, task = planted_small
    g_edge, g_frog = make_row2edge_graph(db, ["review"]), make_frog_graph(db, ["review"])
    r2e = _models(db, feats, g_edge, seed=1)
    frog = RDLModel(g_frog, feats, "customer", 16, 2, roles=Roles(["review"], channels=16))
    copied = share_weights(frog, r2e)
    assert len(copied) == len(r2e.state_dict())
    frog.roles.fixed = torch.ones(1)
    r2e.eval(), frog.eval()
    assert torch.allclose(r2e(_batch(g_edge, feats, task)), frog(_batch(g_frog, feats, task)), atol=1e-6)


def test_gumbel_roles_are_hard_forward_and_differentiable():
    roles = Roles(["t1", "t2"], mode="gumbel", channels=8)
    roles.generator = torch.Generator().manual_seed(0)
    roles.train()
    w = roles.weights()
    assert set(w.detach().tolist()) <= {0.0, 1.0}
    (w * torch.tensor([1.0, -1.0])).sum().backward()
    assert roles.logits.grad is not None and torch.all(roles.logits.grad != 0)
    roles.eval()
    with torch.no_grad():
        roles.logits.copy_(torch.tensor([2.0, -2.0]))
    assert roles.weights().tolist() == [1.0, 0.0]


def test_table_conditioned_roles_depend_on_the_table(planted_small):
    db, feats, task = planted_small
    g = make_frog_graph(db, ["review"])
    torch.manual_seed(0)
    model = RDLModel(g, feats, "customer", 16, 2, roles=Roles(["review"], conditioning="table", channels=16))
    b = _batch(g, feats, task)
    out = model(b)
    out.sum().backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.roles.mlp.parameters())
    emb = model.table_embeddings(model.encode(b), b)
    assert not torch.allclose(model.roles.pi(emb), model.roles.pi(emb + 1.0))


def test_fd_constraints_are_finite_and_trainable(planted_small):
    db, feats, task = planted_small
    g = make_frog_graph(db, ["review"])
    torch.manual_seed(0)
    model = RDLModel(g, feats, "customer", 16, 2, roles=Roles(["review"], channels=16))
    model(_batch(g, feats, task), fd=True)
    aux = model.last_aux
    assert set(aux) == {"fd_entity", "fd_table"}
    assert all(torch.isfinite(v) and v > 0 for v in aux.values())
    (aux["fd_entity"] + aux["fd_table"]).backward()
    assert model.encoders["review"].num.weight.grad.abs().sum() > 0  # edge-role rows are pulled
    assert model.roles.logits.grad.abs().sum() > 0


def test_row2node_baseline_equals_pyg_hetero_sage(planted_small):
    """One layer of our baseline == PyG HeteroConv(SAGEConv, aggr=sum) with mapped weights, before LN."""
    from torch_geometric.nn import HeteroConv, SAGEConv

    db, feats, task = planted_small
    g = make_pkey_fkey_graph(db)
    model = _models(db, feats, g)
    b = _batch(g, feats, task)
    x = model.encode(b)
    layer = model.layers[0]
    convs, indeg = {}, {}
    for key in b.rels:
        indeg[key[2]] = indeg.get(key[2], 0) + 1
    for key in b.rels:
        conv = SAGEConv(16, 16, aggr="mean")
        r = indeg[key[2]]
        with torch.no_grad():
            conv.lin_l.weight.copy_(layer.rel_lin["__".join(key)].weight)
            conv.lin_l.bias.copy_(layer.self_lin[key[2]].bias / r)
            conv.lin_r.weight.copy_(layer.self_lin[key[2]].weight / r)
        convs[key] = conv
    hetero = HeteroConv(convs, aggr="sum")
    ei = {k: torch.stack([rb.src, rb.dst]) for k, rb in b.rels.items()}
    out_pyg = hetero(x, ei)
    ours = {nt: layer.self_lin[nt](x[nt]) for nt in x}
    from toolkit_frog.models import mean_aggregate

    for key, rb in b.rels.items():
        ours[key[2]] = ours[key[2]] + layer.rel_lin["__".join(key)](
            mean_aggregate(x[key[0]][rb.src], rb.dst, b.n_nodes[key[2]])
        )
    for nt, v in out_pyg.items():
        assert torch.allclose(v, ours[nt], atol=1e-5), nt


def test_fit_reports_roles_per_epoch_and_is_deterministic(planted_small):
    db, feats, task = planted_small
    g = make_frog_graph(db, ["review"])
    cfg = TrainConfig(
        epochs=3,
        channels=8,
        num_neighbors=(5, 5),
        role_mode="gumbel",
        anneal=True,
        lam_ent=0.1,
        lam_tab=0.1,
        lam_entropy=0.01,
    )
    a = fit(g, feats, "customer", task_splits(task), task.task_type, "frog", cfg, 0, edge_tables=["review"])
    b = fit(g, feats, "customer", task_splits(task), task.task_type, "frog", cfg, 0, edge_tables=["review"])
    assert list(a.history.columns) == ["epoch", "train_loss", "val", "test", "pi_review"]
    assert len(a.history) == 3 and a.history.pi_review.between(0, 1).all()
    assert a.history.equals(b.history)
    assert 0 <= a.best_epoch < 3 and set(a.pi) == {"review"}


def test_unknown_model_kind_is_an_error(planted_small):
    from toolkit_frog.train import build_graph

    with pytest.raises(ValueError, match="model must be one of"):
        build_graph(planted_small[0], "row2hyper", [])
