"""Import hygiene of a plugin: the two checks every first-party plugin passes.

* ``public_api``: the plugin's modules import only the toolkit's public API (``toolkit`` and the
  modules in ``toolkit.PUBLIC_MODULES``, names in their ``__all__``); private core modules change
  without notice.
* ``light_registration``: importing and registering the plugin (what ``toolkit list`` does) imports
  none of the heavy libraries (:data:`HEAVY`): they belong inside the code that needs them
  (``toolkit.defer``).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("torch", "sympy", "scipy", "pandas", "sklearn", "tensorflow", "jax", "numba", "matplotlib")


def _public_names(module: str) -> set[str]:
    try:
        return set(getattr(importlib.import_module(module), "__all__", ()))
    except ImportError:
        return set()


def public_api_violations(path: Path) -> list[str]:
    """Lines of ``path`` that import a private toolkit module or a name outside a module's ``__all__``."""
    import toolkit

    tree = ast.parse(path.read_text(), filename=str(path))
    public_modules = set(getattr(toolkit, "PUBLIC_MODULES", ()))
    bad: list[str] = []
    aliases: set[str] = set()

    def toolkit_module(mod: str, line: int) -> bool:
        if mod.split(".", 1)[0] != "toolkit":
            return False
        if mod != "toolkit" and mod not in public_modules:
            public = ", ".join(["toolkit", *sorted(public_modules)])
            bad.append(f"{path.name}:{line} imports {mod}, a private toolkit module (public: {public})")
            return False
        return True

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if toolkit_module(alias.name, node.lineno) and alias.name == "toolkit":
                    aliases.add(alias.asname or "toolkit")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if toolkit_module(node.module, node.lineno):
                public = _public_names(node.module)
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if alias.name not in public and full not in public_modules:
                        bad.append(
                            f"{path.name}:{node.lineno} imports {alias.name!r} from {node.module}, "
                            "which is not in its __all__"
                        )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr not in toolkit.__all__ and f"toolkit.{node.attr}" not in public_modules:
                bad.append(f"{path.name}:{node.lineno} uses toolkit.{node.attr}, which is not public")
    return bad


def package_files(module_name: str) -> list[Path]:
    """The ``.py`` files of the package (or the single module) ``module_name``."""
    module = importlib.import_module(module_name)
    file = getattr(module, "__file__", None)
    if file is None:
        return []
    path = Path(file)
    if path.name == "__init__.py":
        return sorted(path.parent.rglob("*.py"))
    return [path]


def check_public_api(module_name: str, plugin: str) -> None:
    bad = [v for f in package_files(module_name) for v in public_api_violations(f)]
    assert not bad, f"{plugin}: imports outside the toolkit's public API:\n" + "\n".join(bad)


_REPORT = """
import importlib, json, sys
from toolkit.registry import get_registry
plugin = importlib.import_module({module!r})
reg = get_registry(plugins=[plugin], load_entrypoints=False)
reg.summaries()
print(json.dumps({{"heavy": sorted(m for m in {heavy!r} if m in sys.modules)}}))
"""


def check_light_registration(module_name: str, plugin: str) -> None:
    """In a fresh interpreter, importing and registering the plugin imports no heavy library."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")])
    code = _REPORT.format(module=module_name, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, f"{plugin}: registering the plugin failed:\n{out.stderr[-2000:]}"
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert not report["heavy"], (
        f"{plugin}: registering the plugin imports {', '.join(report['heavy'])}; import heavy libraries "
        "inside the functions that need them, or register with toolkit.defer, so that `toolkit list` stays fast"
    )


__all__ = ["HEAVY", "check_light_registration", "check_public_api", "public_api_violations"]
