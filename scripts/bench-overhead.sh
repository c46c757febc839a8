#!/usr/bin/env bash
# Measures the latency and throughput plaincall adds in front of an instant upstream.
#
# Builds the release binary and examples/bench_upstream.rs (a mock OpenAI server that answers
# at once), then runs wrk against the mock directly and through plaincall, on loopback, and
# prints p50/p99/requests-per-second side by side. See scripts/README.md.
#
# Environment:
#   BENCH_SECONDS   seconds per measured run (default 10)
#   BENCH_WARMUP    seconds of warm-up before each run, not measured (default 1; 0 = none)
#   BENCH_CHUNKS    SSE content chunks per streamed response (default 32)
#   BENCH_MISSES    requests in the cache-miss loop (default 200)
#   BENCH_BASELINE  1 (default): also measure a minimal relay on the same stack (axum + hyper-util,
#                   no middleware), the floor for any proxy built this way; 0: skip it
#   BENCH_NGINX     1 (default when nginx is installed): also measure nginx as a reverse proxy
#                   (keep-alive to the mock, no buffering, no access log), the yardstick of #24
#   BENCH_OUT       where raw wrk output and logs are kept (default target/bench-overhead)
#   BENCH_SKIP_BUILD=1  use the binaries already in target/release
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${BENCH_SECONDS:-10}
WARMUP=${BENCH_WARMUP:-1}
CHUNKS=${BENCH_CHUNKS:-32}
MISSES=${BENCH_MISSES:-200}
BASELINE=${BENCH_BASELINE:-1}
OUT=${BENCH_OUT:-$ROOT/target/bench-overhead}
export BENCH_CHUNKS=$CHUNKS

PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench-overhead: %s\n' "$*" >&2; exit 1; }

# --- tools and binaries ----------------------------------------------------------------------

if ! command -v wrk >/dev/null 2>&1; then
    log "installing wrk"
    command -v apt-get >/dev/null 2>&1 || die "wrk is missing and there is no apt-get"
    apt-get install -y wrk >/dev/null 2>&1 || {
        apt-get update >/dev/null
        apt-get install -y wrk >/dev/null
    }
fi
command -v curl >/dev/null 2>&1 || die "curl is needed"

if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
    log "building (release)"
    # Two commands: with the example, dev-dependency features would be unified into the binary.
    cargo build --release --quiet --bin plaincall
    cargo build --release --quiet --example bench_upstream
fi
PLAINCALL=$ROOT/target/release/plaincall
MOCK=$ROOT/target/release/examples/bench_upstream
[[ -x $PLAINCALL && -x $MOCK ]] || die "binaries missing; build without BENCH_SKIP_BUILD"

rm -rf "$OUT"
mkdir -p "$OUT"

# --- the mock upstream and plaincall ---------------------------------------------------------

"$MOCK" 0 >"$OUT/mock.out" 2>"$OUT/mock.err" &
MOCK_PID=$!
PIDS+=("$MOCK_PID")
for _ in $(seq 100); do
    [[ -s $OUT/mock.out ]] && break
    sleep 0.05
done
MOCK_ADDR=$(head -n1 "$OUT/mock.out")
[[ -n $MOCK_ADDR ]] || die "the mock upstream did not start: $(cat "$OUT/mock.err")"

RELAY_ADDR=
if [[ $BASELINE == 1 ]]; then
    "$MOCK" relay 0 "http://$MOCK_ADDR" >"$OUT/relay.out" 2>"$OUT/relay.err" &
    RELAY_PID=$!
    PIDS+=("$RELAY_PID")
    for _ in $(seq 100); do
        [[ -s $OUT/relay.out ]] && break
        sleep 0.05
    done
    RELAY_ADDR=$(head -n1 "$OUT/relay.out")
    [[ -n $RELAY_ADDR ]] || die "the baseline relay did not start: $(cat "$OUT/relay.err")"
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

