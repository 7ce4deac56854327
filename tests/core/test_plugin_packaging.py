"""Each first-party plugin a distribution of its own: cheap to load, public API only, versioned cache keys."""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from core_paths import FIRST_PARTY, FIXTURES

import toolkit
from toolkit.registry import get_registry

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIRS = sorted(p for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").is_file())
HEAVY = ("torch", "sympy", "scipy", "pandas")


def _toml(path: Path) -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads(path.read_text())


def _python(code: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_extra}
    env.pop("TOOLKIT_DISABLE_PLUGINS", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)


# -- item 4: loading costs nothing until used -----------------------------------------------------------


_REPORT_HEAVY = (
    "import json, sys; print(json.dumps({'heavy': sorted(m for m in %r if m in sys.modules), "
    "'modules': sorted(m for m in sys.modules if m.startswith('toolkit_'))}))" % (HEAVY,)
)


# what a plugin's hooks may import to register: its __init__, its hookspecs, and graphpfl's TU catalogue
# (a directory listing of the data root that names its datasets; stdlib only)
REGISTRATION_MODULES = (".hookspecs", "toolkit_graphpfl.tu")


def _only_hook_modules(modules: list[str]) -> bool:
    """Only the plugins' registration modules: every Deferred list is still unbuilt."""
    return all(m.count(".") == 0 or m.endswith(REGISTRATION_MODULES) for m in modules)


def test_registering_every_plugin_imports_no_heavy_module():
    code = (
        "from toolkit.registry import get_registry; reg = get_registry(); "
        "print(sorted({s.plugin for s in reg.summaries()})); " + _REPORT_HEAVY
    )
    out = _python(code, PYTHONPATH=str(FIXTURES / "site_example"))
    assert out.returncode == 0, out.stderr
    listed, report = out.stdout.strip().splitlines()[-2:]
    assert set(FIRST_PARTY) | {"example"} <= set(ast.literal_eval(listed))
    report = json.loads(report)
    assert report["heavy"] == [], f"registering the plugins imported {report['heavy']}"
    assert _only_hook_modules(report["modules"]), report["modules"]


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["plugins"]], ids=" ".join)
def test_help_list_and_plugins_build_nothing(argv):
    code = f"from toolkit.cli import main; main({argv!r}); " + _REPORT_HEAVY
    out = _python(code)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["heavy"] == [] and _only_hook_modules(report["modules"]), report


def test_show_of_a_simulation_builds_only_its_plugin_s_simulations():
    code = "from toolkit.cli import main; main(['show', 'langgen.closure_dimension']); " + _REPORT_HEAVY
    out = _python(code)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["heavy"] == [], report
    built = [m for m in report["modules"] if m.count(".") and not m.endswith(REGISTRATION_MODULES)]
    assert built and all(m.startswith("toolkit_langgen.") for m in built), built


def test_a_lookup_builds_only_the_plugin_it_names(example_site):
    reg = get_registry()
    assert "example.random_walk" in reg.simulations and not reg.simulations.summaries()[0].built
    sim = reg.simulation("example.random_walk")
    assert sim.plugin == "example" and sim.params.__name__ == "WalkParams"
    assert all(s.built for s in reg.simulations.summaries() if s.plugin == "example")
    assert not any(s.built for s in reg.bounds.summaries()), "a simulation lookup built the bounds"


# -- the Deferred contract ----------------------------------------------------------------------------


def _module(name: str, **attrs):
    import types

    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    return mod


def test_deferred_names_must_match_what_they_build(monkeypatch):
    from toolkit import Simulation
    from toolkit.config import Params
    from toolkit.errors import PluginBuildError, UnknownNameError

    class P(Params):
        pass

    sims = [
        Simulation(name="lazy.one", func=lambda p, s: {"x": 1}, params=P, description="the first"),
        Simulation(name="lazy.extra", func=lambda p, s: {"x": 2}, params=P, description="not listed"),
    ]
    monkeypatch.setitem(sys.modules, "lazy_specs", _module("lazy_specs", SIMULATIONS=sims))
    plugin = _module(
        "lazy",
        toolkit_register_simulations=toolkit.defer(
            "lazy_specs:SIMULATIONS", {"lazy.one": "the first", "lazy.gone": "listed, not held"}
        ),
    )
    reg = get_registry(plugins=[plugin], load_entrypoints=False)
    assert sorted(reg.simulations) == ["lazy.gone", "lazy.one"]  # as listed: nothing built yet
    assert reg.simulation("lazy.one").description == "the first"
    assert reg.simulation("lazy.extra").plugin == "lazy"  # held but not listed: still found by name
    with pytest.raises(UnknownNameError):
        reg.simulation("lazy.gone")
    (problem,) = reg.catalogue_mismatches("lazy")
    assert (
        "['lazy.gone']" in problem and "['lazy.extra']" in problem and "'lazy.extra': 'not listed'" in problem
    )

    broken = _module(
        "lazy_broken",
        toolkit_register_bounds=toolkit.defer(
            "a_module_that_does_not_exist.bounds:BOUNDS", {"lazy_broken.b": "a bound"}
        ),
    )
    reg = get_registry(plugins=[broken], load_entrypoints=False)
    assert list(reg.bounds) == ["lazy_broken.b"]  # listing needs no import
    with pytest.raises(
        PluginBuildError,
        match="could not build a_module_that_does_not_exist.bounds:BOUNDS.*"
        "'a_module_that_does_not_exist' is missing",
    ):
        reg.bound("lazy_broken.b")


