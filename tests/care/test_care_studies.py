"""The care study script's command line: a wrong table name or a misplaced seed exits with status 2 before
any work, listing what it takes."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "plugins" / "care" / "studies" / "targets.py"


@pytest.mark.parametrize(
    "argv, message",
    [(["g9"], "invalid choice: 'g9' (choose from 'g1', 'g2'"), (["g1", "4"], "a seed is taken by g2 only")],
)
def test_bad_arguments_exit_2_naming_what_is_allowed(argv, message, tmp_path):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *argv, "--store", str(tmp_path / "runs.sqlite")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and message in out.stderr
    assert not (tmp_path / "runs.sqlite").exists()  # refused before any work


@pytest.mark.parametrize(
    "simulation, params, message",
    [
        (
            "care.benchmark",
            {"dataset": "asset", "methods": ("nope", "mv")},
            "got 'nope'.*each one of 'mv', 'avg'",
        ),
        ("care.benchmark", {"dataset": "civilcomments", "methods": ("one_factor",)}, "allowed: mv, avg"),
        ("care.synthetic", {"methods": ("mean", "zzz")}, "got 'zzz'.*each one of 'mean', 'mv'"),
    ],
)
def test_an_unknown_method_is_refused_before_any_work(simulation, params, message, tmp_path):
    # a misspelt method used to be dropped silently: the table came back without it
    import toolkit
    from toolkit.errors import ParameterError

    with pytest.raises(ParameterError, match=message):
        toolkit.run(simulation, params, store=tmp_path / "runs.sqlite")
