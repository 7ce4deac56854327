"""The frog study scripts refuse an unknown name in a comma list with exit 2, before any work."""

import subprocess
import sys
from pathlib import Path

import pytest

STUDIES = Path(__file__).resolve().parents[2] / "plugins" / "frog" / "studies"


@pytest.mark.parametrize(
    "script, argv, allowed",
    [
        ("frog_planted.py", ["--models", "row2node,gat"], "allowed: row2node, row2edge, frog, frog_annealed"),
        ("frog_lahman.py", ["--tasks", "allstar,salary"], "allowed: allstar, games"),
    ],
)
def test_study_scripts_refuse_unknown_names_with_status_2(script, argv, allowed, tmp_path):
    done = subprocess.run(
        [sys.executable, str(STUDIES / script), *argv, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert allowed in done.stderr
    assert not any(tmp_path.iterdir())  # refused before any work
