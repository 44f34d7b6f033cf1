import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node.js binary every service and gateway of a checkout runs on: the one `scripts/setup.sh`
 * installed in its `.infra/node` (the version `.node-version` names, ADR 0135). A checkout without it
 * (a build root made before that, as an A/B bench's base) runs them on the Node that runs this code.
 */
export function serviceNode(repoRoot: string): string {
  const installed = join(repoRoot, '.infra', 'node', 'bin', 'node');
  return existsSync(installed) ? installed : process.execPath;
}
