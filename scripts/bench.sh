#!/usr/bin/env bash
# npm run bench: the same set-up, then the benchmark (starts and stops everything it needs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node bench/conversations-list.mjs
exec node bench/gateway-overhead.mjs "$@"