NGINX_ADDR=
if [[ ${BENCH_NGINX:-1} == 1 ]] && command -v nginx >/dev/null 2>&1; then
    for p in $(seq 19787 19987); do
        if port_free "$p"; then NGINX_ADDR=127.0.0.1:$p; break; fi
    done
    mkdir -p "$OUT/nginx"
    cat >"$OUT/nginx/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $OUT/nginx/body;
    proxy_temp_path $OUT/nginx/proxy;
    fastcgi_temp_path $OUT/nginx/fastcgi;
    uwsgi_temp_path $OUT/nginx/uwsgi;
    scgi_temp_path $OUT/nginx/scgi;
    upstream mock { server $MOCK_ADDR; keepalive 128; }
    server {
        listen $NGINX_ADDR;
        location / {
            proxy_pass http://mock;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
        }
    }
}
CONF
    nginx -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" 2>"$OUT/nginx.err" &
    NGINX_PID=$!
    PIDS+=("$NGINX_PID")
    nginx_up() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://$NGINX_ADDR/v1/models") != 000 ]]; }
    for _ in $(seq 100); do
        nginx_up && break
        sleep 0.05
    done
    nginx_up || die "nginx did not start: $(cat "$OUT/nginx.err")"
fi
PROXY_PORT=${BENCH_PROXY_PORT:-}
if [[ -z $PROXY_PORT ]]; then
    for p in $(seq 18787 18987); do
        if port_free "$p"; then PROXY_PORT=$p; break; fi
    done
fi
[[ -n $PROXY_PORT ]] || die "no free port for plaincall"
PROXY_ADDR=127.0.0.1:$PROXY_PORT

PLAINCALL_LISTEN=$PROXY_ADDR \
PLAINCALL_UPSTREAM_URL=http://$MOCK_ADDR/v1 \
PLAINCALL_LOG_LEVEL=warn \
    "$PLAINCALL" serve >"$OUT/plaincall.out" 2>"$OUT/plaincall.err" &
PROXY_PID=$!
PIDS+=("$PROXY_PID")
for _ in $(seq 200); do
    curl -fsS "http://$PROXY_ADDR/healthz" >/dev/null 2>&1 && break
    kill -0 "$PROXY_PID" 2>/dev/null || die "plaincall exited: $(cat "$OUT/plaincall.err")"
    sleep 0.05
done
curl -fsS "http://$PROXY_ADDR/healthz" >/dev/null || die "plaincall is not answering"

# --- request bodies --------------------------------------------------------------------------

CHAT_BODY='{"model":"bench-model","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Say hello in one short sentence."}],"temperature":0.2}'
STREAM_BODY='{"model":"bench-model","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Say hello in one short sentence."}],"temperature":0.2,"stream":true}'
TOOL=$(tr -d '\n' <"$ROOT/tests/fixtures/tools/set_reminder.json")
tool_body() { # $1: the user message
    printf '{"model":"bench-model","messages":[{"role":"user","content":"%s"}],"tools":[%s],"tool_choice":"auto"}' "$1" "$TOOL"
}
printf '%s' "$CHAT_BODY" >"$OUT/chat.json"
printf '%s' "$STREAM_BODY" >"$OUT/stream.json"
tool_body "Remind me every day at 9am to check my email." >"$OUT/tool.json"
# A simple tool that is not rewritten: its calls are only checked (translation.check_calls).
SIMPLE_TOOL=$(tr -d '\n' <"$ROOT/tests/fixtures/tools/get_weather.json")
printf '{"model":"bench-model","messages":[{"role":"user","content":"Weather in Oslo?"}],"tools":[%s]}' \
    "$SIMPLE_TOOL" >"$OUT/checked.json"

# --- sanity checks: what is measured is what is meant ----------------------------------------

