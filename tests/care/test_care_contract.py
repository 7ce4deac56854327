import pytest

from toolkit.testing import experiment_checks, plugin_checks


# the harness on every simulation (defaults, quick run with its bounds, determinism, store, all executors),
# every bound, the catalogue and every experiment's well-formedness
@pytest.mark.parametrize("check", plugin_checks("care"), ids=str)
def test_plugin_contract(check):
    check()


# the synthetic headline experiment's quick run fits 1000 items: outside the default run
@pytest.mark.slow
@pytest.mark.parametrize(
    "check",
    [c for c in experiment_checks("care", quick=["care.g5_synthetic"]) if c.id.endswith(":quick_run")],
    ids=str,
)
def test_quick_headline_experiment(check):
    check()


def test_an_scs_upgrade_recomputes_instead_of_serving_the_older_release(tmp_path, monkeypatch):
    # where SCS stops moves between its releases, so its version keys care's results in the store
    import importlib.metadata

    import toolkit

    params = {"n_items": 60, "n_judges": 4, "methods": ("mean", "care_svd")}
    store = tmp_path / "runs.sqlite"
    first = toolkit.run("care.synthetic", params, seed=1, store=store)
    installed = importlib.metadata.version("scs")
    assert f"scs={installed}" in first.provenance["plugin_version"]
    assert toolkit.run("care.synthetic", params, seed=1, store=store).from_cache
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "9.9.9" if name == "scs" else real(name))
    assert not toolkit.run("care.synthetic", params, seed=1, store=store).from_cache
