// Builds the demo page's script (ADR 0080): type-checks the browser code against the DOM and
// @chat/client's declarations, then bundles it with the client (and zod) into one ES module the gateway
// serves from its own origin. Runs after `tsc -b` (scripts/setup.sh, the Dockerfile), which compiles
// the client package it imports.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', here('tsconfig.json')], { stdio: 'inherit' });
} catch {
  process.exit(1); // tsc printed the errors
}
await build({
  entryPoints: [here('demoApp.ts')],
  outfile: here('../dist/demo/app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
