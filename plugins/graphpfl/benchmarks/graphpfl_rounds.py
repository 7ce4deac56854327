"""Per-round cost of the graphpfl simulator on one CPU thread (the benchmark of the per-round cost target).

    python plugins/graphpfl/benchmarks/graphpfl_rounds.py                 # MUTAG, 10 clients, GIN 3x64, batch 32, 1 local epoch
    python plugins/graphpfl/benchmarks/graphpfl_rounds.py --dataset PROTEINS --rounds 10
    python plugins/graphpfl/benchmarks/graphpfl_rounds.py --no-pyg        # skip the PyG DataLoader comparison

Reports: start-up time (imports + data + partition + pre-collation + model, until round 1 starts),
rounds per second and seconds per round for every built-in strategy (the first round is excluded as
warm-up), each method's cost relative to FedAvg, the Fisher step's share of a round, communication
bytes per round, and the same FedAvg workload run with torch_geometric's GINConv and a DataLoader
re-built every round (the usual PyG federated loop) for the pre-collation speed-up.
The Flower comparison is a separate script: plugins/graphpfl/benchmarks/graphpfl_flower.py (needs flwr[simulation]).
"""

from __future__ import annotations

import time

T_START = time.perf_counter()
T_CPU = time.process_time()

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

os.environ.setdefault("OMP_NUM_THREADS", "1")


