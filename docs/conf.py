"""Sphinx configuration of the theory-toolkit documentation.

Build (offline, warnings as errors): ``sphinx-build -W --keep-going -b html docs docs/_build/html``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

# the gallery's scripts run during the build: keep their runs out of the user's store, draw headless
os.environ["TOOLKIT_STORE"] = str(Path(tempfile.mkdtemp(prefix="toolkit-docs-")) / "runs.sqlite")
os.environ.setdefault("MPLBACKEND", "Agg")

import toolkit  # noqa: E402  (after the store is redirected)

project = "theory-toolkit"
author = "theory-toolkit contributors"
copyright = "2026, theory-toolkit contributors"
release = version = toolkit.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**/README.md", "auto_examples/*.ipynb", "auto_examples/**/*.ipynb"]
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# -- API reference ----------------------------------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
# a plugin's optional heavy packages need not be installed to document it
autodoc_mock_imports = [
    m for m in ("torch", "torch_geometric", "numba", "cvxpy") if not importlib.util.find_spec(m)
]


def _plugin_packages() -> list[str]:
    """The first-party plugin packages that are installed (``plugins/<p>/toolkit_<p>``)."""
    found = []
    for folder in sorted((ROOT / "plugins").iterdir()):
        package = f"toolkit_{folder.name}"
        if (folder / package).is_dir() and importlib.util.find_spec(package):
            found.append(package)
    return found


def _write_api_pages() -> None:
    """The API pages list the core's public modules and each installed plugin package.

    The pages autosummary generated last time are removed first: a module that no longer exists would
    otherwise keep its stale page, which fails the build (warnings are errors)."""
    shutil.rmtree(DOCS / "api" / "generated", ignore_errors=True)
    core = ["toolkit", "toolkit.runner", *toolkit.PUBLIC_MODULES]
    out = DOCS / "api" / "generated-index"
    out.mkdir(parents=True, exist_ok=True)
    blocks = {
        "core": ("The core", core, "The names in each module's ``__all__`` are the public API."),
        "plugins": (
            "The plugins",
            _plugin_packages(),
            "Each plugin's import package; use its simulations through ``toolkit.run`` and ``toolkit.sweep``.",
        ),
    }
    for name, (title, modules, intro) in blocks.items():
        lines = [title, "=" * len(title), "", intro, "", ".. autosummary::", "   :toctree: ../generated", ""]
        if name == "plugins":
            lines.insert(-1, "   :recursive:")
        lines += [f"   {m}" for m in modules]
        text = "\n".join(lines) + "\n"
        path = out / f"{name}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


_write_api_pages()


def _write_changelog_page() -> None:
    """One page that includes the core's CHANGELOG.md and every plugins/*/CHANGELOG.md."""
    logs = [ROOT / "CHANGELOG.md", *sorted((ROOT / "plugins").glob("*/CHANGELOG.md"))]
    lines = [
        "# Changelog",
        "",
        "Every change a user can notice, per distribution, newest first. A distribution's version goes up",
        "whenever its behaviour changes.",
    ]
    for log in logs:
        lines += ["", "```{include} " + os.path.relpath(log, DOCS), ":heading-offset: 1", "```"]
    text = "\n".join(lines) + "\n"
    path = DOCS / "changelog.md"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_changelog_page()

REPOSITORY = "https://github.com/theory-toolkit/theory-toolkit"
# a glob toctree over a plugin's folder matches nothing until someone adds a page there; a name re-exported
# by ``toolkit`` resolves to two targets, both right
suppress_warnings = ["toc.empty_glob", "ref.python"]


def _literal(lines: list[str]) -> list[str]:
    return ["::", ""] + ["    " + line for line in lines] + [""]


