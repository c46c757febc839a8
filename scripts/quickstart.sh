#!/usr/bin/env bash
# The quickstart: a main model, a translator and plaincall in front of them, in one command.
#
#   scripts/quickstart.sh
#       On this machine, CPU only: installs llama-server and two small Qwen models once (with
#       scripts/real-upstream.sh install: ~1.5 GB of downloads, a few minutes of compiling;
#       cached in ~/.cache/plaincall-real), starts Qwen2.5-Coder-0.5B as the main model (with
#       the JSON-tools chat template, so it makes native tool calls) and
#       Qwen2.5-Coder-1.5B as the translator, then runs plaincall in front of them. Ctrl-C
#       stops all three.
#
#   scripts/quickstart.sh --upstream URL [--translator URL --translator-model NAME]
#       Any OpenAI-compatible server you already have instead (llama-server, vLLM, Ollama,
#       OpenAI, ...): nothing is installed. Without --translator, the upstream translates
#       with the request's model.
#
# Then, in another terminal:  python3 examples/quickstart.py
#
# Options:
#   --upstream URL            the main model's OpenAI-compatible base URL (with /v1)
#   --upstream-key KEY        its API key, if it needs one (or PLAINCALL_UPSTREAM_API_KEY)
#   --translator URL          a translator's base URL
#   --translator-model NAME   the translator's model name (required with --translator)
#   --translator-key KEY      its API key, if it needs one
#   --port PORT               where plaincall listens (default 8787)
#   --main-port, --translator-port PORT
#                             the local llama-servers' ports (default 8081, 8082)
#   -h, --help                this text
#
# Environment: PLAINCALL_DEV_BIN (the plaincall binary; default: `plaincall` on the PATH, else
# built with cargo), REAL_UPSTREAM_RUN_DIR (where the local servers' PID files and logs go;
# default ~/.cache/plaincall-real/quickstart).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
fail() {
    printf 'quickstart: %s\n' "$1" >&2
    printf 'quickstart: see scripts/quickstart.sh --help\n' >&2
    exit 2
}
say() { printf '[quickstart] %s\n' "$*" >&2; }

upstream="" upstream_key="" translator="" translator_model="" translator_key=""
port=8787 main_port=8081 translator_port=8082
while (($#)); do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --upstream | --upstream-key | --translator | --translator-model | --translator-key | \
            --port | --main-port | --translator-port)
            (($# >= 2)) && [[ -n $2 && $2 != --* ]] || fail "$1 needs a value"
            case "$1" in
                --upstream) upstream=$2 ;;
                --upstream-key) upstream_key=$2 ;;
                --translator) translator=$2 ;;
                --translator-model) translator_model=$2 ;;
                --translator-key) translator_key=$2 ;;
                --port) port=$2 ;;
                --main-port) main_port=$2 ;;
                --translator-port) translator_port=$2 ;;
            esac
            shift 2
            ;;
        *) fail "unknown argument: $1" ;;
    esac
done
for p in "$port" "$main_port" "$translator_port"; do
    [[ $p =~ ^[0-9]+$ ]] || fail "ports are numbers, not '$p'"
done
[[ -z $translator || -n $translator_model ]] || fail "--translator needs --translator-model NAME"
[[ -z $translator_model || -n $translator ]] || fail "--translator-model needs --translator URL"
[[ -n $upstream || -z $translator ]] || fail "--translator goes with --upstream; without --upstream the local models are used"
for url in "$upstream" "$translator"; do
    [[ -z $url || $url =~ ^https?:// ]] || fail "'$url' is not an http(s) URL"
done

# The plaincall binary: the one given, the one on the PATH, or a release build of this checkout.
plaincall=${PLAINCALL_DEV_BIN:-}
if [[ -z $plaincall ]]; then
    if command -v plaincall >/dev/null 2>&1; then
        plaincall=$(command -v plaincall)
    else
        say "plaincall is not on the PATH (cargo install --locked --path . puts it there); building it"
        (cd "$ROOT" && cargo build --release --locked --bin plaincall)
        plaincall=$ROOT/target/release/plaincall
    fi
fi

started=()
plaincall_pid=""
cleanup() {
    trap - EXIT INT TERM
    if [[ -n $plaincall_pid ]]; then kill "$plaincall_pid" 2>/dev/null || true; wait "$plaincall_pid" 2>/dev/null || true; fi
    for name in "${started[@]}"; do bash "$HERE/real-upstream.sh" stop "$name" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z $upstream ]]; then
    export REAL_UPSTREAM_RUN_DIR=${REAL_UPSTREAM_RUN_DIR:-${PLAINCALL_DEV_REAL_CACHE:-$HOME/.cache/plaincall-real}/quickstart}
    eval "$(bash "$HERE/real-upstream.sh" env)"
    # real-upstream.sh puts each file in place only once it is complete and verified.
    if [[ -x $LLAMA_SERVER && -f $MODEL_0_5B && -f $MODEL_1_5B ]]; then
        say "llama-server and the models are installed in $REAL_CACHE"
    else
        say "installing llama-server and the models into $REAL_CACHE (once; a few minutes)"
        bash "$HERE/real-upstream.sh" install >/dev/null
    fi
    say "starting the main model, Qwen2.5-Coder-0.5B, on port $main_port"
    # A 32k context (the model's own): a coding agent's first request (Claude Code's tools and
    # system prompt) is about 19k tokens, past real-upstream.sh's default of 4096.
    upstream=$(bash "$HERE/real-upstream.sh" start quickstart-main 0.5b "$main_port" \
        --chat-template-file "$HERE/templates/qwen-coder-json-tools.jinja" -c 32768 | tail -1)
    started+=(quickstart-main)
    say "starting the translator, Qwen2.5-Coder-1.5B, on port $translator_port"
    translator=$(bash "$HERE/real-upstream.sh" start quickstart-translator 1.5b "$translator_port" | tail -1)
    started+=(quickstart-translator)
    translator_model=qwen2.5-coder-1.5b
fi

export PLAINCALL_LISTEN=127.0.0.1:$port
export PLAINCALL_UPSTREAM_URL=$upstream
# Small models on a CPU are slow: generous timeouts.
export PLAINCALL_UPSTREAM_TIMEOUT=${PLAINCALL_UPSTREAM_TIMEOUT:-15m}
export PLAINCALL_UPSTREAM_READ_TIMEOUT=${PLAINCALL_UPSTREAM_READ_TIMEOUT:-15m}
[[ -z $upstream_key ]] || export PLAINCALL_UPSTREAM_API_KEY=$upstream_key
if [[ -n $translator ]]; then
    export PLAINCALL_TRANSLATOR_URL=$translator PLAINCALL_TRANSLATOR_MODEL=$translator_model
    [[ -z $translator_key ]] || export PLAINCALL_TRANSLATOR_API_KEY=$translator_key
fi
say "plaincall at http://127.0.0.1:$port/v1; in another terminal: python3 examples/quickstart.py (Ctrl-C here stops everything)"
# PLAINCALL_DEV_* belong to the project's scripts; plaincall leaves that namespace alone.
"$plaincall" serve &
plaincall_pid=$!
wait "$plaincall_pid"
