"""The benchmark against the authors' pipeline: its child-process measurement and its reading of their results,
on a stand-in for their script (their code is never part of this project)."""

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "plugins" / "care" / "benchmarks" / "against_authors.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("against_authors", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_measure_reports_a_childs_own_cost_and_output(bench):
    cost = bench.measure([sys.executable, "-c", "x = bytearray(80 * 2**20); print('done')"])
    assert cost.stdout.strip() == "done"
    assert cost.peak_mib >= 80 and cost.cpu_s > 0 and cost.wall_s >= cost.cpu_s * 0.5
    with pytest.raises(SystemExit, match="failed"):
        bench.measure([sys.executable, "-c", "raise SystemExit(3)"])


def test_their_results_are_read_under_our_method_names(bench, tmp_path):
    results = tmp_path / "fully_gaussian_main.csv"
    results.write_text(
        "dataset,pred,mae,kendall_tau,gamma\nasset,mv,31.15,0.36,\nasset,care_svd,27.64,0.38,1.0\n"
        "asset,something_else,1.0,0.1,\n"
    )
    assert bench.authors_errors(results) == {"mv": 31.15, "care_svd_faithful": 27.64}


def test_a_missing_checkout_is_refused_before_any_work(bench, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--authors-src", str(tmp_path), "--authors-python", sys.executable])
    assert exit_info.value.code == 2
    assert "--authors-src" in capsys.readouterr().err
