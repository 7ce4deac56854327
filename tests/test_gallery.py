"""The gallery (`simulations/<plugin>/*.py`): every script runs clean from an empty folder, without the
data root, and draws a matplotlib figure; every first-party plugin has one to four of them."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GALLERY = REPO / "simulations"
SCRIPTS = sorted(GALLERY.rglob("*.py"))
PLUGINS = sorted(p.name for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").exists())

# Runs the script as sphinx-gallery does (as __main__), then fails unless a figure is left open.
WRAPPER = """
import runpy, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *args, **kwargs: None  # sphinx-gallery collects the figures that are still open
runpy.run_path(sys.argv[1], run_name="__main__")
if not plt.get_fignums():
    sys.exit("no matplotlib figure drawn")
"""


def test_every_plugin_has_a_gallery_folder_of_one_to_four_scripts():
    assert (GALLERY / "GALLERY_HEADER.rst").is_file()
    for plugin in PLUGINS:
        folder = GALLERY / plugin
        assert (folder / "GALLERY_HEADER.rst").is_file(), f"{folder}/GALLERY_HEADER.rst missing"
        assert 1 <= len(list(folder.glob("*.py"))) <= 4, f"{folder}: one to four gallery scripts"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_gallery_script_has_an_rst_title_and_a_paragraph(script):
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")), clean=False)
    assert doc, f"{script}: no module docstring"
    lines = doc.strip("\n").splitlines()
    assert len(lines) >= 4 and lines[0].strip(), f"{script}: docstring must start with a title"
    assert set(lines[1].strip()) == {"="} and len(lines[1].strip()) >= len(lines[0].strip()), (
        f"{script}: the title must be underlined with '=' at least as long as itself"
    )
    assert not lines[2].strip() and lines[3].strip(), f"{script}: a blank line, then what it shows"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_gallery_script_runs_and_draws_a_figure(script, tmp_path):
    empty_data = tmp_path / "no-data"
    empty_data.mkdir()
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "TOOLKIT_STORE": str(tmp_path / "runs.sqlite"),
        "TOOLKIT_DATA_DIR": str(empty_data),  # the gallery must not need downloaded datasets
    }
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
