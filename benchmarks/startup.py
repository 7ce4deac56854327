"""Start-up cost of the command line, against ``python -c "import toolkit"``, measured side by side.

Each command runs as a fresh process, the commands interleaved round after round (so that a change
in the machine's load hits all of them alike); the figure of a command is its median wall time minus
the median of ``import toolkit``. Targets: ``--help`` within 0.3 s, ``list`` and ``show``
within 1.0 s, ``run`` of a point already in the run store within 1.5 s.

    python benchmarks/startup.py                   # this checkout, every installed plugin
    python benchmarks/startup.py --tree ../other   # another checkout's code, in this environment

Beside each wall time the CPU time (user + system) of the process is printed: on a loaded machine the wall
time includes waiting for a core, the CPU time does not, so it is the figure to compare across loads.

``--tree`` puts that checkout's ``toolkit`` and ``plugins/*`` first on ``PYTHONPATH``, so the same
interpreter and installed distributions run the other code (how the "before" figures were taken).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHOWN = "langgen.closure_dimension"
TARGETS = {
    "toolkit --help": 0.3,
    "toolkit list": 1.0,
    f"toolkit show {SHOWN}": 1.0,
    f"toolkit run {SHOWN} (cached)": 1.5,
}


def _toolkit_command() -> list[str]:
    script = Path(sys.executable).with_name("toolkit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "toolkit.cli"]


def _env(tree: Path | None, store: Path) -> dict[str, str]:
    env = dict(os.environ, TOOLKIT_STORE=str(store))
    env.pop("TOOLKIT_DISABLE_PLUGINS", None)
    if tree is not None:
        paths = [str(tree)] + [
            str(p) for p in sorted((tree / "plugins").iterdir()) if (p / "pyproject.toml").is_file()
        ]
        env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    return env


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="runs of each command (median taken)")
    parser.add_argument("--tree", type=Path, default=None, help="measure this checkout's code instead")
    args = parser.parse_args(argv)
    store = Path(tempfile.mkdtemp()) / "startup.sqlite"
    env = _env(args.tree, store)
    tk = _toolkit_command()
    commands = {
        "python -c 'import toolkit'": [sys.executable, "-c", "import toolkit"],
        "toolkit --help": tk + ["--help"],
        "toolkit list": tk + ["list"],
        f"toolkit show {SHOWN}": tk + ["show", SHOWN],
        f"toolkit run {SHOWN} (cached)": tk + ["run", SHOWN],
    }
    _time(tk + ["run", SHOWN], env)  # fills the store: the timed runs are served from it
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        for name, cmd in commands.items():
            wall, cpu = _time(cmd, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    shutil.rmtree(store.parent, ignore_errors=True)
    base = statistics.median(walls["python -c 'import toolkit'"])
    base_cpu = statistics.median(cpus["python -c 'import toolkit'"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    # Wall time is what a user waits and what the targets are about; on a loaded machine it is inflated
    # by waiting for a core, so the CPU time (user + system) is printed beside it as the load-robust figure.
    print(
        f"code: {args.tree or 'this checkout'}; {args.rounds} rounds; load average {load:.1f}; "
        f"median wall and CPU times (s) and their excess over `import toolkit`"
    )
    print(f"{'command':45s} {'wall':>7s} {'excess':>7s} {'cpu':>7s} {'excess':>7s} {'target':>7s}")
    failed = 0
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        target = TARGETS.get(name)
        excess = wall - base
        verdict = "" if target is None else ("ok" if excess <= target else "MISSED")
        failed += verdict == "MISSED"
        print(
            f"{name:45s} {wall:7.3f} {excess:7.3f} {cpu:7.3f} {cpu - base_cpu:7.3f} "
            f"{'' if target is None else f'{target:7.1f}'} {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
