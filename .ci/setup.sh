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
# the core with its extras, then every first-party plugin distribution under plugins/ (editable)
plugin_args=()
for d in plugins/*/; do
    [ -f "$d/pyproject.toml" ] && plugin_args+=(-e "$d")
done
python -m pip install --quiet -e ".[all]" "${plugin_args[@]}"
python - <<'PY'
import torch, toolkit
print(f"setup ok: toolkit {toolkit.__version__}, torch {torch.__version__} (cuda available: {torch.cuda.is_available()})")
PY
