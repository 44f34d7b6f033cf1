#!/usr/bin/env bash
# npm start: install, build, start Kafka / FerretDB / Redis (unless KAFKA_BROKERS / MONGO_URL /
# REDIS_URL are set), then the services and the gateway as separate processes. Ctrl-C stops all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec node infra/devstack/dist/stack-cli.js
