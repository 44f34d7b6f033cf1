import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The repository's own eslint.config.js, without type information (the snippets are not on disk).
const eslint = new ESLint({
  cwd: fileURLToPath(new URL('../..', import.meta.url)),
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

/** The import-boundary errors the config reports for `code` placed at `filePath`. */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// Loading the config and the TypeScript parser takes seconds on a busy machine.
describe('import boundaries (eslint.config.js, ADR 0065)', { timeout: 60_000 }, () => {
  it('refuses a domain file importing an adapter, at the layer top and inside a feature folder', async () => {
    expect(await boundaryErrors('services/messages/src/domain/x.ts', "import { y } from '../adapters/x.js';\nexport const z = y;\n")).toEqual([
      expect.stringMatching(/Domain code imports only domain/),
    ]);
    expect(await boundaryErrors('services/messages/src/domain/moderation/x.ts', "import { y } from '../../projections/x.js';\nexport const z = y;\n")).toHaveLength(1);
    expect(await boundaryErrors('services/users/src/domain/x.ts', "import { Db } from 'mongodb';\nexport type Z = Db;\n")).toHaveLength(1);
  });

  it('lets a domain file import its own domain, contracts and the pure packages', async () => {
    const code = [
      "import { ApiError } from '@chat/contracts';",
      "import type { Decider } from '@chat/eventsourcing';",
      "import { z } from 'zod';",
      "import { a } from './a.js';",
      "import { b } from '../b.js';",
      'export const all = [ApiError, z, a, b] as const;',
      'export type D = Decider<never, never, never>;',
    ].join('\n');
    expect(await boundaryErrors('services/messages/src/domain/moderation/x.ts', `${code}\n`)).toEqual([]);
  });

  it('refuses a service importing another service, by package name (a new one too) or by a path out of its folder', async () => {
    expect(await boundaryErrors('services/notifications/src/service.ts', "import { Dispatcher } from '@chat/webhooks';\nexport const d = Dispatcher;\n")).toEqual([
      expect.stringMatching(/never another service/),
    ]);
    expect(await boundaryErrors('services/messages/src/app/x.ts', "import { c } from '@chat/calls';\nexport const d = c;\n")).toHaveLength(1);
    expect(await boundaryErrors('services/webhooks/src/app/x.ts', "import { a } from '../../../management/src/projections/apps.js';\nexport const d = a;\n")).toHaveLength(1);
    expect(await boundaryErrors('packages/runtime/src/x.ts', "import { m } from '@chat/messages';\nexport const d = m;\n")).toHaveLength(1);
  });

  it("refuses a benchmark importing a service's compiled files, and lets it import the package entry", async () => {
    expect(await boundaryErrors('bench/x.mjs', "import { ModerationPolicy } from '../services/messages/dist/domain/moderation/moderationPolicy.js';\nexport const p = ModerationPolicy;\n")).toEqual([
      expect.stringMatching(/package entry/),
    ]);
    expect(await boundaryErrors('bench/x.mjs', "import { sealReplay } from '../gateway/dist/replaySeal.js';\nexport const s = sealReplay;\n")).toHaveLength(1);
    expect(await boundaryErrors('bench/x.mjs', "import { ModerationPolicy } from '@chat/messages';\nimport { topics } from '../packages/contracts/dist/index.js';\nexport const p = [ModerationPolicy, topics];\n")).toEqual([]);
  });

  it('refuses app importing http, and projections importing app', async () => {
    expect(await boundaryErrors('services/users/src/app/x.ts', "import type { S } from '../http/schemas.js';\nexport type T = S;\n")).toHaveLength(1);
    expect(await boundaryErrors('services/messages/src/app/moderation/x.ts', "import type { S } from '../../http/schemas.js';\nexport type T = S;\n")).toHaveLength(1);
    expect(await boundaryErrors('services/messages/src/projections/x.ts', "import type { A } from '../app/messages.js';\nexport type T = A;\n")).toHaveLength(1);
  });

  it('passes a service file that imports packages and its own lower layers', async () => {
    const code = [
      "import { topics } from '@chat/contracts';",
      "import { OutboundHttp } from '@chat/delivery';",
      "import { docOf } from '../projections/messages.js';",
      "import { view } from '../domain/messageView.js';",
      'export const all = [topics, OutboundHttp, docOf, view] as const;',
    ].join('\n');
    expect(await boundaryErrors('services/messages/src/app/x.ts', `${code}\n`)).toEqual([]);
  });
});
