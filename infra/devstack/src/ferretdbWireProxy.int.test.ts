import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The FerretDB runner's wire proxy has Go tests (statement counting, the refusal reply, the relay);
// this runs them with the rest of the suite. Go is there wherever the runner was built (prepare.sh
// installs it); where it is missing the case is skipped, as the runner then comes from MONGO_URL.
// A system-tier test, not a unit one: it needs a toolchain, and its compile (one core at most, so the
// rest of the suite keeps the other) must not crowd the time-limited unit tests.
const run = promisify(execFile);
const runnerSource = fileURLToPath(new URL('../../ferretdb/', import.meta.url));
const go = ['/usr/local/go/bin/go', ...(process.env['PATH'] ?? '').split(':').map((dir) => `${dir}/go`)].find((path) => existsSync(path));

describe('the FerretDB runner wire proxy (go test)', () => {
  it.skipIf(go === undefined)('passes its Go tests', { timeout: 300_000 }, async () => {
    const { stdout } = await run(go ?? 'go', ['test', '-count=1', './wireproxy/'], {
      cwd: runnerSource,
      env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false -p=1', GOMAXPROCS: '1' },
    });
    expect(stdout).toMatch(/^ok\s+\S+\/wireproxy/m);
  });
});
