#!/usr/bin/env bash
# npm run dev: npm start with the TypeScript compiler watching; each process restarts when its
# compiled code changes (node --watch). Ctrl-C stops the compiler and the stack.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
node_modules/.bin/tsc -b --watch --preserveWatchOutput &
compiler=$!
trap 'kill "$compiler" 2>/dev/null || true' EXIT
DEV_WATCH=1 node infra/devstack/dist/stack-cli.js
