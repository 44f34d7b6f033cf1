#!/usr/bin/env bash
# npm run bench: the same set-up, then each benchmark in turn (each starts and stops everything it needs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
node bench/store-raw.mjs
node bench/gateway-overhead.mjs "$@"
node bench/runtime.mjs
# The floor's table puts our stack's figures of this run beside it (ADR 0055).
mkdir -p .infra
node bench/cost.mjs | tee .infra/cost-last.log
BENCH_OURS_LOG=.infra/cost-last.log node bench/floor.mjs
node bench/users-list.mjs
node bench/groups-operations.mjs
node bench/messages-send.mjs
node bench/tracing-cost.mjs
BENCH_INSTRUMENT=metrics node bench/tracing-cost.mjs
node bench/conversations-list.mjs
node bench/import.mjs
node bench/webhooks.mjs
node bench/notifications.mjs
node bench/notifications-cost.mjs
node bench/moderation.mjs
node bench/moderation-patterns.mjs
