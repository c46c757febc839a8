#!/usr/bin/env bash
# Counts heap allocations per forwarded request: plaincall against the minimal relay on the
# same stack (axum + hyper-util, no middleware), for a non-streaming chat request and a
# 32-chunk stream, in front of examples/bench_upstream.rs. Unlike time, a count does not
# depend on how noisy the machine is, so it tells whether a change removed work.
#
# How: a uprobe on glibc's malloc (`perf probe -x <libc> malloc`), counted with `perf stat`
# on each process over a wrk run, divided by the requests wrk reports. Needs Linux, perf,
# wrk, and the rights to add a uprobe (root, or perf_event_paranoid <= -1 with tracefs).
# `perf record -e probe_libc:malloc --call-graph dwarf` on a build with line tables then
# says where they come from (docs/measurements.md, "Beside nginx").
#
# Environment:
#   BENCH_SECONDS      seconds per measured run (default 2)
#   BENCH_SKIP_BUILD=1 use the binaries already in target/release
set -euo pipefail

cd "$(dirname "$0")/.."
SECS=${BENCH_SECONDS:-2}
OUT=target/bench-allocs
mkdir -p "$OUT"

die() { echo "bench-allocs: $*" >&2; exit 1; }
command -v perf >/dev/null || die "perf is not installed"
command -v wrk >/dev/null || die "wrk is not installed"

if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
    cargo build --release --quiet --bin plaincall --example bench_upstream
fi
BIN=target/release/plaincall
MOCK_BIN=target/release/examples/bench_upstream
[[ -x $BIN && -x $MOCK_BIN ]] || die "build first (or unset BENCH_SKIP_BUILD)"

LIBC=$(ldd "$BIN" | awk '/libc\.so/ {print $3}')
[[ -n $LIBC ]] || die "plaincall is not linked against glibc"
ADDED=0
probes=$(perf probe -l 2>/dev/null || true)
if [[ $probes != *probe_libc:malloc* ]]; then
    perf probe -q -x "$LIBC" malloc || die "could not add a uprobe on $LIBC malloc (rights?)"
    ADDED=1
fi

PIDS=()
cleanup() {
    kill "${PIDS[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    if [[ $ADDED == 1 ]]; then perf probe -q -d probe_libc:malloc || true; fi
}
trap cleanup EXIT

first_line() {
    local file=$1
    for _ in $(seq 50); do
        [[ -s $file ]] && { head -n1 "$file"; return; }
        sleep 0.1
    done
    die "no address in $file"
}

BENCH_CHUNKS=32 "$MOCK_BIN" 0 >"$OUT/mock.out" 2>"$OUT/mock.err" &
PIDS+=($!)
MOCK=$(first_line "$OUT/mock.out")
"$MOCK_BIN" relay 0 "http://$MOCK" >"$OUT/relay.out" 2>"$OUT/relay.err" &
RELAY_PID=$!
PIDS+=("$RELAY_PID")
RELAY=$(first_line "$OUT/relay.out")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PLAINCALL_LISTEN=127.0.0.1:$PORT PLAINCALL_UPSTREAM_URL=http://$MOCK/v1 PLAINCALL_LOG_LEVEL=warn \
    "$BIN" serve >"$OUT/plaincall.log" 2>&1 &
PROXY_PID=$!
PIDS+=("$PROXY_PID")
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
    sleep 0.1
done

body='{"model":"bench-model","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Say hello in one short sentence."}],"temperature":0.2'
for kind in chat stream; do
    extra=""
    [[ $kind == stream ]] && extra=',"stream":true'
    cat >"$OUT/$kind.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$body$extra}'
LUA
done

# allocations per request of process $1 at address $2 for the requests in $3.lua
count() {
    local pid=$1 addr=$2 kind=$3 n
    wrk -t1 -c8 -d1s -s "$OUT/$kind.lua" "http://$addr/v1/chat/completions" >/dev/null
    perf stat -x, -e probe_libc:malloc -p "$pid" -o "$OUT/$kind-$pid.stat" &
    local stat=$!
    sleep 0.3
    n=$(wrk -t1 -c8 -d"${SECS}s" -s "$OUT/$kind.lua" "http://$addr/v1/chat/completions" |
        awk '/requests in/ {print $1}')
    sleep 0.3
    kill -INT "$stat"
    wait "$stat" || true
    awk -F, -v n="$n" '/probe_libc:malloc/ {printf "%.1f", $1 / n}' "$OUT/$kind-$pid.stat"
}

printf '%-28s %10s %10s\n' "allocations per request" relay plaincall
for kind in chat stream; do
    label="non-streaming"
    [[ $kind == stream ]] && label="streaming, 32 chunks"
    printf '%-28s %10s %10s\n' "$label" "$(count "$RELAY_PID" "$RELAY" "$kind")" \
        "$(count "$PROXY_PID" "127.0.0.1:$PORT" "$kind")"
done
