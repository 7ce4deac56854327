"""`toolkit runs` shows single runs; `list` and `show` fit the terminal's width."""

from __future__ import annotations

import re

import pytest

from toolkit.cli import main


@pytest.fixture
def invoke(example_site, capsys, store_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")

    def _invoke(*args: str) -> tuple[int, str]:
        code = 0
        try:
            main(["--store", str(store_path), *args])
        except SystemExit as exc:
            code = exc.code or 0
        return code, capsys.readouterr().out

    return _invoke


def test_runs_lists_single_runs(invoke):
    code, out = invoke("run", "example.random_walk", "-p", "n_steps=20", "--seed", "3")
    assert code == 0
    run_id = re.search(r"run ([0-9a-f]{12}):", out).group(1)
    code, out = invoke("runs")
    # before: only "1 runs stored in ..." and no way to find the run's id
    assert "single runs" in out and run_id in out and "seed=3" in out


@pytest.mark.parametrize("args", [("list",), ("show", "example.random_walk"), ("runs",)])
def test_output_fits_the_terminal_width(invoke, args):
    invoke("run", "example.random_walk", "-p", "n_steps=20")
    code, out = invoke(*args)
    assert code == 0
    too_long = [line for line in out.splitlines() if len(line) > 60 and " " in line.strip()]
    assert not too_long, too_long
