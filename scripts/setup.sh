#!/usr/bin/env bash
# Shared by `npm start`, `npm test` and `npm run bench`: dependencies and the compiled build.
# Everything it needs comes from the package registries, so a fresh machine of this kind works.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "[setup] installing dependencies (pnpm 10 from the npm registry)" >&2
npx -y pnpm@10 install --frozen-lockfile --reporter=silent
echo "[setup] compiling TypeScript" >&2
node_modules/.bin/tsc -b
echo "[setup] bundling the demo page's script" >&2
node gateway/demo/bundle.mjs
