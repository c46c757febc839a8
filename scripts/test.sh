#!/usr/bin/env bash
# THE test command: every Rust test, then plaincall driven by the official OpenAI clients
# (Python: tests/python, Node: tests/node) and by Codex CLI and Claude Code (pinned in
# tests/node/package.json) against mock upstreams.
#
#   bash scripts/test.sh
#
# Works in a fresh clone, without standard input, and may be run again at will: the Python
# virtual environment (.venv) is created or refreshed, tests/node/node_modules is reinstalled
# from the lock file, Debian's redis-server is installed when missing. Needs cargo, python3
# (3.10+, with venv) and node 20+ with npm.
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

# The shared-state tests run a real redis-server (Debian's package) on a loopback port.
if ! command -v redis-server >/dev/null 2>&1; then
  step "Installing redis-server (Debian's package) for the shared-state tests"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
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
# pytest exits 5 when it collected no test: with `set -e` that fails the run, as it should.
"$venv/bin/python" -m pytest -q tests/python

step "Node client tests: npm ci + node --test tests/node/*.test.mjs"
if [ -f tests/node/package-lock.json ]; then
  npm ci --prefix tests/node --no-audit --no-fund
else
  npm install --prefix tests/node --no-audit --no-fund
fi
shopt -s nullglob
node_tests=(tests/node/*.test.mjs)
shopt -u nullglob
# node --test passes when it finds no test file at all; an empty suite must not.
[ "${#node_tests[@]}" -gt 0 ] || die "no tests/node/*.test.mjs file"
# The files by name: node 20 searches a directory argument, node 22+ reads arguments as globs.
node --test "${node_tests[@]}"

step "scripts/test.sh: all tests passed"
