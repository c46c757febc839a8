#!/usr/bin/env bash
# What traces cost (#41): the forward path with traces off against the build before them, and
# with traces on against off. Three plaincall processes in front of one instant mock upstream
# (examples/bench_upstream.rs, which also takes the spans as a collector), measured with wrk in
# alternation, round after round, so that the machine's drift falls on all three alike.
#
#   BENCH_BEFORE_BIN=path/to/plaincall-before bash scripts/bench-traces.sh
#
# Environment:
#   BENCH_BEFORE_BIN  the release binary of the build before (required; build it from the
#                     commit before traces with `cargo build --release --bin plaincall`)
#   BENCH_SECONDS     seconds per measured run (default 5)
#   BENCH_ROUNDS      rounds of the three (default 3); the report gives each one's median
#   BENCH_OUT         raw wrk output (default target/bench-traces)
#   BENCH_SKIP_BUILD=1  use target/release/plaincall and the example as they are
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
OUT=${BENCH_OUT:-$ROOT/target/bench-traces}
BEFORE=${BENCH_BEFORE_BIN:?set BENCH_BEFORE_BIN to the release binary of the build before traces}

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench-traces: %s\n' "$*" >&2; exit 1; }

command -v wrk >/dev/null 2>&1 || { apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }; }
if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
    log "building (release)"
    cargo build --release --quiet --bin plaincall
    cargo build --release --quiet --example bench_upstream
fi
NOW=$ROOT/target/release/plaincall
MOCK=$ROOT/target/release/examples/bench_upstream
[[ -x $BEFORE && -x $NOW && -x $MOCK ]] || die "a binary is missing"
rm -rf "$OUT" && mkdir -p "$OUT"

"$MOCK" 0 >"$OUT/mock.out" 2>"$OUT/mock.err" &
PIDS+=($!)
for _ in $(seq 100); do [[ -s $OUT/mock.out ]] && break; sleep 0.05; done
MOCK_ADDR=$(head -n1 "$OUT/mock.out")

declare -A ADDR
start() { # start NAME BINARY [VAR=VALUE...]
    local name=$1 bin=$2 port
    shift 2
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # From $OUT, where no proxy.toml is: both builds run on their embedded defaults.
    (cd "$OUT" && exec env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \
        PLAINCALL_LISTEN=127.0.0.1:$port PLAINCALL_UPSTREAM_URL=http://$MOCK_ADDR/v1 PLAINCALL_LOG_LEVEL=warn \
        "$@" "$bin" serve >"$OUT/$name.out" 2>"$OUT/$name.err") &
    PIDS+=($!)
    for _ in $(seq 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || die "$name did not start: $(cat "$OUT/$name.err")"
    ADDR[$name]=127.0.0.1:$port
}
start before "$BEFORE"
start off "$NOW"
start on "$NOW" OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://$MOCK_ADDR/v1/traces OTEL_BSP_SCHEDULE_DELAY=200

body() { # $1: stream (true/false)
    printf '{"model":"bench-model","messages":[{"role":"user","content":"Say hello."}],"stream":%s}' "$1"
}
lua() { # $1: body file
    cat <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("$1", "rb")); wrk.body = f:read("*a"); f:close()
function done(summary, latency, requests)
  io.write(string.format("BENCH_RESULT %d %.1f %d\n", latency:percentile(50),
    summary.requests / (summary.duration / 1e6), summary.errors.status + summary.errors.read))
end
LUA
}
body false >"$OUT/chat.json"
body true >"$OUT/stream.json"
lua "$OUT/chat.json" >"$OUT/chat.lua"
lua "$OUT/stream.json" >"$OUT/stream.lua"
curl -fsS -H 'content-type: application/json' --data-binary @"$OUT/chat.json" "http://${ADDR[on]}/v1/chat/completions" >/dev/null

declare -A SAMPLES # "scenario name" -> "p50:rps ..."
SCENARIOS=("chat 1" "chat 64" "stream 64")
for round in $(seq "$ROUNDS"); do
    for scenario in "${SCENARIOS[@]}"; do
        read -r kind conns <<<"$scenario"
        threads=1
        ((conns > 1)) && threads=2
        for name in before off on; do
            log "round $round: $kind c=$conns, $name"
            wrk -t"$threads" -c"$conns" -d1s -s "$OUT/$kind.lua" "http://${ADDR[$name]}/v1/chat/completions" >/dev/null
            wrk -t"$threads" -c"$conns" -d"${SECS}s" --latency -s "$OUT/$kind.lua" \
                "http://${ADDR[$name]}/v1/chat/completions" >"$OUT/$kind-$conns-$name-$round.wrk"
            read -r _ p50 rps errors < <(grep '^BENCH_RESULT' "$OUT/$kind-$conns-$name-$round.wrk")
            ((errors == 0)) || log "WARNING: $errors errors ($OUT/$kind-$conns-$name-$round.wrk)"
            SAMPLES["$scenario $name"]+="$p50:$rps "
        done
    done
done
dropped=$(curl -fsS "http://${ADDR[on]}/metrics" | awk '$1 == "plaincall_trace_spans_dropped_total" { print $2 }')
failed=$(curl -fsS "http://${ADDR[on]}/metrics" | awk '$1 == "plaincall_trace_export_failures_total" { print $2 }')

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
{
    echo
    echo "traces' cost, loopback, $(nproc) CPUs; $ROUNDS rounds of ${SECS}s in alternation; medians; p50 in µs"
    echo "before: $BEFORE; off and on: $NOW (on: spans to the mock's /v1/traces; dropped $dropped, failed batches $failed)"
    printf '%-18s %10s %10s %10s %10s %10s %10s %10s %10s\n' scenario "before p50" "off p50" "on p50" "on +p50" \
        "before r/s" "off r/s" "on r/s" "off/before"
    for scenario in "${SCENARIOS[@]}"; do
        declare -A P R
        for name in before off on; do
            P[$name]=$(tr ' ' '\n' <<<"${SAMPLES["$scenario $name"]}" | cut -d: -f1 | median)
            R[$name]=$(tr ' ' '\n' <<<"${SAMPLES["$scenario $name"]}" | cut -d: -f2 | median)
        done
        awk -v s="$scenario" -v bp="${P[before]}" -v op="${P[off]}" -v np="${P[on]}" \
            -v br="${R[before]}" -v or="${R[off]}" -v nr="${R[on]}" 'BEGIN {
            printf "%-18s %10d %10d %10d %10d %10.0f %10.0f %10.0f %9.0f%%\n", s, bp, op, np, np - op, br, or, nr, 100 * or / br
            printf "%-18s %65s on/off %.0f%%\n", "", "", 100 * nr / or }'
    done
} | tee "$OUT/report.txt"
