#!/usr/bin/env bash
# THE test command: every Rust test, then plaincall driven by the official OpenAI clients
# (Python: tests/python, Node: tests/node) and by the coding agents Codex CLI, Claude Code,
# OpenCode, Qwen Code, Cline, Continue (pinned in tests/node/package.json) and Aider (pinned in
# tests/python/requirements-aider.txt) against mock upstreams; plaincall's traces are read back
# from a real Arize Phoenix (pinned in tests/python/requirements-phoenix.txt).
#
#   bash scripts/test.sh
#
# Works in a fresh clone, without standard input, and may be run again at will: the Python
# virtual environment (.venv) is created or refreshed, Aider's own (.venv-aider) and Phoenix's
# (.venv-phoenix) are installed once and again only when their pins change,
# tests/node/node_modules is reinstalled from the lock file when the lock file changed, Debian's
# redis-server (and strace, with which the agent tests check that the agents reach nothing but
# loopback) is installed when missing. Needs cargo, python3 (3.10+, with venv) and node 20+ with
# npm.
# PLAINCALL_DEV_BIN, when set, names the plaincall binary the client tests start instead of the
# one this script builds.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'scripts/test.sh: %s\n' "$*" >&2; exit 1; }

for tool in cargo python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "node 20 or newer is needed (found $(node --version))"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"

# The agent tests trace the agents' connections with strace; without it they say so and skip
# that check.
if ! command -v strace >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  step "Installing strace (Debian's package) for the agent tests' loopback check"
  $sudo apt-get install -y strace >/dev/null 2>&1 || {
    $sudo apt-get update >/dev/null && $sudo apt-get install -y strace >/dev/null
  } || echo "scripts/test.sh: strace could not be installed: the agent tests will not check their connections" >&2
fi

# The shared-state tests run a real redis-server (Debian's package) on a loopback port.
if ! command -v redis-server >/dev/null 2>&1; then
  step "Installing redis-server (Debian's package) for the shared-state tests"
  command -v apt-get >/dev/null 2>&1 || die "redis-server is missing and there is no apt-get: install it"
  $sudo apt-get install -y redis-server >/dev/null 2>&1 || {
    $sudo apt-get update >/dev/null && $sudo apt-get install -y redis-server >/dev/null
  } || die "redis-server is missing and could not be installed: apt-get install redis-server"
  # The package starts a system service; the tests start their own servers.
  $sudo service redis-server stop >/dev/null 2>&1 || true
fi

step "Rust tests: cargo test --locked"
cargo test --locked

step "Building the binary: cargo build --locked --bin plaincall"
cargo build --locked --bin plaincall
if [ -z "${PLAINCALL_DEV_BIN:-}" ]; then
  target_dir="$(cargo metadata --format-version 1 --no-deps --locked \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
  PLAINCALL_DEV_BIN="$target_dir/debug/plaincall"
fi
[ -x "$PLAINCALL_DEV_BIN" ] || die "no plaincall binary at $PLAINCALL_DEV_BIN"
export PLAINCALL_DEV_BIN
echo "client tests use $PLAINCALL_DEV_BIN"

step "Python client tests: .venv + pytest tests/python"
venv=.venv
if ! "$venv/bin/python" -c 'import sys; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; then
  # Missing, or broken (its base interpreter moved or went away): start again.
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r tests/python/requirements.txt
# Aider in a virtual environment of its own (it pins its own versions of openai and others),
# kept between runs: installed again only when tests/python/requirements-aider.txt changes.
aider_venv=.venv-aider
if ! cmp -s tests/python/requirements-aider.txt "$aider_venv/.requirements" \
   || ! "$aider_venv/bin/aider" --version >/dev/null 2>&1; then
  step "Installing Aider into $aider_venv (tests/python/requirements-aider.txt)"
  rm -rf "$aider_venv"
  python3 -m venv "$aider_venv"
  "$aider_venv/bin/python" -m pip install -q --disable-pip-version-check -r tests/python/requirements-aider.txt
  cp tests/python/requirements-aider.txt "$aider_venv/.requirements"
fi
# Arize Phoenix, the trace collector test_phoenix.py reads spans back from, likewise in a virtual
# environment of its own (about 850 MB; it pins its own OpenTelemetry and protobuf), kept between
# runs: installed again only when tests/python/requirements-phoenix.txt changes.
phoenix_venv=.venv-phoenix
if ! cmp -s tests/python/requirements-phoenix.txt "$phoenix_venv/.requirements" \
   || [ ! -x "$phoenix_venv/bin/phoenix" ] \
   || ! "$phoenix_venv/bin/python" -c 'import importlib.metadata as m; m.version("arize-phoenix")' >/dev/null 2>&1; then
  step "Installing Phoenix into $phoenix_venv (tests/python/requirements-phoenix.txt)"
  rm -rf "$phoenix_venv"
  python3 -m venv "$phoenix_venv"
  "$phoenix_venv/bin/python" -m pip install -q --disable-pip-version-check -r tests/python/requirements-phoenix.txt
  cp tests/python/requirements-phoenix.txt "$phoenix_venv/.requirements"
fi
# pytest exits 5 when it collected no test: with `set -e` that fails the run, as it should.
"$venv/bin/python" -m pytest -q tests/python

step "Node client and agent tests: npm ci + node --test tests/node/*.test.mjs"
# The agents make node_modules large (about 1 GB): it is reinstalled only when the lock file
# changed since the last install here (its copy is kept inside node_modules).
if [ ! -f tests/node/package-lock.json ]; then
  npm install --prefix tests/node --no-audit --no-fund
elif cmp -s tests/node/package-lock.json tests/node/node_modules/.plaincall-installed-lock; then
  echo "tests/node/node_modules is up to date with package-lock.json"
else
  npm ci --prefix tests/node --no-audit --no-fund
  cp tests/node/package-lock.json tests/node/node_modules/.plaincall-installed-lock
fi
shopt -s nullglob
node_tests=(tests/node/*.test.mjs)
shopt -u nullglob
# node --test passes when it finds no test file at all; an empty suite must not.
[ "${#node_tests[@]}" -gt 0 ] || die "no tests/node/*.test.mjs file"
# The coding-agent tests (those that use support/agents.mjs) spend their time waiting on an
# agent in a subprocess: they run four at a time; the others one file at a time, as node's
# default on two cores, so that their timings are not squeezed.
agent_tests=()
other_tests=()
for file in "${node_tests[@]}"; do
  if grep -q "support/agents.mjs" "$file"; then agent_tests+=("$file"); else other_tests+=("$file"); fi
done
# The files by name: node 20 searches a directory argument, node 22+ reads arguments as globs.
if [ "${#other_tests[@]}" -gt 0 ]; then node --test "${other_tests[@]}"; fi
if [ "${#agent_tests[@]}" -gt 0 ]; then node --test --test-concurrency=4 "${agent_tests[@]}"; fi

step "scripts/test.sh: all tests passed"