post() { # $1: base, $2: body file, then extra curl arguments
    local base=$1 body=$2
    shift 2
    curl -fsS -H 'content-type: application/json' --data-binary "@$body" "$@" "http://$base/v1/chat/completions"
}
metric() { # the value of a plaincall counter
    curl -fsS "http://$PROXY_ADDR/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

post "$PROXY_ADDR" "$OUT/chat.json" | grep -q '"finish_reason":"stop"' || die "proxied chat failed"
events=$(post "$PROXY_ADDR" "$OUT/stream.json" | grep -c '^data: ' || true)
[[ $events == $((CHUNKS + 1)) ]] || die "proxied stream had $events events, expected $((CHUNKS + 1))"
post "$PROXY_ADDR" "$OUT/tool.json" >"$OUT/translated.out" || die "translated call failed"
grep -q 'schedule_type' "$OUT/translated.out" ||
    die "the call was not translated: $(cat "$OUT/translated.out")"
post "$PROXY_ADDR" "$OUT/tool.json" -H 'x-plaincall-translate: off' | grep -q '"finish_reason":"stop"' ||
    die "the passthrough call did not pass through"
RSS_IDLE_KB=$(awk '/^VmRSS/ { print $2 }' "/proc/$PROXY_PID/status")

# --- wrk -------------------------------------------------------------------------------------

# A wrk script that POSTs the body in $1 (with the extra header in $2, if any) and prints one
# machine-readable line. With $3 = nonce, `__NONCE__` in the body becomes a fresh token per
# request (unique across runs), so that no two requests share a translation-cache key.
make_lua() {
    local body=$1 header=${2:-} mode=${3:-}
    local lua=$OUT/$(basename "$body" .json)${header:+-hdr}${mode:+-$mode}.lua
    cat >"$lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("$body", "rb"))
wrk.body = f:read("*a")
f:close()
EOF
    if [[ -n $header ]]; then
        printf 'wrk.headers["%s"] = "%s"\n' "${header%%:*}" "${header#*: }" >>"$lua"
    fi
    if [[ $mode == nonce ]]; then
        cat >>"$lua" <<'EOF'
local threads_started = 0
function setup(thread)
  threads_started = threads_started + 1
  thread:set("tid", threads_started)
end
local counter = 0
local run = os.getenv("BENCH_RUN_ID") or tostring(os.time())
local prefix, suffix = wrk.body:match("^(.-)__NONCE__(.*)$")
function request()
  counter = counter + 1
  local token = run .. "-" .. tostring(tid or 0) .. "-" .. tostring(counter)
  return wrk.format(nil, nil, nil, prefix .. token .. suffix)
end
EOF
    fi
    cat >>"$lua" <<'EOF'
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH_RESULT p50=%d p99=%d rps=%.1f requests=%d errors=%d non2xx=%d\n",
    latency:percentile(50), latency:percentile(99),
    summary.requests / (summary.duration / 1e6), summary.requests,
    e.connect + e.read + e.write + e.timeout, e.status))
end
EOF
    printf '%s' "$lua"
}

cpu_us() { # user + system CPU time of process $1 so far, in µs
    sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($12 + $13) * 1e6 / hz }'
}
# The CPU time of the shell's finished children, in µs, from the file `times >FILE` wrote
# (`times` itself must run in the shell that started wrk, not in a $(...) subshell).
children_cpu_us() {
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e6 }' "$1"
}

