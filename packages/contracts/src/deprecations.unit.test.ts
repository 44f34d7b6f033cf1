import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deprecatedOperations, deprecationHeaders } from './deprecations.js';
import { routeCatalog } from './routes.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('deprecated operations', () => {
  it('are catalogued routes, each listed in the README with every replacement', () => {
    for (const [operationId, deprecation] of Object.entries(deprecatedOperations)) {
      expect(routeCatalog.some((route) => route.operationId === operationId)).toBe(true);
      const row = readme.split('\n').find((line) => line.includes(`(\`${operationId}\`)`));
      expect(row, operationId).toBeDefined();
      for (const successor of deprecation.successors) expect(row).toContain(`\`${successor.method} /v3${successor.path}\``);
    }
  });

  it('name their replacements in Link headers; other operations get none', () => {
    const headers = deprecationHeaders('get-conversation');
    expect(headers?.['deprecation']).toBe('true');
    expect(headers?.['link']).toContain('</v3/users/{uid}/conversation>; rel="successor-version"');
    expect(deprecationHeaders('get-user')).toBeUndefined();
  });
});
