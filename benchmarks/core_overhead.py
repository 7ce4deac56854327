"""Core overhead per sweep point (validation, hashing, store write, scheduling) vs a plain loop.

Targets: a 10,000-point sweep of a 1 ms simulation costs at most 1.3x the plain Python
loop serially; the processes executor is at least 1.6x faster than serial on 2 cores for a 50 ms
simulation.

    python benchmarks/core_overhead.py            # full: 10,000 x 1 ms and 40 x 50 ms
    python benchmarks/core_overhead.py --points 2000 --slow-points 20   # shorter
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import toolkit
from toolkit import Simulation
from toolkit.config import Field, Params
from toolkit.registry import get_registry


class WorkParams(Params):
    x: int = Field(0, ge=0, description="point index")
    work_s: float = Field(0.001, ge=0, description="seconds of busy work")


def busy(params: WorkParams, seed: int) -> dict:
    """Busy-waits ``work_s`` seconds (a stand-in for a real computation), returns one row."""
    end = time.perf_counter() + params.work_s
    while time.perf_counter() < end:
        pass
    return {"value": params.x * 2 + seed}


SIM = Simulation(name="bench.busy", func=busy, params=WorkParams, description="busy work")


def plain_loop(n_points: int, work_s: float) -> float:
    start = time.perf_counter()
    rows = []
    for i in range(n_points):
        rows.append(busy(WorkParams(x=i, work_s=work_s), 0))
    return time.perf_counter() - start


def toolkit_sweep(
    n_points: int, work_s: float, executor: str, store: Path, workers: int | None = None
) -> float:
    registry = get_registry(load_entrypoints=False)
    start = time.perf_counter()
    res = toolkit.sweep(
        SIM,
        {"x": list(range(n_points))},
        seeds=[0],
        params={"work_s": work_s},
        executor=executor,
        store=store,
        registry=registry,
        progress=False,
        max_workers=workers,
    )
    elapsed = time.perf_counter() - start
    assert res.n_computed == n_points
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=10_000, help="points of the 1 ms sweep")
    parser.add_argument("--slow-points", type=int, default=40, help="points of the 50 ms sweep")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        loop = plain_loop(args.points, 0.001)
        serial = toolkit_sweep(args.points, 0.001, "serial", tmp / "a.sqlite")
        slow_serial = toolkit_sweep(args.slow_points, 0.05, "serial", tmp / "b.sqlite")
        slow_procs = toolkit_sweep(args.slow_points, 0.05, "processes", tmp / "c.sqlite", workers=2)
    figures = {
        "points": args.points,
        "plain_loop_s": round(loop, 3),
        "toolkit_serial_s": round(serial, 3),
        "serial_overhead_ratio": round(serial / loop, 3),
        "overhead_per_point_us": round((serial - loop) / args.points * 1e6, 1),
        "slow_points": args.slow_points,
        "slow_serial_s": round(slow_serial, 3),
        "slow_processes_s": round(slow_procs, 3),
        "processes_speedup": round(slow_serial / slow_procs, 3),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(
        f"1 ms simulation, {args.points} points: plain loop {loop:.2f} s, toolkit serial {serial:.2f} s "
        f"-> ratio {serial / loop:.3f} (target <= 1.3); overhead {figures['overhead_per_point_us']} us/point"
    )
    print(
        f"50 ms simulation, {args.slow_points} points: serial {slow_serial:.2f} s, processes(2) {slow_procs:.2f} s "
        f"-> speed-up {slow_serial / slow_procs:.2f}x (target >= 1.6)"
    )


if __name__ == "__main__":
    main()
