#!/usr/bin/env bash
# The README's install stories, each in a fresh venv (no --system-site-packages), checked as a user would:
#   core      pip install ./                      toolkit list: nothing, and how to install plugins
#   langgen   pip install ./ ./plugins/langgen    no torch; toolkit list: langgen alone, no warning; run works
#   gd        pip install ./ ./plugins/gd_perceptron   no torch; backend=torch says what to install (exit 2)
#   all       bash .ci/setup.sh (the development install: torch CPU build, every plugin editable)
# Usage: bash .ci/install-stories.sh [core] [langgen] [gd] [all]   (default: core langgen gd)
# Needs the package registry (pip); takes minutes. Prints each story's wall time; exits 1 on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
stories=("$@")
[ ${#stories[@]} -eq 0 ] && stories=(core langgen gd)

fail() { echo "FAILED ($story): $*" >&2; exit 1; }

fresh_venv() {  # $1: name; the rest: what to pip install into it
    local venv="$WORK/$1"; shift
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip 2>/dev/null
    "$venv/bin/python" -m pip install --quiet "$@" 2> "$WORK/pip.err" || { cat "$WORK/pip.err" >&2; fail "pip install $*"; }
    echo "$venv"
}

must_fail_import() {  # $1: venv, $2: module
    if (cd "$WORK" && "$1/bin/python" -c "import $2" 2>/dev/null); then fail "'import $2' works in this venv"; fi
}

list_without_warning() {  # $1: venv; prints toolkit list's stdout; fails on any stderr
    local out err
    out="$(cd "$WORK" && TOOLKIT_STORE="$WORK/runs.sqlite" "$1/bin/toolkit" list 2> "$WORK/list.err")" || fail "toolkit list exited $?"
    err="$(cat "$WORK/list.err")"
    [ -z "$err" ] || fail "toolkit list wrote to stderr: $err"
    echo "$out"
}

for story in "${stories[@]}"; do
    start=$SECONDS
    case "$story" in
    core)
        venv="$(fresh_venv core "$REPO")"
        must_fail_import "$venv" torch
        must_fail_import "$venv" plugins
        out="$(list_without_warning "$venv")"
        grep -q "nothing registered" <<< "$out" || fail "toolkit list: $out"
        grep -q "pip install ./plugins/langgen" <<< "$out" || fail "toolkit list does not say how to install plugins: $out"
        ;;
    langgen)
        venv="$(fresh_venv langgen "$REPO" "$REPO/plugins/langgen")"
        must_fail_import "$venv" torch
        must_fail_import "$venv" plugins
        "$venv/bin/python" -c "import toolkit_langgen" || fail "toolkit_langgen does not import"
        out="$(list_without_warning "$venv")"
        grep -q "langgen.closure_dimension" <<< "$out" || fail "langgen not listed: $out"
        others="$(grep -E '^  [a-z_]+\.' <<< "$out" | grep -v '^  langgen\.' || true)"
        [ -z "$others" ] || fail "toolkit list shows more than langgen: $others"
        (cd "$WORK" && TOOLKIT_STORE="$WORK/runs.sqlite" "$venv/bin/toolkit" run langgen.closure_dimension) \
            > "$WORK/run.out" 2>&1 || { cat "$WORK/run.out" >&2; fail "toolkit run langgen.closure_dimension"; }
        grep -q "stored in" "$WORK/run.out" || fail "toolkit run did not compute and store: $(cat "$WORK/run.out")"
        ;;
    gd)
        venv="$(fresh_venv gd "$REPO" "$REPO/plugins/gd_perceptron")"
        must_fail_import "$venv" torch
        must_fail_import "$venv" plugins
        out="$(list_without_warning "$venv")"
        grep -q "gd_perceptron.scaling" <<< "$out" || fail "gd_perceptron not listed: $out"
        (cd "$WORK" && TOOLKIT_STORE="$WORK/runs.sqlite" "$venv/bin/toolkit" run gd_perceptron.scaling \
            -p "d_values=[16,32]" -p "gammas=[100.0]") > "$WORK/run.out" 2>&1 \
            || { cat "$WORK/run.out" >&2; fail "toolkit run gd_perceptron.scaling (numpy)"; }
        set +e
        (cd "$WORK" && TOOLKIT_STORE="$WORK/runs.sqlite" "$venv/bin/toolkit" run gd_perceptron.scaling \
            -p "d_values=[16,32]" -p "gammas=[100.0]" -p backend=torch) > "$WORK/torch.out" 2>&1
        code=$?
        set -e
        [ "$code" -eq 2 ] || { cat "$WORK/torch.out" >&2; fail "backend=torch without torch exited $code, not 2"; }
        grep -q "'torch'" "$WORK/torch.out" && grep -q "theory-toolkit-gd-perceptron\[torch\]" "$WORK/torch.out" \
            || fail "backend=torch without torch does not name torch and the extra: $(cat "$WORK/torch.out")"
        ;;
    all)
        bash .ci/setup.sh > "$WORK/setup.log" 2>&1 || { tail -20 "$WORK/setup.log" >&2; fail ".ci/setup.sh"; }
        .venv/bin/python -c "import torch" || fail "torch missing after setup"
        must_fail_import "$REPO/.venv" plugins
        (cd "$WORK" && "$REPO/.venv/bin/toolkit" plugins) > "$WORK/plugins.out" 2>&1 || fail "toolkit plugins"
        for p in gd_perceptron langgen sbayfdnn frog graphpfl; do
            grep -Eq "^ *$p .*loaded" "$WORK/plugins.out" || fail "$p not loaded: $(cat "$WORK/plugins.out")"
        done
        ;;
    *) fail "unknown story (core, langgen, gd, all)";;
    esac
    echo "story $story: ok in $((SECONDS - start)) s"
done
