#!/usr/bin/env sh
# Prints the Secrets infra/k8s/chat-platform.yaml needs, with fresh random keys (ADR 0051):
#   MONGO_URL=… KAFKA_BROKERS=… REDIS_URL=… sh infra/k8s/secrets.sh | kubectl create -f -
# - chat-platform-connections: MONGO_URL, KAFKA_BROKERS, REDIS_URL (addresses may carry credentials).
# - chat-platform-management: MANAGEMENT_KEY, MANAGEMENT_SECRET (the management API; the gateway).
# - chat-platform-webhooks, -notifications, -messages: the keys that seal secrets at rest (ADR 0039).
# Use `kubectl create`, not `apply`: a second run must fail on the existing Secrets rather than
# replace keys that already seal data (rotation adds a key in front: README, ADR 0039).
set -eu

for name in MONGO_URL KAFKA_BROKERS REDIS_URL; do
  eval "value=\${$name:-}"
  if [ -z "$value" ]; then
    echo "secrets.sh: set $name (the address the services reach it at)" >&2
    exit 64
  fi
done

# 32 random bytes as 64 hex characters.
key() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
# A YAML single-quoted scalar: quotes doubled, nothing else is special inside.
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }

secret() {
  printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: chat-platform\ntype: Opaque\nstringData:\n' "$1"
}

secret chat-platform-connections
printf '  MONGO_URL: %s\n  KAFKA_BROKERS: %s\n  REDIS_URL: %s\n' "$(quoted "$MONGO_URL")" "$(quoted "$KAFKA_BROKERS")" "$(quoted "$REDIS_URL")"
secret chat-platform-management
printf '  MANAGEMENT_KEY: %s\n  MANAGEMENT_SECRET: %s\n' "$(quoted "$(key)")" "$(quoted "$(key)")"
secret chat-platform-webhooks
printf '  WEBHOOK_SECRETS_KEY: %s\n' "$(quoted "$(key)")"
secret chat-platform-notifications
printf '  NOTIFICATIONS_SECRETS_KEY: %s\n' "$(quoted "$(key)")"
secret chat-platform-messages
printf '  MESSAGES_SECRETS_KEY: %s\n' "$(quoted "$(key)")"
