"""The svrg_poco study scripts refuse a bad comma list with exit status 2 before any work (toolkit.argtypes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "script, argv, message",
    [
        # the gates script used to skip an unknown gate silently and exit 0 having run nothing
        ("svrg_poco_gates.py", ["--only", "g1,g5"], "allowed: g1, g2, g3, g4"),
        ("svrg_poco_gates.py", ["--seeds", "3,x"], "'x' is not one of the comma-separated integers"),
        # a repeated seed used to be run twice and counted twice in the means
        ("svrg_poco_g4_limits.py", ["--seeds", "0,0"], "'0' is listed twice"),
        (
            "svrg_poco_g4_limits.py",
            ["--ivon-lrs", "0.05,fast"],
            "'fast' is not one of the comma-separated numbers",
        ),
        ("svrg_poco_mlp_grid.py", ["--confirm-seeds", "1,2"], "'1' is below the minimum 2"),
    ],
)
def test_study_scripts_refuse_a_bad_list_with_status_2(script, argv, message, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "plugins" / "svrg_poco" / "studies" / script), *argv, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"argument {argv[0]}" in done.stderr and message in done.stderr
    assert not out.exists()  # refused before any work


def test_gate_experiments_take_fresh_seeds():
    from toolkit_svrg_poco.experiments import g2_variance

    assert list(g2_variance(True, seeds=[3, 4]).table.seed) == [3, 4]
    assert list(g2_variance(True).table.seed) == [0]
    with pytest.raises(ValueError, match="distinct non-negative"):
        g2_variance(True, seeds=[3, 3])
