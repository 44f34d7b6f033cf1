// Writes docs/reference/cometchat-operations.json: a compact index of CometChat's own OpenAPI files
// (default ../shared/api/openapi beside the checkout, or the folder given as the first argument), so
// the differences report (scripts/openapi-differences.mjs) can be regenerated from a clean clone.
// Facts only: operationId, file, method, path, parameter names and body property names.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationsOf } from './openapiOperations.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The index of the CometChat files in `referenceDir`, as written to the repository. */
export function cometChatIndex(referenceDir) {
  const files = readdirSync(referenceDir).filter((name) => name.endsWith('.json')).sort();
  const operations = [];
  for (const file of files) {
    const document = JSON.parse(readFileSync(join(referenceDir, file), 'utf8'));
    // Their chat servers end in /v3 and paths start below it; the management API has no prefix.
    const prefix = /\/v3\/?$/.test(document.servers?.[0]?.url ?? '') ? '/v3' : '';
    for (const [operationId, operation] of operationsOf(document, prefix)) operations.push({ operationId, file, ...operation });
  }
  operations.sort((a, b) => a.operationId.localeCompare(b.operationId) || a.file.localeCompare(b.file));
  return { files, operations };
}

export const INDEX_PATH = join(repoRoot, 'docs', 'reference', 'cometchat-operations.json');

/** One operation a line: small diffs when CometChat's files change. */
export function indexText(index) {
  const lines = index.operations.map((operation) => `    ${JSON.stringify(operation)}`);
  return `{\n  "files": ${JSON.stringify(index.files)},\n  "operations": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const referenceDir = process.argv[2] ?? join(repoRoot, '..', 'shared', 'api', 'openapi');
  const index = cometChatIndex(referenceDir);
  writeFileSync(INDEX_PATH, indexText(index));
  console.log(`wrote ${INDEX_PATH}: ${index.operations.length} operations from ${index.files.join(', ')}`);
}
