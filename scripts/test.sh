#!/usr/bin/env bash
# npm test: the same set-up as npm start, then lint, unit, integration and end-to-end tests against
# the real services. vitest's global setup starts (and always stops) the infrastructure and services.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
echo "[test] lint" >&2
node_modules/.bin/eslint .
# The services compile in setup; the tests themselves are type-checked here (vitest only strips types).
echo "[test] typecheck test/" >&2
node_modules/.bin/tsc -p test/tsconfig.json
# The console and demo tests drive Debian's chromium (playwright-core, no browser download of its own);
# installed like the infrastructure's binaries, when /usr/bin/chromium is missing.
bash infra/scripts/prepare.sh chromium
node_modules/.bin/vitest run --project unit --project system "$@"
# A webhook delivery process restarted on the shared topics, then the bulk import, then the rebalance
# tests on two replicas of every service (a Kafka log whose topics have 6 partitions): each on a fresh
# stack of its own (vitest.config.ts).
node_modules/.bin/vitest run --project fresh
node_modules/.bin/vitest run --project bulk
node_modules/.bin/vitest run --project replicas
# Every end-to-end suite again on two replicas of every service (topics of 6 partitions): what one
# replica writes, the next request on the other must see (ADR 0035).
REPLICAS=2 KAFKA_PARTITIONS=6 node_modules/.bin/vitest run --project system .e2e.test.
