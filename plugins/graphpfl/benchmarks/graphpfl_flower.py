"""FedAvg rounds in Flower's simulation engine vs the graphpfl simulator, on the same workload.

    pip install "flwr[simulation]"          # not a dependency of the toolkit (it brings Ray)
    python plugins/graphpfl/benchmarks/graphpfl_flower.py                       # MUTAG, 10 clients, 10 rounds
    python plugins/graphpfl/benchmarks/graphpfl_flower.py --rounds 20 --cpus-per-client 1

Both sides run the identical client work: ``toolkit_graphpfl.federation.client_update`` (one local
epoch of Adam on the client's pre-collated GIN 3x64 batches, batch 32) and an evaluation of the
global model on every client's validation and test graphs, every round. Flower runs it as a
``ClientApp`` / ``ServerApp`` pair under ``flwr.simulation.run_simulation`` (Ray backend), with its
own ``FedAvg`` strategy. Reported: Flower's start-up (script start until its first round begins;
Ray and the simulation engine), its wall seconds per round (first round excluded), the same for the
graphpfl simulator's ``fedavg`` on one thread, and the ratio. ``GRAPHPFL_FLOWER_LOG=FILE`` appends a
line per workload build (driver and each Ray actor once: nothing is rebuilt per round).
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

os.environ.setdefault("OMP_NUM_THREADS", "1")

_CACHE: dict = {}


def workload(dataset: str, n_clients: int, seed: int):
    """(clients, model config, initial parameters): the same in every process for the same arguments."""
    key = (dataset, n_clients, seed)
    if key not in _CACHE:
        import numpy as np
        import torch

        torch.set_num_threads(1)
        from toolkit_graphpfl.data import load_tu
        from toolkit_graphpfl.federation import build_clients, init_params
        from toolkit_graphpfl.graphs import partition_random
        from toolkit_graphpfl.model import ModelConfig

        gs = load_tu(dataset)
        parts = partition_random(len(gs), n_clients, np.random.default_rng(seed))
        clients = build_clients(gs, parts, batch_size=32, seed=seed)
        cfg = ModelConfig(gs.n_features, gs.n_classes, hidden=64, n_layers=3)
        _CACHE[key] = (clients, cfg, init_params(cfg, seed))
        if os.environ.get(
            "GRAPHPFL_FLOWER_LOG"
        ):  # Ray does not forward the actors' output: count builds in a file
            with open(os.environ["GRAPHPFL_FLOWER_LOG"], "a") as log:
                log.write(f"workload built in process {os.getpid()}\n")
    return _CACHE[key]


def local_fit(dataset: str, n_clients: int, seed: int, client: int, server_round: int, arrays: list):
    """One FedAvg client update from the global ``arrays`` (state-dict order): the simulator's own code."""
    import torch
    from toolkit_graphpfl.federation import ClientTask, client_update
    from toolkit_graphpfl.strategies import ClientState, FedAvg, FLConfig

    clients, cfg, init = workload(dataset, n_clients, seed)
    glob = {k: torch.as_tensor(a) for k, a in zip(init, arrays)}
    data = clients[client]
    task = ClientTask(
        FedAvg(FLConfig()),
        cfg,
        ClientState(glob, None, None, data.n_train),
        glob,
        {},
        data.train,
        (seed, server_round, client),
        "cpu",
    )
    res = client_update(task)
    return [res.state.params[k].numpy() for k in init], data.n_train


def local_evaluate(dataset: str, n_clients: int, seed: int, client: int, arrays: list):
    import torch
    from toolkit_graphpfl.federation import _model, evaluate

    clients, cfg, init = workload(dataset, n_clients, seed)
    model = _model(cfg, "cpu")
    model.load_state_dict({k: torch.as_tensor(a) for k, a in zip(init, arrays)})
    data = clients[client]
    correct, total, loss = evaluate(model, data.val + data.test)
    return loss / max(total, 1), total, correct / max(total, 1)


def seconds_per_round(marks: list[float]) -> float:
    """Mean gap between consecutive round marks, the first round (warm-up) excluded."""
    gaps = [b - a for a, b in zip(marks[:-1], marks[1:])]
    return sum(gaps[1:]) / max(len(gaps) - 1, 1)


