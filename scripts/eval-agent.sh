#!/usr/bin/env bash
# The agent-like run: `plaincall eval` on the shared fixtures (tests/fixtures: six tools offered
# in every request, 17 cases), the same tools on every turn as an agent sends them, against
# real small models on this machine: Qwen2.5-Coder-0.5B as the main model (with the repo's
# tool-calling template) and Qwen2.5-Coder-1.5B as the translator, both behind llama-server
# (scripts/real-upstream.sh). Every case runs directly with the full schemas, then through
# plaincall; the report says per mode what was called and the mean latency.
#
#   scripts/eval-agent.sh [OUT]        report.md, chart.svg, results.json (default docs/eval)
#
# EVAL_PASSES=2 runs the whole eval a second time against the same model servers, report in
# OUT/pass-2: the steady state of an agent session, where every tool's translator prompt has
# been read once (llama-server's prompt cache) and the main model's prompt is warm too. Each
# pass starts a fresh plaincall, so no translation is answered from plaincall's own cache.
#
# Environment: PLAINCALL_DEV_BIN (the binary; else target/debug/plaincall is built),
# REAL_UPSTREAM_THREADS (llama-server threads, default 2), PLAINCALL_* settings for the
# through mode (e.g. PLAINCALL_TRANSLATION_GROUNDING=strict).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null
out=${1:-docs/eval}
log() { printf '[eval-agent %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

bash scripts/real-upstream.sh install >/dev/null
if [[ -z ${PLAINCALL_DEV_BIN:-} ]]; then
    log "building target/debug/plaincall"
    cargo build --locked --quiet --bin plaincall
    PLAINCALL_DEV_BIN=$(cargo metadata --format-version 1 --no-deps --locked \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/debug/plaincall
fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

run_dir=$(mktemp -d /tmp/plaincall-eval-agent.XXXXXX)
export REAL_UPSTREAM_RUN_DIR=$run_dir
trap 'bash scripts/real-upstream.sh stop-all >/dev/null 2>&1 || true; rm -rf "$run_dir"' EXIT
main_port=$(free_port)
bash scripts/real-upstream.sh start eval-main 0.5b "$main_port" \
    --chat-template-file scripts/templates/qwen-coder-json-tools.jinja
translator_port=$(free_port)
bash scripts/real-upstream.sh start eval-translator 1.5b "$translator_port"

mkdir -p "$out"
passes=${EVAL_PASSES:-1}
for pass in $(seq 1 "$passes"); do
    dir=$out
    [[ $pass -gt 1 ]] && dir=$out/pass-$pass && mkdir -p "$dir"
    log "plaincall eval, pass $pass of $passes: $PLAINCALL_DEV_BIN, report in $dir"
    PLAINCALL_UPSTREAM_URL=http://127.0.0.1:$main_port/v1 \
    PLAINCALL_TRANSLATOR_URL=http://127.0.0.1:$translator_port/v1 \
    PLAINCALL_TRANSLATOR_MODEL=qwen2.5-coder-1.5b \
        "$PLAINCALL_DEV_BIN" eval --tools tests/fixtures/tools \
        --cases tests/fixtures/cases.jsonl --model qwen2.5-coder-0.5b \
        --report "$dir" --json "$dir/results.json"
done
