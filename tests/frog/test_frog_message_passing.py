"""The per-destination message passing (one scatter and one matrix product per destination type,
the edge-row means of one edge table in one call) computes what the per-relation reference does:
same outputs, same gradients of every parameter (issue 20, a FROG epoch within 2x of Row2Node's)."""

import numpy as np
import pandas as pd
import pytest
import torch
from toolkit_frog.features import encode_database
from toolkit_frog.graph import TemporalSampler
from toolkit_frog.models import RDLModel, Roles, make_batch
from toolkit_frog.relational import Database, Table
from toolkit_frog.train import build_graph


@pytest.fixture(scope="module")
def fact_db():
    """A fact table with four keys (the benchmark's schema, small) and categorical columns in the
    fact table and in one dimension table, so the embedding means are exercised too."""
    rng = np.random.default_rng(0)
    n, m = 3000, 60
    tables = {
        f"d{i}": Table(pd.DataFrame({"id": np.arange(m), "x": rng.normal(size=m)}), {}, "id", None)
        for i in range(4)
    }
    tables["d1"].df["colour"] = rng.choice(["red", "green", "blue"], m)
    fact = pd.DataFrame(
        {
            "fid": np.arange(n),
            **{f"k{i}": rng.integers(0, m, n) for i in range(4)},
            "t": rng.integers(0, 100, n),
            "v": rng.normal(size=n),
            "kind": rng.choice(["a", "b", "c", "d"], n),
        }
    )
    tables["fact"] = Table(fact, {f"k{i}": f"d{i}" for i in range(4)}, "fid", "t")
    db = Database(tables, warn=False)
    feats = encode_database(db)
    assert feats["fact"].cardinalities and feats["d1"].cardinalities and feats["fact"].has_time
    return db, feats


def _pair(graph, feats, kind, layers):
    models = []
    for mode in ("per_relation", "per_destination"):
        torch.manual_seed(0)
        roles = Roles(["fact"], channels=16, init_logit=0.4) if kind == "frog" else None
        models.append(RDLModel(graph, feats, "d0", 16, layers, 1, roles, message_passing=mode))
    models[1].load_state_dict(models[0].state_dict())
    return models


@pytest.mark.parametrize("kind", ["row2node", "row2edge", "frog"])
@pytest.mark.parametrize("layers", [2, 3])
@pytest.mark.parametrize("variant", ["trimmed", "untrimmed", "fd"])
def test_per_destination_equals_per_relation_outputs_and_gradients(fact_db, kind, layers, variant):
    db, feats = fact_db
    g = build_graph(db, kind, ["fact"] if kind != "row2node" else [], "d0")
    sub = TemporalSampler(g, (4,) * layers, "uniform").sample(
        "d0", np.arange(0, 60, 2), 80, np.random.default_rng(1)
    )
    b = make_batch(sub, g, feats, np.arange(30) % 2, 10.0)
    if variant == "untrimmed":
        b.hop_nodes = None
    fd = variant == "fd"
    grads, outs = [], []
    for model in _pair(g, feats, kind, layers):
        if model.message_passing == "per_destination":  # fill the batch's plans: the timed epochs reuse them
            first = model(b, fd=fd).detach()
            assert b.cache and all(k[1] == model._plan_tag for k in b.cache)
        out = model(b, fd=fd).squeeze(-1)
        if model.message_passing == "per_destination":
            assert torch.equal(out.detach(), first.squeeze(-1))
        loss = torch.nn.functional.binary_cross_entropy_with_logits(out, b.y)
        if fd:  # FROG: the FD losses on top (other models: fd only turns trimming off)
            loss = loss + sum(model.last_aux.values())
        loss.backward()
        outs.append(out.detach())
        grads.append({n: p.grad for n, p in model.named_parameters() if p.grad is not None})
    assert outs[0].abs().max() > 0
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    if variant == "trimmed":  # the training path: the same parameters get a gradient
        assert grads[0].keys() == grads[1].keys()
    else:  # untrimmed, a node type that does not reach the output may get a zero gradient instead of none
        assert grads[0].keys() <= grads[1].keys()
        assert all(grads[1][n].abs().max() == 0 for n in grads[1].keys() - grads[0].keys())
    if kind == "frog":
        assert not fd or set(model.last_aux) == {"fd_entity", "fd_table"}
        assert "roles.logits" in grads[0] and grads[0]["roles.logits"].abs().max() > 0
    for name, grad in grads[0].items():
        torch.testing.assert_close(grads[1][name], grad, rtol=1e-4, atol=1e-6, msg=name)


def test_fused_edge_mean_equals_the_reference_mean(fact_db):
    """RowEncoder.fused_mean_forward (one scatter, one product) == mean_forward, with and without
    categorical columns, rows without input included."""
    from toolkit_frog.models import RowEncoder

    _, feats = fact_db
    rng = np.random.default_rng(0)
    for table in ("fact", "d1", "d2"):
        f = feats[table]
        torch.manual_seed(0)
        enc = RowEncoder(f, 16)
        rows = rng.integers(0, f.n_rows, 400)
        dst = torch.from_numpy(rng.integers(0, 50, 400))  # some of the 70 destinations receive nothing
        args = (
            torch.from_numpy(f.numeric[rows]),
            torch.from_numpy(f.categorical[rows]),
            torch.from_numpy(rng.uniform(0, 50, 400).astype(np.float32)),
            dst,
            70,
        )
        ref, fused = enc.mean_forward(*args), enc.fused_mean_forward(*args)
        assert ref[50:].abs().max() == 0 and fused[50:].abs().max() == 0
        torch.testing.assert_close(fused, ref, rtol=1e-5, atol=1e-6)


def test_message_passing_name_is_checked(fact_db):
    db, feats = fact_db
    with pytest.raises(
        ValueError, match="message_passing must be 'per_destination' or 'per_relation', got 'fast'"
    ):
        RDLModel(build_graph(db, "row2node", []), feats, "d0", 8, 2, message_passing="fast")
