"""The README's Python snippets run as written (against the first-party plugins)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_the_api_and_proving_snippets():
    blocks = _python_blocks()
    assert any("toolkit.sweep(" in b for b in blocks) and any("Asymptotic(" in b for b in blocks)


def test_readme_python_api_snippet_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_STORE", str(tmp_path / "runs.sqlite"))
    api = next(b for b in _python_blocks() if "toolkit.sweep(" in b)
    namespace: dict = {}
    exec(compile(api, str(README), "exec"), namespace)
    res, sw = namespace["res"], namespace["sw"]
    assert set(res.table["d"]) == {16, 32, 64}
    assert (res.table["iterations"] == 2 * res.table["d"] + 4).all()  # R1: exactly 2d + 4
    assert res.checks is not None and not res.checks[~res.checks["skipped"].astype(bool)].empty
    assert len(sw.summary_table) == 2 * 3 and sw.n_computed == 6


def test_readme_symbolic_snippet_gives_the_verdicts_it_states():
    snippet = next(b for b in _python_blocks() if "Asymptotic(" in b)
    lines = [ln for ln in snippet.splitlines() if ln.strip()]
    namespace: dict = {}
    for line in lines:
        code, _, comment = line.partition("#")
        if code.strip().endswith(".check()"):
            verdict = eval(code.strip(), namespace)
            assert comment.strip().startswith(verdict.status), (line, verdict)
        else:
            exec(line, namespace)