# run_wrk NAME ADDR CONNECTIONS LUA [PID]: prints "p50 p99 rps" (µs, µs, req/s), then the CPU
# time per request (µs) of wrk, of the mock and of the process PID (the proxy in between).
run_wrk() {
    local name=$1 addr=$2 conns=$3 lua=$4 pid=${5:-} threads=1 result
    ((conns > 1)) && threads=2
    if [[ $WARMUP != 0 ]]; then
        BENCH_RUN_ID=w$(date +%s%N) wrk -t"$threads" -c"$conns" -d"${WARMUP}s" -s "$lua" "http://$addr/v1/chat/completions" >/dev/null
    fi
    local wrk0 mock0 mid0=0 wrk1 mock1 mid1=0
    times >"$OUT/.times0"
    wrk0=$(children_cpu_us "$OUT/.times0")
    mock0=$(cpu_us "$MOCK_PID")
    [[ -n $pid ]] && mid0=$(cpu_us "$pid")
    BENCH_RUN_ID=m$(date +%s%N) wrk -t"$threads" -c"$conns" -d"${SECS}s" --latency -s "$lua" "http://$addr/v1/chat/completions" >"$OUT/$name.wrk"
    times >"$OUT/.times1"
    wrk1=$(children_cpu_us "$OUT/.times1")
    mock1=$(cpu_us "$MOCK_PID")
    [[ -n $pid ]] && mid1=$(cpu_us "$pid")
    result=$(grep '^BENCH_RESULT' "$OUT/$name.wrk") || die "no result from wrk for $name"
    local errors non2xx
    errors=$(sed -E 's/.* errors=([0-9]+).*/\1/' <<<"$result")
    non2xx=$(sed -E 's/.* non2xx=([0-9]+).*/\1/' <<<"$result")
    if ((errors > 0 || non2xx > 0)); then
        log "WARNING: $name: $errors socket errors, $non2xx non-2xx responses (see $OUT/$name.wrk)"
    fi
    sed -E 's/.*p50=([0-9]+) p99=([0-9]+) rps=([0-9.]+) requests=([0-9]+).*/\1 \2 \3 \4/' <<<"$result" |
        awk -v w=$((wrk1 - wrk0)) -v m=$((mock1 - mock0)) -v x=$((mid1 - mid0)) \
            '{ printf "%s %s %s %.1f %.1f %.1f\n", $1, $2, $3, w / $4, m / $4, x / $4 }'
}

declare -A R C # R[key]="p50 p99 rps", C[key]="wrk mock proxy" (CPU µs per request)
measure() { # measure KEY NAME ADDR CONNECTIONS LUA [PID]
    local key=$1 out
    shift
    out=$(run_wrk "$@")
    R[$key]=$(cut -d' ' -f1-3 <<<"$out")
    C[$key]=$(cut -d' ' -f4-6 <<<"$out")
}

LUA_CHAT=$(make_lua "$OUT/chat.json")
LUA_STREAM=$(make_lua "$OUT/stream.json")
for kind in chat stream; do
    lua=LUA_${kind^^}
    for c in 1 64; do
        log "$kind c=$c: direct"
        measure "$kind-$c-direct" "$kind-c$c-direct" "$MOCK_ADDR" "$c" "${!lua}"
        log "$kind c=$c: through plaincall"
        measure "$kind-$c-proxy" "$kind-c$c-proxy" "$PROXY_ADDR" "$c" "${!lua}" "$PROXY_PID"
        if [[ -n $RELAY_ADDR ]]; then
            log "$kind c=$c: through the minimal relay (baseline)"
            measure "$kind-$c-relay" "$kind-c$c-relay" "$RELAY_ADDR" "$c" "${!lua}" "$RELAY_PID"
        fi
        if [[ -n $NGINX_ADDR ]]; then
            log "$kind c=$c: through nginx"
            measure "$kind-$c-nginx" "$kind-c$c-nginx" "$NGINX_ADDR" "$c" "${!lua}"
        fi
    done
done

LUA_TOOL=$(make_lua "$OUT/tool.json")
LUA_TOOL_OFF=$(make_lua "$OUT/tool.json" "x-plaincall-translate: off")
log "tool call c=1: direct (same body, the mock answers with text)"
measure tool-direct tool-c1-direct "$MOCK_ADDR" 1 "$LUA_TOOL"
log "tool call c=1: passthrough (x-plaincall-translate: off)"
measure tool-pass tool-c1-passthrough "$PROXY_ADDR" 1 "$LUA_TOOL_OFF" "$PROXY_PID"
log "tool call c=1: translated, cache hit"
hits0=$(metric plaincall_translation_cache_hits_total)
measure tool-hit tool-c1-translated-hit "$PROXY_ADDR" 1 "$LUA_TOOL" "$PROXY_PID"
hits1=$(metric plaincall_translation_cache_hits_total)
LUA_CHECKED=$(make_lua "$OUT/checked.json")
LUA_CHECKED_OFF=$(make_lua "$OUT/checked.json" "x-plaincall-translate: off")
log "simple tool c=1: forwarded as is (x-plaincall-translate: off)"
measure checked-off checked-c1-off "$PROXY_ADDR" 1 "$LUA_CHECKED_OFF" "$PROXY_PID"
log "simple tool c=1: its calls checked (the default)"
measure checked-on checked-c1-on "$PROXY_ADDR" 1 "$LUA_CHECKED" "$PROXY_PID"

