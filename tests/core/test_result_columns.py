"""The runner refuses a result column named like a parameter with another value (the table would show
the result as the parameter, and a sweep would be mislabelled): the point fails, is recorded as failed,
and the message names the simulation, the column and the fix."""

from __future__ import annotations

import concurrent.futures as cf
import types

import pytest

import toolkit
from toolkit import Simulation
from toolkit.config import Params
from toolkit.errors import ResultColumnError
from toolkit.registry import get_registry
from toolkit.runner import SweepFailed
from toolkit.store import RunStore


class GammaParams(Params):
    gamma: float = 1.0
    sizes: list[int] = [1, 2]


def _clobbers_gamma(params: GammaParams, seed: int) -> dict:
    return {"gamma": -1.0, "loss": params.gamma * 2}


def _repeats_parameters(params: GammaParams, seed: int) -> list[dict]:
    # the parameter's own value, one item of a list parameter per row, and the seed: all allowed
    return [{"gamma": params.gamma, "sizes": s, "seed": seed, "loss": s * params.gamma} for s in params.sizes]


def _clobbers_sizes(params: GammaParams, seed: int) -> dict:
    return {"sizes": -1}


def _shortens_a_list(params: GammaParams, seed: int) -> dict:
    return {"sizes": f"<{len(params.sizes)} sizes>", "loss": 0.0}  # a short text form of a list parameter


def _summary_clobbers_gamma(params: GammaParams, seed: int) -> toolkit.SimulationOutput:
    rows = [{"loss": params.gamma * 2}]
    return toolkit.SimulationOutput(rows, {"gamma": 0.5, "mean_loss": params.gamma * 2})


def _summary_repeats_gamma(params: GammaParams, seed: int) -> toolkit.SimulationOutput:
    return toolkit.SimulationOutput([{"loss": 1.0}], {"gamma": params.gamma, "mean_loss": 1.0})


def _registry(func) -> toolkit.Registry:
    mod = types.ModuleType("planted")
    sim = Simulation("planted.sim", func, GammaParams, "a planted simulation")
    mod.toolkit_register_simulations = toolkit.hookimpl(lambda: [sim])
    return get_registry(plugins=[mod], load_entrypoints=False)


def test_run_refuses_and_records_a_result_column_named_like_a_parameter(tmp_path):
    reg = _registry(_clobbers_gamma)
    store = tmp_path / "runs.sqlite"
    with pytest.raises(ResultColumnError) as err:
        toolkit.run("planted.sim", {"gamma": 3.0}, store=store, registry=reg)
    text = str(err.value)
    assert "simulation planted.sim returned result column(s) or summary key(s) 'gamma'" in text
    assert "gamma=-1.0 where the parameter is 3.0" in text and "Rename these result columns" in text
    with RunStore(store) as st:
        assert st.count_failures() == 1  # recorded like any point whose simulation raises


@pytest.mark.parametrize("executor", ["serial", "threads"])
def test_sweep_records_the_point_as_failed_naming_the_column(tmp_path, executor):
    reg = _registry(_clobbers_gamma)
    ex = cf.ThreadPoolExecutor(2) if executor == "threads" else "serial"
    try:
        with pytest.raises(SweepFailed) as err:
            toolkit.sweep(
                "planted.sim", {"gamma": [1.0, 2.0]}, store=tmp_path / "s.sqlite", registry=reg, executor=ex
            )
    finally:
        if not isinstance(ex, str):
            ex.shutdown()
    result = err.value.result
    assert len(result.failures) == 2 and not result.runs
    assert all(f.error.startswith("ResultColumnError: simulation planted.sim") for f in result.failures)
    assert "'gamma'" in str(err.value)


def test_a_row_may_repeat_a_parameter_or_one_item_of_a_list(tmp_path):
    reg = _registry(_repeats_parameters)
    table = toolkit.run(
        "planted.sim", {"gamma": 2.0, "sizes": [3, 4]}, seed=5, store=tmp_path / "s", registry=reg
    ).table
    assert list(table["sizes"]) == [3, 4] and list(table["loss"]) == [6.0, 8.0] and set(table["seed"]) == {5}


def test_the_cli_prints_the_refusal_without_a_traceback(registry, monkeypatch, capsys):
    from toolkit import cli, runner

    def refuse(*args, **kwargs):
        raise ResultColumnError("simulation example.random_walk returned result column(s) 'x' ...")

    monkeypatch.setattr(runner, "run", refuse)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["run", "example.random_walk"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: simulation example.random_walk returned result column(s) 'x'")
    assert "Traceback" not in err


def test_a_list_parameter_may_be_shortened_to_text_and_long_values_are_cut_in_the_message(tmp_path):
    reg = _registry(_shortens_a_list)
    table = toolkit.run("planted.sim", {"sizes": [1, 2, 3]}, store=tmp_path / "s", registry=reg).table
    assert list(table["sizes"]) == ["<3 sizes>"]
    reg = _registry(_clobbers_sizes)
    with pytest.raises(ResultColumnError) as err:
        toolkit.run("planted.sim", {"sizes": list(range(1000))}, store=tmp_path / "t", registry=reg)
    assert "sizes=-1 where the parameter is [0, 1, 2," in str(err.value) and len(str(err.value)) < 600


def test_a_summary_key_named_like_a_parameter_is_refused_too(tmp_path):
    # the summary table puts the parameters beside the summary, and the summary's value would win
    with pytest.raises(ResultColumnError, match="gamma=0.5 where the parameter is 3.0"):
        toolkit.run(
            "planted.sim",
            {"gamma": 3.0},
            store=tmp_path / "a.sqlite",
            registry=_registry(_summary_clobbers_gamma),
        )
    result = toolkit.run(
        "planted.sim", {"gamma": 3.0}, store=tmp_path / "b.sqlite", registry=_registry(_summary_repeats_gamma)
    )
    assert result.summary == {"gamma": 3.0, "mean_loss": 1.0}
