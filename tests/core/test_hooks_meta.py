"""Meta-tests: every hook is documented with an example and exercised by the example plugin."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from toolkit import hookspecs

EXAMPLE = (
    Path(__file__).resolve().parent.parent
    / "plugin_fixtures"
    / "site_example"
    / "toolkit_example"
    / "__init__.py"
)
TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_hook_is_documented_with_an_example(name):
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    assert len(doc.splitlines()[0]) > 20 and "Example::" in doc and "@toolkit.hookimpl" in doc


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_hook_is_implemented_by_the_example_plugin(name):
    import re

    # written out, or made by toolkit.defer(...)
    assert re.search(rf"^(def {name}\(|{name} = defer\()", EXAMPLE.read_text(), re.M)


def test_hook_names():
    assert set(hookspecs.HOOK_NAMES) == {
        "toolkit_addhooks",
        "toolkit_configure",
        "toolkit_register_simulations",
        "toolkit_register_bounds",
        "toolkit_register_datasets",
        "toolkit_register_experiments",
        "toolkit_register_commands",
        "toolkit_run_finished",
    }


def test_historic_hooks():
    for name in ("toolkit_addhooks", "toolkit_configure"):
        opts = getattr(hookspecs, name).toolkit_spec
        assert opts["historic"] is True


def test_core_imports_without_torch():
    import subprocess
    import sys

    code = (
        "import sys; import toolkit, toolkit.runner, toolkit.cli, toolkit.symbolic, toolkit.backend; "
        "assert 'torch' not in sys.modules, 'core imported torch'; print(toolkit.backend.resolve_device('cpu'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "cpu", out.stderr
