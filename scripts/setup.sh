#!/usr/bin/env bash
# Shared by `npm start`, `npm test` and `npm run bench` (they source it): the project's Node.js,
# dependencies and the compiled build. Everything it needs comes from the package registries, so a
# fresh machine of this kind works.
# Sourced, it gives the caller's shell options back at its end (the npm scripts set their own; a
# developer's shell that sources it for the PATH keeps its own).
# (`errexit` read from `$-`: a command substitution does not inherit it.)
setup_caller_options=$(set +o)
case $- in *e*) setup_caller_options+=$'\nset -e' ;; esac
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The Node.js every process of the project runs on (ADR 0135): the version `.node-version` names, from
# the npm registry's node-linux-<arch> package (the official build, with its headers), unpacked in
# .infra/node. Whatever Node ran this script (a machine's older one) only starts it.
node_version=$(tr -d '[:space:]' < .node-version)
if [ "$(.infra/node/bin/node --version 2>/dev/null)" != "v$node_version" ]; then
  case "$(uname -m)" in
    x86_64) node_arch=x64 ;;
    aarch64) node_arch=arm64 ;;
    *) echo "[setup] no Node.js package for $(uname -m) on the npm registry" >&2; exit 1 ;;
  esac
  echo "[setup] installing Node.js $node_version (node-linux-$node_arch from the npm registry)" >&2
  rm -rf .infra/node.tmp && mkdir -p .infra/node.tmp
  (cd .infra/node.tmp && npm pack --silent "node-linux-$node_arch@$node_version" >/dev/null)
  tar xzf .infra/node.tmp/node-linux-"$node_arch"-*.tgz -C .infra/node.tmp --strip-components=1
  rm -f .infra/node.tmp/node-linux-*.tgz
  # Into a temporary folder first, so an interrupted download never looks installed.
  rm -rf .infra/node && mv .infra/node.tmp .infra/node
fi
export PATH="$PWD/.infra/node/bin:$PATH"
# Native addons (re2) compile against this Node's own headers: none fetched from nodejs.org.
export npm_config_nodedir="$PWD/.infra/node"

echo "[setup] installing dependencies (pnpm 10 from the npm registry)" >&2
npx -y pnpm@10 install --frozen-lockfile --reporter=silent
# node_modules/.bin/node: the tools' launchers there (vitest, tsc, eslint) and `npm run` pick it before
# any other node on PATH.
ln -sfn ../../.infra/node/bin/node node_modules/.bin/node
# A checkout installed under another Node keeps addons built for that Node's ABI: pnpm sees nothing to do.
if ! (cd services/messages && node -e "require('re2')" 2>/dev/null); then
  echo "[setup] rebuilding re2 for Node.js $node_version" >&2
  npx -y pnpm@10 --recursive rebuild --reporter=silent re2
fi
echo "[setup] compiling TypeScript" >&2
node_modules/.bin/tsc -b
echo "[setup] bundling the demo page's script" >&2
node gateway/demo/bundle.mjs
eval "$setup_caller_options"
unset setup_caller_options