# Cache misses: the mock's description carries the `nonce=` token of the user message, so a
# fresh token per request makes a fresh cache key. First wrk, then a plain sequential loop of
# BENCH_MISSES curl requests as a cross-check (curl start-up included, so only the loop's
# per-request mean is shown).
tool_body "Remind me every day at 9am to check my email. nonce=__NONCE__" >"$OUT/tool-nonce.json"
LUA_MISS=$(make_lua "$OUT/tool-nonce.json" "" nonce)
log "tool call c=1: translated, cache miss (fresh description per request)"
miss0=$(metric plaincall_translation_cache_misses_total)
measure tool-miss tool-c1-translated-miss "$PROXY_ADDR" 1 "$LUA_MISS" "$PROXY_PID"
miss1=$(metric plaincall_translation_cache_misses_total)
log "tool call: $MISSES sequential cache misses with curl"
loop_ms() { # $1: address, $2: extra header or empty; prints the mean ms per request
    local addr=$1 header=$2 start end i tag
    tag=$(date +%s%N)
    start=$(date +%s%N)
    for ((i = 0; i < MISSES; i++)); do
        tool_body "Remind me every day at 9am to check my email. nonce=loop$tag-$i" |
            curl -fsS -o /dev/null -H 'content-type: application/json' ${header:+-H "$header"} \
                --data-binary @- "http://$addr/v1/chat/completions" || die "loop request failed"
    done
    end=$(date +%s%N)
    awk -v d=$((end - start)) -v n="$MISSES" 'BEGIN { printf "%.3f", d / n / 1e6 }'
}
LOOP_MISS=$(loop_ms "$PROXY_ADDR" "")
LOOP_PASS=$(loop_ms "$PROXY_ADDR" "x-plaincall-translate: off")
LOOP_DIRECT=$(loop_ms "$MOCK_ADDR" "")
miss2=$(metric plaincall_translation_cache_misses_total)

RSS_PEAK_KB=$(awk '/^VmHWM/ { print $2 }' "/proc/$PROXY_PID/status")
RSS_END_KB=$(awk '/^VmRSS/ { print $2 }' "/proc/$PROXY_PID/status")

# --- report ----------------------------------------------------------------------------------