def test_deferred_refuses_a_malformed_target():
    with pytest.raises(ValueError, match="package.module:ATTRIBUTE"):
        toolkit.Deferred("toolkit_example.bounds.BOUNDS", {"example.walk_range": "x"})
    with pytest.raises(ValueError, match="names must map"):
        toolkit.Deferred("toolkit_example.bounds:BOUNDS", ["example.walk_range"])


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_first_party_catalogue_matches_its_lists(plugin):
    reg = get_registry()
    assert reg.catalogue_mismatches(plugin) == []


def test_example_catalogue_matches_its_lists(example_site):
    assert get_registry().catalogue_mismatches("example") == []


# -- item 3: first-party plugins use the public API only ------------------------------------------------


def _public_names(module: str) -> set[str]:
    return set(importlib.import_module(module).__all__)


def _violations(path: Path, own: str) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    other_plugins = {f"toolkit_{p.name}" for p in PLUGIN_DIRS} - {own}
    bad: list[str] = []
    toolkit_aliases: set[str] = set()

    def check_module(mod: str, line: int) -> bool:
        top = mod.split(".", 1)[0]
        if top in other_plugins:
            bad.append(f"{path.name}:{line} imports another plugin: {mod}")
            return False
        if top == "toolkit" and mod != "toolkit" and mod not in toolkit.PUBLIC_MODULES:
            bad.append(
                f"{path.name}:{line} imports {mod}, which is not a public module {toolkit.PUBLIC_MODULES}"
            )
            return False
        return top == "toolkit"

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if check_module(alias.name, node.lineno) and alias.name == "toolkit":
                    toolkit_aliases.add(alias.asname or "toolkit")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if check_module(node.module, node.lineno):
                public = _public_names(node.module)
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if alias.name not in public and full not in toolkit.PUBLIC_MODULES:
                        bad.append(
                            f"{path.name}:{node.lineno} imports {alias.name!r} from {node.module}, "
                            f"which is not in its __all__"
                        )
    for node in ast.walk(tree):  # toolkit.X attribute use
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in toolkit_aliases
        ):
            if node.attr not in toolkit.__all__ and f"toolkit.{node.attr}" not in toolkit.PUBLIC_MODULES:
                bad.append(f"{path.name}:{node.lineno} uses toolkit.{node.attr}, which is not public")
    return bad


@pytest.mark.parametrize("plugin_dir", PLUGIN_DIRS, ids=lambda p: p.name)
def test_first_party_plugin_uses_only_the_public_api(plugin_dir):
    own = f"toolkit_{plugin_dir.name}"
    bad = [v for path in sorted((plugin_dir / own).rglob("*.py")) for v in _violations(path, own)]
    assert not bad, "\n".join(bad)


