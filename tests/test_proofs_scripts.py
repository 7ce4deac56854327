"""Each first-party `proofs/` script runs clean: every claim gives its author's expected verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.stem for p in (REPO / "proofs").glob("*.py"))


def test_one_proofs_script_per_first_party_plugin():
    assert SCRIPTS == sorted(p.name for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").exists())


@pytest.mark.parametrize("plugin", SCRIPTS)
def test_proofs_script_exits_clean(plugin, tmp_path):
    csv = tmp_path / "verdicts.csv"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(REPO / "proofs" / f"{plugin}.py"), "--csv", str(csv)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "all as expected" in done.stdout
    import pandas as pd

    table = pd.read_csv(csv)
    assert (
        len(table) > 0
        and table["as_expected"].all()
        and set(table["bound"].str.split(".").str[0]) == {plugin}
    )