{
    echo
    echo "plaincall overhead, loopback; $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)); wrk, mock and plaincall share them"
    echo "runs of ${SECS}s after ${WARMUP}s warm-up; streams have $CHUNKS chunks; latencies in µs"
    echo
    printf '%-22s %12s %12s %9s %12s %12s %9s %11s %11s %7s\n' \
        scenario "direct p50" "proxied p50" "+p50" "direct p99" "proxied p99" "+p99" "direct r/s" "proxied r/s" ratio
    for kind in chat stream; do
        for c in 1 64; do
            label="$([[ $kind == chat ]] && echo non-streaming || echo "streaming ($CHUNKS ch)") c=$c"
            read -r dp50 dp99 drps <<<"${R[$kind-$c-direct]}"
            read -r pp50 pp99 prps <<<"${R[$kind-$c-proxy]}"
            awk -v l="$label" -v a="$dp50" -v b="$pp50" -v c="$dp99" -v d="$pp99" -v e="$drps" -v f="$prps" \
                'BEGIN { printf "%-22s %12d %12d %9d %12d %12d %9d %11.0f %11.0f %6.0f%%\n", l, a, b, b - a, c, d, d - c, e, f, 100 * f / e }'
        done
    done
    if [[ -n $RELAY_ADDR ]]; then
        echo
        echo "floor: a minimal relay on the same stack (axum + hyper-util, no middleware, parsing or logging)"
        printf '%-22s %12s %9s %12s %9s %11s %7s %18s\n' \
            scenario "relay p50" "+p50" "relay p99" "+p99" "relay r/s" ratio "plaincall/relay"
        for kind in chat stream; do
            for c in 1 64; do
                label="$([[ $kind == chat ]] && echo non-streaming || echo "streaming ($CHUNKS ch)") c=$c"
                read -r dp50 dp99 drps <<<"${R[$kind-$c-direct]}"
                read -r rp50 rp99 rrps <<<"${R[$kind-$c-relay]}"
                read -r _ _ prps <<<"${R[$kind-$c-proxy]}"
                awk -v l="$label" -v a="$dp50" -v b="$rp50" -v c="$dp99" -v d="$rp99" -v e="$drps" -v f="$rrps" -v g="$prps" \
                    'BEGIN { printf "%-22s %12d %9d %12d %9d %11.0f %6.0f%% %17.0f%%\n", l, b, b - a, d, d - c, f, 100 * f / e, 100 * g / f }'
            done
        done
    fi
    if [[ -n $NGINX_ADDR ]]; then
        echo
        echo "beside nginx $(nginx -v 2>&1 | sed 's/.*nginx\///') as a reverse proxy (same mock, same run): what each adds to direct"
        printf '%-22s %11s %15s %11s %15s %18s\n' \
            scenario "nginx +p50" "plaincall +p50" "nginx r/s" "plaincall r/s" "plaincall/nginx"
        for kind in chat stream; do
            for c in 1 64; do
                label="$([[ $kind == chat ]] && echo non-streaming || echo "streaming ($CHUNKS ch)") c=$c"
                read -r dp50 _ _ <<<"${R[$kind-$c-direct]}"
                read -r np50 _ nrps <<<"${R[$kind-$c-nginx]}"
                read -r pp50 _ prps <<<"${R[$kind-$c-proxy]}"
                awk -v l="$label" -v d="$dp50" -v n="$np50" -v p="$pp50" -v a="$nrps" -v b="$prps" \
                    'BEGIN { printf "%-22s %11d %15d %11.0f %15.0f %17.0f%%\n", l, n - d, p - d, a, b, 100 * b / a }'
            done
        done
    fi
    echo
    echo "CPU time per request (µs; wrk + mock + proxy; 'bound' = CPUs / total, the most r/s the box could give)"
    printf '%-22s %-8s %7s %7s %7s %7s %9s %11s\n' scenario path wrk mock proxy total bound measured
    for kind in chat stream; do
        for c in 1 64; do
            label="$([[ $kind == chat ]] && echo non-streaming || echo "streaming ($CHUNKS ch)") c=$c"
            for path in direct proxy relay; do
                [[ -n ${C[$kind-$c-$path]:-} ]] || continue
                read -r w m x <<<"${C[$kind-$c-$path]}"
                read -r _ _ rps <<<"${R[$kind-$c-$path]}"
                awk -v l="$label" -v p="$([[ $path == proxy ]] && echo plaincall || echo $path)" -v w="$w" -v m="$m" -v x="$x" -v r="$rps" -v n="$(nproc)" \
                    'BEGIN { printf "%-22s %-8s %7.1f %7.1f %7.1f %7.1f %9.0f %11.0f\n", l, p, w, m, x, w + m + x, n * 1e6 / (w + m + x), r }'
                label=""
            done
        done
    done
    echo "tool call, c=1: plaincall CPU per request: passthrough $(cut -d' ' -f3 <<<"${C[tool-pass]}") µs," \
        "translated hit $(cut -d' ' -f3 <<<"${C[tool-hit]}") µs, translated miss $(cut -d' ' -f3 <<<"${C[tool-miss]}") µs"
    echo
    echo "tool call (set_reminder), c=1    p50      p99      r/s   +p50 vs passthrough  +p99 vs passthrough  +p50 vs direct"
    read -r pass50 pass99 _ <<<"${R[tool-pass]}"
    read -r dir50 _ _ <<<"${R[tool-direct]}"
    for row in "direct to the mock|tool-direct" "passthrough (header off)|tool-pass" \
        "translated, cache hit|tool-hit" "translated, cache miss|tool-miss"; do
        read -r p50 p99 rps <<<"${R[${row#*|}]}"
        awk -v l="${row%|*}" -v a="$p50" -v b="$p99" -v r="$rps" -v p="$pass50" -v q="$pass99" -v d="$dir50" \
            'BEGIN { printf "  %-29s %7d  %7d  %7.0f  %19d  %19d  %14d\n", l, a, b, r, a - p, b - q, a - d }'
    done
    echo "  (a miss makes two upstream requests, the main call and the translator call; a hit one)"
    read -r off50 off99 offrps <<<"${R[checked-off]}"
    read -r on50 on99 onrps <<<"${R[checked-on]}"
    echo "simple tool (get_weather), c=1: forwarded as is p50 $off50 / p99 $off99 µs, $offrps r/s;" \
        "calls checked p50 $on50 / p99 $on99 µs, $onrps r/s => checking adds $((on50 - off50)) µs at p50"
    echo "  cache counters during the runs: hits +$((hits1 - hits0)) in the hit run, misses +$((miss1 - miss0)) in the miss run, +$((miss2 - miss1)) in the loop"
    echo
    echo "sequential curl loop, $MISSES requests each (mean per request, curl start-up included):"
    echo "  direct ${LOOP_DIRECT} ms, passthrough ${LOOP_PASS} ms, translated cache miss ${LOOP_MISS} ms" \
        "=> translation adds $(awk -v a="$LOOP_MISS" -v b="$LOOP_PASS" 'BEGIN { printf "%.3f", a - b }') ms"
    echo
    echo "plaincall RSS: idle ${RSS_IDLE_KB} kB, after the load ${RSS_END_KB} kB, peak (VmHWM) ${RSS_PEAK_KB} kB"
    echo

    read -r dp50 dp99 _ <<<"${R[chat-1-direct]}"
    read -r pp50 pp99 _ <<<"${R[chat-1-proxy]}"
    read -r _ _ d64 <<<"${R[chat-64-direct]}"
    read -r _ _ p64 <<<"${R[chat-64-proxy]}"
    read -r _ _ sd64 <<<"${R[stream-64-direct]}"
    read -r _ _ sp64 <<<"${R[stream-64-proxy]}"
    read -r hit50 _ _ <<<"${R[tool-hit]}"
    read -r miss50 _ _ <<<"${R[tool-miss]}"
    verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo MISSED; fi; }
    echo "goals:"
    echo "  added p50 < 100 µs at c=1 (non-streaming):        $((pp50 - dp50)) µs  $(verdict "$pp50 - $dp50 < 100")"
    echo "  added p99 < 1 ms at c=1 (non-streaming):          $((pp99 - dp99)) µs  $(verdict "$pp99 - $dp99 < 1000")"
    echo "  throughput at c=64 >= 70% of direct (non-streaming): $(awk -v a="$p64" -v b="$d64" 'BEGIN { printf "%.0f%%", 100 * a / b }')  $(verdict "$p64 >= 0.7 * $d64")"
    echo "  throughput at c=64 >= 70% of direct (streaming):     $(awk -v a="$sp64" -v b="$sd64" 'BEGIN { printf "%.0f%%", 100 * a / b }')  $(verdict "$sp64 >= 0.7 * $sd64")"
    echo "  translated call adds < 1 ms at p50 (cache hit, vs passthrough):  $((hit50 - pass50)) µs  $(verdict "$hit50 - $pass50 < 1000")"
    echo "  translated call adds < 1 ms at p50 (cache miss, vs passthrough): $((miss50 - pass50)) µs  $(verdict "$miss50 - $pass50 < 1000")"
    echo
    echo "raw wrk output and logs: $OUT"
} | tee "$OUT/report.txt"
