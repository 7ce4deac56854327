"""The plugin guide's snippets run as written: the Python block (default) and every `toolkit` command (slow)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "docs" / "plugins" / "pace" / "index.md"  # the guide
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))


def _blocks(kind):
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def _run_python(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLKIT_STORE", str(tmp_path / "s.sqlite"))
    for block in _blocks("python"):
        exec(compile(block, str(README), "exec"), {})


def test_readme_python_snippet_runs(tmp_path, monkeypatch):
    _run_python(tmp_path, monkeypatch)
    assert (tmp_path / "my_scores.csv").is_file()


@pytest.mark.slow
def test_readme_commands_run_verbatim(tmp_path, monkeypatch):
    _run_python(tmp_path, monkeypatch)  # writes my_scores.csv, which a command reads
    commands = [
        line for block in _blocks("bash") for line in block.splitlines() if line.startswith("toolkit ")
    ]
    assert len(commands) >= 5
    env = {**os.environ, "TOOLKIT_STORE": str(tmp_path / "s.sqlite")}
    for command in commands:
        argv = shlex.split(command)
        proc = subprocess.run(
            [TOOLKIT, *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, f"{command}: {proc.stderr[-2000:]}"
