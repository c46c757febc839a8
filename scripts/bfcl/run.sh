#!/usr/bin/env bash
# Translation quality on BFCL (Berkeley Function Calling Leaderboard), with the `bfcl-eval`
# package's data and AST checker as they are. Four modes: the 0.5B model alone, the 1.5B
# model alone, the 0.5B model through plaincall with the 1.5B translator, and the 1.5B model
# through plaincall translating for itself.
#
#   scripts/bfcl/run.sh [bfcl_eval_run.py options]
#       --complex 40 --controls 10 --irrelevance 10   group sizes (defaults shown)
#       --per-category N    at most N cases per category in each group
#       --seed 13           sample seed (same options + same rule = same cases)
#       --exclude FILE      leave out the cases of an earlier sample (its cases.jsonl): a second
#                           sample of data the first never saw
#       --modes direct-0.5b,direct-1.5b,plaincall,plaincall-1.5b-self
#       --timeout 600       seconds per request
#       --translator-output json_schema   how the translating model is asked for JSON (plaincall's
#                           `output`; auto: llama-server gets a GBNF grammar after its first answer)
#       --out docs/bfcl     results.json, cases.jsonl, report.md, chart.svg, plaincall.log
#       --keep-other-modes  keep the other modes' rows from OUT (rerun one mode only)
#       --list              print the sample and stop
#
# Rerun only the through-plaincall mode against another binary, keeping the direct modes:
#   PLAINCALL_DEV_BIN=/path/to/plaincall scripts/bfcl/run.sh --modes plaincall --keep-other-modes
#
# What it does: installs bfcl-eval (pinned, --no-deps) and the few packages its checker and
# tool conversion import into $PLAINCALL_DEV_BFCL_CACHE/venv (default ~/.cache/plaincall-bfcl,
# outside the repo); runs scripts/real-upstream.sh install (llama-server + models, cached);
# builds target/debug/plaincall unless PLAINCALL_DEV_BIN is set. The Python script then starts,
# per mode, the model servers it needs (niced, on free ports, own REAL_UPSTREAM_RUN_DIR) and
# plaincall, asks every case, and stops them. Everything runs on loopback.
# Environment: PLAINCALL_DEV_BIN, PLAINCALL_DEV_BFCL_CACHE, REAL_UPSTREAM_THREADS (llama-server
# threads; 1 is faster on a busy machine), REAL_UPSTREAM_CTX (default here 8192: some
# live_multiple cases carry many tools).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec </dev/null

CACHE=${PLAINCALL_DEV_BFCL_CACHE:-$HOME/.cache/plaincall-bfcl}
VENV=$CACHE/venv
BFCL_EVAL=bfcl-eval==2026.3.23
# What ast_checker, bfcl_eval.utils and model_handler/utils.py import, at bfcl-eval's pins.
CHECKER_DEPS=(filelock==3.20.0 "tenacity>=8.5.0" tree_sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4)

log() { printf '[bfcl %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

install_venv() {
    local stamp=$VENV/.plaincall-bfcl.stamp want="$BFCL_EVAL ${CHECKER_DEPS[*]}"
    if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
        log "venv: $VENV (reused)"
        return
    fi
    log "venv: installing $BFCL_EVAL (no deps) and the checker's imports into $VENV"
    rm -rf "$VENV"
    mkdir -p "$CACHE"
    python3 -m venv "$VENV"
    # --no-deps: its declared dependencies pull torch, vllm and cloud SDKs the checker never uses.
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "$BFCL_EVAL"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "${CHECKER_DEPS[@]}"
    echo "$want" >"$stamp"
}

install_venv
bash scripts/real-upstream.sh install >/dev/null
if [[ -z ${PLAINCALL_DEV_BIN:-} ]]; then
    log "building target/debug/plaincall"
    cargo build --locked --quiet --bin plaincall
    target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    export PLAINCALL_DEV_BIN=$target_dir/debug/plaincall PLAINCALL_DEV_BIN_FROM_TREE=1
fi
export REAL_UPSTREAM_CTX=${REAL_UPSTREAM_CTX:-8192}
exec "$VENV/bin/python" scripts/bfcl/bfcl_eval_run.py "$@"