def test_the_public_api_checker_catches_private_and_cross_plugin_imports(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text(
        "import toolkit\nfrom toolkit.runner import execute_point\nfrom toolkit.config import _cell\n"
        "from toolkit_langgen.dfa import DFA\nx = toolkit.registry\nfrom toolkit import Params\n"
    )
    bad = _violations(src, "toolkit_frog")
    assert len(bad) == 4, bad
    assert (
        "toolkit.runner" in bad[0]
        and "'_cell'" in bad[1]
        and "another plugin" in bad[2]
        and "toolkit.registry" in bad[3]
    )


def test_every_public_module_declares_all():
    for module in toolkit.PUBLIC_MODULES:
        names = importlib.import_module(module).__all__
        assert names and all(not n.startswith("_") for n in names), module


# -- item 1: each plugin a distribution: its pyproject --------------------------------------------------


@pytest.mark.parametrize("plugin_dir", PLUGIN_DIRS, ids=lambda p: p.name)
def test_plugin_distribution_declares_its_entry_point_and_package(plugin_dir):
    meta = _toml(plugin_dir / "pyproject.toml")["project"]
    name = plugin_dir.name
    assert meta["name"] == "theory-toolkit-" + name.replace("_", "-")
    assert meta["entry-points"]["toolkit.plugins"] == {name: f"toolkit_{name}"}
    assert any(d.startswith("theory-toolkit>=") for d in meta["dependencies"])
    assert (plugin_dir / f"toolkit_{name}" / "__init__.py").is_file() and (plugin_dir / "README.md").is_file()


def test_the_core_distribution_holds_no_plugin_dependency():
    meta = _toml(REPO / "pyproject.toml")["project"]
    deps = " ".join(meta["dependencies"]).lower()
    for heavy in (
        "scipy",
        "torch",
        "lightgbm",
        "scikit-fda",
        "neurokit2",
        "automata-lib",
        "cvxpy",
        "networkx",
    ):
        assert heavy not in deps, heavy


def test_example_fixture_dist_info_matches_its_pyproject():
    site = FIXTURES / "site_example"
    meta = _toml(site / "pyproject.toml")["project"]
    dist_info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    text = (dist_info / "METADATA").read_text()
    assert f"Name: {meta['name']}\n" in text and f"Version: {meta['version']}\n" in text
    eps = (dist_info / "entry_points.txt").read_text()
    for name, target in meta["entry-points"]["toolkit.plugins"].items():
        assert f"{name} = {target}" in eps


# -- item 5: cache keys use each plugin's distribution version -------------------------------------------


def _site_with_version(tmp_path: Path, version: str) -> Path:
    """A copy of the example site whose distribution has ``version`` (the module is unchanged)."""
    site = tmp_path / f"site-{version}"
    if site.exists():
        return site
    shutil.copytree(FIXTURES / "site_example", site, ignore=shutil.ignore_patterns("__pycache__"))
    (old,) = site.glob("*.dist-info")
    new = site / f"toolkit_example-{version}.dist-info"
    old.rename(new)
    meta = new / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 0.3.0", f"Version: {version}"))
    return site


def test_bumping_a_plugin_version_recomputes_only_its_points(tmp_path, monkeypatch):
    """example 0.3.0 -> 0.4.0 (its module's code unchanged): example's points recompute, langgen's do not."""
    store = tmp_path / "runs.sqlite"
    script = (
        "import json, sys, toolkit\n"
        "reg = toolkit.get_registry()\n"
        "a = toolkit.run('example.random_walk', {'n_steps': 20}, seed=1, store=sys.argv[1], registry=reg)\n"
        "b = toolkit.run('langgen.closure_dimension', {}, seed=0, store=sys.argv[1], registry=reg)\n"
        "print(json.dumps({'example': [a.from_cache, reg.manager.plugin_version('example')],"
        " 'langgen': [b.from_cache, reg.manager.plugin_version('langgen')]}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TOOLKIT_DISABLE_PLUGINS"}
    env["TOOLKIT_DISABLE_PLUGINS"] = "gd_perceptron,sbayfdnn,frog,graphpfl"

    def run_with(version: str) -> dict:
        env["PYTHONPATH"] = str(_site_with_version(tmp_path, version))
        out = subprocess.run(
            [sys.executable, "-c", script, str(store)], capture_output=True, text=True, timeout=300, env=env
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    first = run_with("0.3.0")
    assert first == {"example": [False, "0.3.0"], "langgen": [False, first["langgen"][1]]}
    assert run_with("0.3.0") == {"example": [True, "0.3.0"], "langgen": [True, first["langgen"][1]]}
    assert run_with("0.4.0") == {"example": [False, "0.4.0"], "langgen": [True, first["langgen"][1]]}


def test_the_core_version_is_written_once():
    """The distribution's version, ``toolkit.__version__``, ``toolkit --version`` and the provenance
    of every run are one value (pyproject reads it from ``toolkit/__init__.py``)."""
    import importlib.metadata
    import re

    import toolkit
    from toolkit.runner import TOOLKIT_VERSION

    assert importlib.metadata.version("theory-toolkit") == toolkit.__version__ == TOOLKIT_VERSION
    out = subprocess.run([sys.executable, "-m", "toolkit.cli", "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"theory-toolkit, version {toolkit.__version__}"
    root = Path(__file__).resolve().parents[2]
    written = [
        p
        for p in [root / "pyproject.toml", *(root / "toolkit").glob("*.py")]
        if re.search(rf'["\']{re.escape(toolkit.__version__)}["\']', p.read_text())
    ]
    assert written == [root / "toolkit" / "__init__.py"], written