def run_flower(dataset: str, n_clients: int, seed: int, rounds: int, cpus_per_client: float) -> dict:
    from flwr.client import ClientApp, NumPyClient
    from flwr.common import Context, ndarrays_to_parameters
    from flwr.server import ServerApp, ServerAppComponents, ServerConfig
    from flwr.server.strategy import FedAvg
    from flwr.simulation import run_simulation

    marks: list[float] = []

    class TimedFedAvg(FedAvg):
        def configure_fit(self, server_round, parameters, client_manager):
            marks.append(time.perf_counter())
            return super().configure_fit(server_round, parameters, client_manager)

    class GraphClient(NumPyClient):
        def __init__(self, client: int) -> None:
            self.client = client

        def fit(self, parameters, config):
            arrays, n = local_fit(
                dataset, n_clients, seed, self.client, int(config.get("round", 0)), parameters
            )
            return arrays, n, {}

        def evaluate(self, parameters, config):
            loss, n, acc = local_evaluate(dataset, n_clients, seed, self.client, parameters)
            return loss, n, {"accuracy": acc}

    def client_fn(context: Context):
        return GraphClient(int(context.node_config["partition-id"])).to_client()

    def server_fn(context: Context):
        _, _, init = workload(dataset, n_clients, seed)
        strategy = TimedFedAvg(
            fraction_fit=1.0,
            fraction_evaluate=1.0,
            min_fit_clients=n_clients,
            min_evaluate_clients=n_clients,
            min_available_clients=n_clients,
            on_fit_config_fn=lambda r: {"round": r},
            initial_parameters=ndarrays_to_parameters([v.numpy() for v in init.values()]),
        )
        return ServerAppComponents(strategy=strategy, config=ServerConfig(num_rounds=rounds))

    t0 = time.perf_counter()
    run_simulation(
        server_app=ServerApp(server_fn=server_fn),
        client_app=ClientApp(client_fn=client_fn),
        num_supernodes=n_clients,
        backend_config={"client_resources": {"num_cpus": cpus_per_client, "num_gpus": 0.0}},
    )
    marks.append(time.perf_counter())
    return {
        "startup_s": marks[0] - T_START,
        "call_to_first_round_s": marks[0] - t0,
        "round_s": seconds_per_round(marks),
    }


def run_ours(dataset: str, n_clients: int, seed: int, rounds: int) -> dict:
    from toolkit_graphpfl.federation import run_federation
    from toolkit_graphpfl.strategies import FedAvg, FLConfig

    clients, cfg, _ = workload(dataset, n_clients, seed)
    marks: list[float] = [time.perf_counter()]
    run_federation(
        clients,
        FedAvg(FLConfig(n_rounds=rounds)),
        cfg,
        seed,
        on_round=lambda row: marks.append(time.perf_counter()),
    )
    return {"round_s": seconds_per_round(marks)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="MUTAG")
    parser.add_argument("--n-clients", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=10, help="rounds (the first is warm-up)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cpus-per-client",
        type=float,
        default=1.0,
        help="Ray resources per client (1 = one client per core)",
    )
    args = parser.parse_args(argv)
    try:
        import flwr
    except ImportError:
        print(
            'Flower is not installed: pip install "flwr[simulation]" (it is not a toolkit dependency)',
            file=sys.stderr,
        )
        return 2
    flower = run_flower(args.dataset, args.n_clients, args.seed, args.rounds, args.cpus_per_client)
    ours = run_ours(args.dataset, args.n_clients, args.seed, args.rounds)
    print(
        f"{args.dataset}, {args.n_clients} clients, GIN 3x64, batch 32, 1 local epoch, FedAvg, {args.rounds} rounds, "
        f"wall clock, first round excluded"
    )
    print(
        f"Flower {flwr.__version__} simulation (Ray, {args.cpus_per_client:g} CPU per client): "
        f"start-up {flower['startup_s']:.1f} s (run_simulation call to first round {flower['call_to_first_round_s']:.1f} s), "
        f"{flower['round_s']:.3f} s/round ({1 / flower['round_s']:.2f} rounds/s)"
    )
    print(
        f"graphpfl simulator (serial, 1 thread): {ours['round_s']:.3f} s/round ({1 / ours['round_s']:.2f} rounds/s)"
    )
    print(f"Flower / graphpfl seconds per round: {flower['round_s'] / ours['round_s']:.2f}x")
    return 0


if __name__ == "__main__":
    # Run as the importable module ``graphpfl_flower`` so Ray pickles these functions by reference and each
    # actor builds its own workload once (by value, the driver's cache would travel with every ClientApp).
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (here, os.getcwd(), os.environ.get("PYTHONPATH")) if p
    )
    sys.path.insert(0, here)
    import graphpfl_flower

    graphpfl_flower.T_START = T_START
    sys.exit(graphpfl_flower.main())
