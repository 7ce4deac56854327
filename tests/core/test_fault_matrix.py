"""Bad input to a sweep on every executor: each is refused before any work, in one message naming what
is wrong (exit 2, no traceback), and nothing is computed. With test_sweep_faults, test_dask_faults,
test_store_faults and test_data_faults it makes the fault matrix of docs/guide/faults.md."""

from __future__ import annotations

import pytest
import test_sweep_faults
from test_sweep_faults import _cli, _logged

EXECUTORS = ["serial", "processes", "dask"]

# (id, extra CLI arguments, what the message must say)
BAD_INPUTS = [
    ("unknown_simulation", ["sweep", "example.nope", "--grid", "x=1"], "unknown simulation 'example.nope'"),
    ("unknown_parameter", ["--grid", "y=1,2"], "unknown parameter 'y'"),
    ("wrong_type", ["--grid", "x=1,abc"], "parameter 'x'"),
    ("bad_seeds", ["--seeds", "3:1"], "seeds"),
    ("empty_grid_value", ["--grid", "x="], "x"),
    ("grid_and_p_twice", ["--grid", "x=1,2", "-p", "x=3"], "given both as -p and as --grid"),
    ("bad_out_suffix", ["--grid", "x=1", "--out", "table.xlsx"], ".csv"),
    ("negative_delay", ["--grid", "x=1", "-p", "delay_s=-1"], "delay_s"),
    ("store_is_a_directory", ["--grid", "x=1"], "is a directory"),
]


dask_address = test_sweep_faults.dask_address  # the in-process cluster, shared


def _argv(case: tuple, executor: str, log, address: str | None) -> list[str]:
    _, extra, _ = case
    argv = list(extra) if extra[0] == "sweep" else ["sweep", "example.slow_square", *extra]
    argv += ["-p", f"log_path={log}", "--seeds", "0"] if "--seeds" not in argv else ["-p", f"log_path={log}"]
    argv += ["--no-progress", "--executor", executor]
    if address:
        argv += ["--address", address]
    return argv


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_is_refused_before_any_work(case, executor, registry, tmp_path, request):
    address = request.getfixturevalue("dask_address") if executor == "dask" else None
    log = tmp_path / "computed.log"
    store = tmp_path / ("store_dir" if case[0] == "store_is_a_directory" else "runs.sqlite")
    if case[0] == "store_is_a_directory":
        store.mkdir()
    code, out, err = _cli(store, *_argv(case, executor, log, address))
    assert code == 2, (out, err)
    assert case[2] in err and "Traceback" not in err, err
    assert not _logged(log)
