#!/usr/bin/env bash
# Installs everything the project needs into ./.venv. Idempotent, and a rerun with nothing changed takes seconds:
# the installs are skipped while a stamp of every pyproject.toml and of this script is unchanged.
# torch is pinned to the CPU build first: a plain `torch` requirement would pull a multi-GB CUDA build. It comes from
# the PyTorch CPU index where that index is reachable, otherwise from the default index (set TOOLKIT_TORCH_INDEX to
# choose another index, or to "default" to skip the CPU index).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
TORCH_VERSION="2.13.0"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
stamp_file=.venv/.toolkit-setup-stamp
stamp="$(cat .ci/setup.sh pyproject.toml plugins/*/pyproject.toml | python -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] && python -c "import toolkit, torch" 2>/dev/null; then
    echo "setup ok (nothing changed since the last install; delete $stamp_file to reinstall)"
    exit 0
fi
python -m pip install --quiet --upgrade pip
if python -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
    echo "torch $TORCH_VERSION already installed"
else
    torch_index="${TOOLKIT_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"
    if [ "$torch_index" != "default" ] && python - "$torch_index" <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1] + "/torch/", timeout=10)
except Exception:
    sys.exit(1)
PY
    then
        echo "installing torch==$TORCH_VERSION (CPU build) from $torch_index"
        python -m pip install --quiet "torch==$TORCH_VERSION" --index-url "$torch_index"
    else
        echo "the PyTorch CPU index is not reachable: installing torch==$TORCH_VERSION from the default index"
        python -m pip install --quiet "torch==$TORCH_VERSION"
    fi
fi
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
echo "$stamp" > "$stamp_file"
