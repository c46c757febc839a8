#!/usr/bin/env bash
# The real-model tier: installs llama-server and the small Qwen models (cached outside the
# repo, see scripts/real-upstream.sh), then drives plaincall in front of them with the openai
# Python client (tests/real). Slow: ~10 minutes the first time on 2 cores, ~2 when cached.
#
#   bash scripts/test-real.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null

step() { printf '\n==> %s\n' "$*"; }

step "Real upstream: scripts/real-upstream.sh install"
bash scripts/real-upstream.sh install

step "Building the binary"
cargo build --locked --bin plaincall
if [ -z "${PLAINCALL_DEV_BIN:-}" ]; then
  target_dir="$(cargo metadata --format-version 1 --no-deps --locked \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
  export PLAINCALL_DEV_BIN="$target_dir/debug/plaincall"
fi

step "Real-model tests: pytest tests/real"
venv=.venv
if ! "$venv/bin/python" -c 'import sys; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r tests/real/requirements.txt
trap 'bash scripts/real-upstream.sh stop-all >/dev/null 2>&1 || true' EXIT
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/real
