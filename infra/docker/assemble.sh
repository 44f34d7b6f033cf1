#!/usr/bin/env sh
# Lays out one service's production tree in OUT (the Dockerfile's prune stage; runs on a compiled
# checkout): the service and the workspace packages it depends on (package.json and compiled code,
# without tests, declarations or source maps) and their production dependencies only, installed
# from the lockfile. Nothing of the test suite, the dev stack (testcontainers), bench or tooling.
#   infra/docker/assemble.sh SERVICE OUT
set -eu
service="${1:?usage: assemble.sh SERVICE OUT}"
out="${2:?usage: assemble.sh SERVICE OUT}"
case "$service" in
  gateway) dir=gateway; port=3000 ;;
  users) dir=services/users; port=3101 ;;
  conversations) dir=services/conversations; port=3102 ;;
  messages) dir=services/messages; port=3103 ;;
  management) dir=services/management; port=3104 ;;
  webhooks) dir=services/webhooks; port=3105 ;;
  notifications) dir=services/notifications; port=3106 ;;
  calls) dir=services/calls; port=3107 ;;
  realtime) dir=services/realtime; port=3108 ;;
  *) echo "assemble.sh: SERVICE must be gateway, users, conversations, messages, calls, realtime, management, webhooks or notifications (got '$service')" >&2; exit 64 ;;
esac
pnpm="${PNPM:-pnpm}"

# Production dependencies of the service and its workspace packages only (the store already holds
# them from the full install, so nothing is fetched; re2 comes from pnpm's cache of its build).
find . -name node_modules -type d -prune -exec rm -rf {} +
$pnpm install --frozen-lockfile --prod --offline --reporter=append-only --filter "@chat/$service..."

mkdir -p "$out"
cp -a node_modules "$out/"
for package in $($pnpm --filter "@chat/$service..." exec pwd); do
  relative="${package#"$PWD"/}"
  mkdir -p "$out/$relative"
  cp -a "$package/package.json" "$out/$relative/"
  [ -d "$package/node_modules" ] && cp -a "$package/node_modules" "$out/$relative/"
  cp -a "$package/dist" "$out/$relative/"
done
find "$out" -path '*/node_modules' -prune -o -type f \( -name '*.test.*' -o -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.js.map' -o -name '.tsbuildinfo' \) -exec rm -f {} +
# The gateway serves the API description (GET /openapi.json) from beside its code.
if [ "$service" = gateway ]; then mkdir -p "$out/docs" && cp docs/openapi.json "$out/docs/"; fi
# re2 (messages) needs only its compiled addon at run time: not its bundled C++ sources or objects.
for re2 in "$out"/node_modules/.pnpm/re2@*/node_modules/re2; do
  [ -d "$re2" ] || continue
  rm -rf "$re2/vendor" "$re2/build/Release/obj.target" "$re2/build/Release/.deps" "$re2/build/Release/obj"
  strip --strip-unneeded "$re2/build/Release/re2.node" 2>/dev/null || true
done
cp infra/docker/healthcheck.mjs "$out/healthcheck.mjs"
printf "// The entry point of this image's service (%s).\nimport './%s/dist/main.js';\n" "$service" "$dir" > "$out/main.mjs"
printf '{"service":"%s","port":%s}\n' "$service" "$port" > "$out/service.json"