def pyg_fedavg_round_time(gs, parts, rounds: int, seed: int) -> float:
    """FedAvg on the same partition with PyG GINConv + a DataLoader built per client per round."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    from toolkit_graphpfl.graphs import split_train_val_test
    from torch import nn
    from torch_geometric.data import Data
    from torch_geometric.loader import DataLoader
    from torch_geometric.nn import GINConv, global_add_pool

    class Net(nn.Module):
        def __init__(self, f, c, h=64, layers=3):
            super().__init__()
            dims = [f] + [h] * layers
            self.convs = nn.ModuleList(
                GINConv(
                    nn.Sequential(nn.Linear(dims[i], h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, h)),
                    train_eps=True,
                )
                for i in range(layers)
            )
            self.head = nn.Sequential(nn.Linear(h, h), nn.ReLU(), nn.Dropout(0.5), nn.Linear(h, c))

        def forward(self, d):
            x = d.x
            for conv in self.convs:
                x = F.relu(conv(x, d.edge_index))
            return self.head(global_add_pool(x, d.batch))

    def to_data(g):
        e = torch.as_tensor(g.edges.T, dtype=torch.long)
        return Data(x=torch.as_tensor(g.x), edge_index=torch.cat([e, e.flip(0)], 1), y=torch.tensor([g.y]))

    rng = np.random.default_rng(seed)
    clients = []
    for idx in parts:
        tr, va, te = split_train_val_test(len(idx), rng)
        graphs = [to_data(gs.graphs[i]) for i in idx]
        clients.append(([graphs[i] for i in tr], [graphs[i] for i in va], [graphs[i] for i in te]))
    torch.manual_seed(seed)
    model = Net(gs.n_features, gs.n_classes)
    glob = {k: v.clone() for k, v in model.state_dict().items()}
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        states, sizes = [], []
        for tr, va, te in clients:
            model.load_state_dict(glob)
            model.train()
            opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=5e-4)
            for b in DataLoader(tr, batch_size=32, shuffle=True):
                opt.zero_grad()
                F.cross_entropy(model(b), b.y).backward()
                opt.step()
            states.append({k: v.clone() for k, v in model.state_dict().items()})
            sizes.append(len(tr))
        w = np.array(sizes, float) / sum(sizes)
        glob = {k: sum(wi * s[k].float() for wi, s in zip(w, states)).to(states[0][k].dtype) for k in glob}
        model.load_state_dict(glob)
        model.eval()
        with torch.no_grad():
            for tr, va, te in clients:
                for b in DataLoader(va + te, batch_size=256):
                    model(b).argmax(-1)
        times.append(time.process_time() - t0)
    return float(np.mean(times[1:]))  # CPU seconds per round, warm-up excluded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="MUTAG")
    parser.add_argument("--n-clients", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20, help="rounds per method (the first is warm-up)")
    parser.add_argument("--algorithms", default="fedavg,graphpfl,fedavg_sl,frpa,fedprox,fedper,fedcurv,local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--batching",
        choices=["random", "bucketed"],
        default="random",
        help="training batches as in graphpfl.noise_robustness (default: random)",
    )
    parser.add_argument(
        "--no-pyg", action="store_true", help="skip the torch_geometric DataLoader comparison"
    )
    parser.add_argument("--csv", default=None, help="also write the table to this CSV")
    args = parser.parse_args(argv)

    import numpy as np
    import pandas as pd
    import torch

    torch.set_num_threads(1)
    from toolkit_graphpfl.data import load_tu
    from toolkit_graphpfl.federation import build_clients, run_federation
    from toolkit_graphpfl.graphs import partition_random
    from toolkit_graphpfl.model import ModelConfig
    from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES, FLConfig

    gs = load_tu(args.dataset)
    parts = partition_random(len(gs), args.n_clients, np.random.default_rng(args.seed))
    clients = build_clients(gs, parts, batch_size=32, seed=args.seed, batching=args.batching)
    base = ModelConfig(gs.n_features, gs.n_classes, hidden=64, n_layers=3)
    first_round: list[float] = []
    rows = []
    for alg in args.algorithms.split(","):
        strategy = BUILTIN_STRATEGIES[alg](FLConfig(n_rounds=args.rounds, local_epochs=1, batch_size=32))
        cpu_marks = [time.process_time()]

        def mark(row):
            cpu_marks.append(time.process_time())
            if not first_round:
                first_round.append(time.perf_counter())
                first_round.append(time.process_time())

        res = run_federation(clients, strategy, base, args.seed, on_round=mark)
        rr = res.rounds[1:]
        rt = float(np.mean(np.diff(cpu_marks)[1:]))
        rows.append(
            {
                "algorithm": alg,
                "round_time_s": rt,
                "rounds_per_s": 1 / rt,
                "wall_round_time_s": float(np.mean([r["round_time_s"] for r in rr])),
                "train_time_s": float(np.mean([r["train_time_s"] for r in rr])),
                "fisher_share": float(
                    np.mean([r["fisher_time_s"] / r["round_time_s"] for r in rr])
                ),  # wall / wall
                "bytes_per_round": float(np.mean([r["bytes_up"] + r["bytes_down"] for r in rr])),
                "n_shared_params": res.n_shared_params,
            }
        )
    table = pd.DataFrame(rows)
    fed = (
        float(table.loc[table.algorithm == "fedavg", "round_time_s"].iloc[0])
        if "fedavg" in set(table.algorithm)
        else float("nan")
    )
    table["cost_vs_fedavg"] = table["round_time_s"] / fed
    print(
        f"dataset {args.dataset}, {args.n_clients} clients, GIN 3x64, batch 32 ({args.batching} batches), 1 local epoch, "
        f"{args.rounds} rounds per method, torch threads = {torch.get_num_threads()}"
    )
    startup_wall = (first_round[0] - T_START) - float(table.wall_round_time_s.iloc[0])
    startup_cpu = (first_round[1] - T_CPU) - float(table.round_time_s.iloc[0])
    print(
        f"start-up (imports, data, partition, pre-collation, model; until round 1): {startup_cpu:.2f} s CPU, "
        f"{startup_wall:.2f} s wall"
    )
    print(
        "round_time_s / rounds_per_s: CPU time of the process per round (robust to other load on the machine); "
        "wall_round_time_s: wall clock"
    )
    with pd.option_context("display.width", 200):
        print(table.round(4).to_string(index=False))
    if not args.no_pyg:
        try:
            pyg = pyg_fedavg_round_time(gs, parts, min(args.rounds, 10), args.seed)
            print(
                f"PyG GINConv + per-round DataLoader, FedAvg: {pyg:.4f} s CPU/round ({1 / pyg:.2f} rounds/s); "
                f"pre-collated dense path is {pyg / fed:.2f}x faster"
            )
        except ImportError as exc:
            print(f"PyG comparison skipped: {exc}")
    print("Flower comparison: python plugins/graphpfl/benchmarks/graphpfl_flower.py (needs flwr[simulation])")
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
