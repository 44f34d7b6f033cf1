import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceNode } from './nodeRuntime.js';

describe('serviceNode', () => {
  const roots = mkdtempSync(join(tmpdir(), 'service-node-'));
  afterAll(() => rmSync(roots, { recursive: true, force: true }));

  it("is the checkout's own Node, the one setup.sh installed in .infra/node", () => {
    const root = join(roots, 'installed');
    mkdirSync(join(root, '.infra', 'node', 'bin'), { recursive: true });
    writeFileSync(join(root, '.infra', 'node', 'bin', 'node'), '');
    chmodSync(join(root, '.infra', 'node', 'bin', 'node'), 0o755);
    expect(serviceNode(root)).toBe(join(root, '.infra', 'node', 'bin', 'node'));
  });

  it('is the Node running the stack in a checkout set up before .node-version', () => {
    expect(serviceNode(join(roots, 'older'))).toBe(process.execPath);
  });
});