def _docstring_as_text(app, what, name, obj, options, lines: list[str]) -> None:
    """Plugins' docstrings are plain text (formulas with ``|x|``, ASCII tables): show them as written.

    In the core's reStructuredText docstrings, only Markdown tables are shown as written.
    """
    if not lines:
        return
    if name.split(".")[0] != "toolkit":
        lines[:] = _literal(list(lines))
        return
    out: list[str] = []
    i = 0
    while i < len(lines):
        if (
            lines[i].lstrip().startswith("|")
            and i + 1 < len(lines)
            and lines[i + 1].lstrip().startswith("|---")
        ):
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out += [""] + _literal(lines[i:j])
            i = j
        else:  # |f/g| is an absolute value, not a substitution
            out.append(_ABS.sub(r"\\|\1\\|", lines[i]))
            i += 1
    lines[:] = out


_ABS = re.compile(r"(?<![|\w`\\])\|([^|\s`][^|`]*?)\|(?![|\w])")


_REPO_LINK = re.compile(r"\]\((\.\./[^)#\s]*)([^)\s]*)\)")


_GLOB_TOCTREE = re.compile(r"```\{toctree\}\n((?::[^\n]*\n)*)((?:[^`\n]*\n)*?)```")


def _prepare_source(app, docname: str, source: list[str]) -> None:
    """Links to repository files go to GitHub; a glob toctree with nothing to add loses its ``*``."""
    here = (DOCS / docname).parent

    def trim(match: re.Match) -> str:
        options, entries = match.group(1), match.group(2)
        listed = {e.strip() for e in entries.splitlines() if e.strip() and e.strip() != "*"}
        others = {p.stem for p in here.glob("*.md")} - {"index", Path(docname).name} - listed
        if ":glob:" in options and not others:
            entries = "".join(e + "\n" for e in entries.splitlines() if e.strip() != "*")
            if not listed:
                return ""
        return "```{toctree}\n" + options + entries + "```"

    source[0] = _GLOB_TOCTREE.sub(trim, source[0])

    def repl(match: re.Match) -> str:
        target = (here / match.group(1)).resolve()
        if target.is_relative_to(DOCS) or not target.is_relative_to(ROOT):
            return match.group(0)
        kind = "tree" if target.is_dir() else "blob"
        return f"]({REPOSITORY}/{kind}/main/{target.relative_to(ROOT).as_posix()}{match.group(2)})"

    source[0] = _REPO_LINK.sub(repl, source[0])


def setup(app):
    app.connect("autodoc-process-docstring", _docstring_as_text)
    app.connect("source-read", _prepare_source)


# -- gallery ----------------------------------------------------------------------------------------
GALLERY_SOURCE = ROOT / "simulations"
if (GALLERY_SOURCE / "GALLERY_HEADER.rst").exists():
    extensions.append("sphinx_gallery.gen_gallery")
    sphinx_gallery_conf = {
        "examples_dirs": ["../simulations"],
        "gallery_dirs": ["auto_examples"],
        "filename_pattern": r"\.py$",  # execute every script
        "ignore_pattern": r"(__init__|conftest)\.py$",
        "abort_on_example_error": True,
        "download_all_examples": False,
        "within_subsection_order": "FileNameSortKey",
        "remove_config_comments": True,
        "show_memory": False,
        "plot_gallery": "True",
        "capture_repr": (),  # a script's last expression (a Legend, an Axes) is not output
    }
else:  # a checkout without the gallery's scripts: an empty gallery page
    (DOCS / "auto_examples").mkdir(exist_ok=True)
    (DOCS / "auto_examples" / "index.rst").write_text(
        "Gallery\n=======\n\nNo example scripts are installed.\n"
    )

# -- HTML -------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"theory-toolkit {version}"
html_theme_options = {
    "github_url": REPOSITORY,
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 7,
}
html_static_path: list[str] = []
# pages without sub-pages need no section navigation beside them
html_sidebars = {
    page: []
    for page in (
        "index",
        "getting-started",
        "tutorial",
        "architecture",
        "glossary",
        "changelog",
        "writing-plugins",
    )
}
html_show_sourcelink = False
