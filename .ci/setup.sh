#!/usr/bin/env bash
# Installs everything the project needs into ./.venv (idempotent; quick when already done).
# torch is pinned to the CPU build first: a plain `torch` requirement would pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "torch==2.13.0"
# the core with its extras, then every first-party plugin distribution under plugins/ (editable), each
# with all its extras (gd_perceptron[torch], sbayfdnn[test] ...)
mapfile -t plugin_args < <(python - <<'PY'
import pathlib, re
for d in sorted(pathlib.Path("plugins").iterdir()):
    if (d / "pyproject.toml").is_file():
        # the keys of [project.optional-dependencies] (no tomllib before Python 3.11)
        table = re.search(r"^\[project\.optional-dependencies\]\n(.*?)(?=^\[|\Z)",
                          (d / "pyproject.toml").read_text(), re.S | re.M)
        extras = re.findall(r"^([A-Za-z][\w-]*)\s*=", table.group(1), re.M) if table else []
        print("-e"); print(f"./{d}" + (f"[{','.join(sorted(extras))}]" if extras else ""))
PY
)
python -m pip install --quiet -e ".[all]" "${plugin_args[@]}"
python - <<'PY'
import torch, toolkit
print(f"setup ok: toolkit {toolkit.__version__}, torch {torch.__version__} (cuda available: {torch.cuda.is_available()})")
PY
