"""docs/writing-plugins.md is true: each block is an excerpt of the example plugin or is run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from core_paths import FIRST_PARTY, FIXTURES

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "writing-plugins.md"
SITE = FIXTURES / "site_example"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(DOC.read_text()) if kind == lang]


def _excerpts() -> list[tuple[str, str]]:
    out = []
    for lang in ("python", "toml"):
        for body in _blocks(lang):
            first, _, rest = body.partition("\n")
            if re.fullmatch(r"# [\w/.]+\.(py|toml)", first):
                out.append((first[2:], rest))
    return out


def _runnable_python() -> list[str]:
    return [b for b in _blocks("python") if not re.match(r"# [\w/.]+\.py\n", b)]


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]))
    env["TOOLKIT_DISABLE_PLUGINS"] = ",".join(FIRST_PARTY)
    return env


def test_the_doc_has_excerpts_runnable_blocks_and_commands():
    assert len(_excerpts()) >= 8 and len(_runnable_python()) >= 3 and len(_blocks("console")) == 1


@pytest.mark.parametrize("path,body", _excerpts(), ids=[p for p, _ in _excerpts()])
def test_excerpt_is_verbatim_in_the_example(path, body):
    text = (SITE / path).read_text()
    assert body in text, f"this block of {DOC.name} is not (any more) a verbatim excerpt of {path}:\n{body}"


def test_the_layout_is_the_example_s_and_a_first_party_plugin_s():
    (tree,) = _blocks("text")
    files = re.findall(r"^\s+(\S+\.(?:py|toml|md))\s", tree, re.M)
    package = [f for f in files if f.endswith(".py")]
    assert {"pyproject.toml", "README.md", "__init__.py", "simulation.py", "bounds.py"} <= set(files)
    for name in package:
        assert (SITE / "toolkit_example" / name).is_file(), name
    for plugin in FIRST_PARTY:  # the same shape: pyproject, README, toolkit_<name>/ with its hooks
        root = REPO / "plugins" / plugin
        assert (root / "pyproject.toml").is_file() and (root / "README.md").is_file()
        assert (root / f"toolkit_{plugin}" / "__init__.py").is_file()
        assert (root / f"toolkit_{plugin}" / "simulation.py").is_file()


@pytest.mark.parametrize("index", range(len(_runnable_python())))
def test_python_block_runs(index, tmp_path):
    code = _runnable_python()[index]
    if "plugin_checks" in code:  # a pytest module: run it with pytest
        (tmp_path / "test_doc_contract.py").write_text(code)
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(tmp_path),
            "--rootdir",
            str(tmp_path),
        ]
    else:
        argv = [sys.executable, "-c", code]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=_env(), cwd=tmp_path)
    assert out.returncode == 0, (
        out.stdout[-3000:] + out.stderr[-3000:]
    )  # (a proofs script: every verdict as expected)


def test_console_commands_run(tmp_path):
    (block,) = _blocks("console")
    commands = [line[2:].split("  #")[0].strip() for line in block.splitlines() if line.startswith("$ ")]
    assert len(commands) >= 8
    env = dict(_env(), TOOLKIT_STORE=str(tmp_path / "runs.sqlite"))
    toolkit = [sys.executable, "-m", "toolkit.cli"]
    sweep_id = None
    for command in commands:
        if "<sweep id>" in command:
            assert sweep_id, "the check needs the sweep above it"
            command = command.replace("<sweep id>", sweep_id)
        argv = command.split()
        assert argv[0] == "toolkit"
        out = subprocess.run(
            toolkit + argv[1:], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path
        )
        assert out.returncode == 0, f"$ {command}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
        found = re.search(r"^sweep (\w+):", out.stdout, re.M)
        sweep_id = found.group(1) if found else sweep_id
    assert sweep_id


def test_doc_says_what_keys_the_cache():  # the behaviour: test_plugin_packaging's version-bump test
    assert "**The distribution's version keys the run store.**" in DOC.read_text()


def test_doc_covers_install_experiments_claims_validators_and_the_rerun_loop():
    text = DOC.read_text()
    assert "pip install /path/to/theory-toolkit ." in text  # the core is on no index: both in one command
    assert "toolkit_register_experiments = defer(" in text  # the experiments hook, shown
    for name in ("Identity", "Inequality", "Limit", "Asymptotic", "Cited", 'sense="lower"'):
        assert name in text, name
    assert "model_validator" in text and "expected_failed_checks" in text and "quick=[" in text
    assert "### The edit-and-rerun loop" in text and "--no-cache" in text
