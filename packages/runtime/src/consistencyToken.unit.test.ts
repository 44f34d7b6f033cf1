import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consistencyHeaders, decodeConsistencyToken } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { consistencyTokens, recordProducedPositions } from '@chat/http';
import { describe, expect, it } from 'vitest';

type Noted = DomainEvent<'Noted', { text: string }>;
const notes: Decider<{ count: number }, { text: string }, Noted> = {
  initialState: () => ({ count: 0 }),
  decide: (command) => [{ type: 'Noted', data: { text: command.text } }],
  evolve: (state) => ({ count: state.count + 1 }),
  snapshotVersion: 1,
};
const metadata = { appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const }, correlationId: 'c', now: new Date(0) };

// The runner as the event pipeline wires it, behind the middleware every service app installs.
describe('the consistency token of a write', () => {
  it('names the versions each request’s own commands produced, even when their lane decided them in one turn', async () => {
    const runner = new CommandRunner({
      store: new InMemoryCommitStore(),
      publisher: { publish: () => Promise.resolve() },
      readModels: { apply: () => Promise.resolve() },
      logger: { warn: () => undefined, info: () => undefined },
      onCommitted: recordProducedPositions,
    });
    const server = createServer((req, res) => {
      consistencyTokens(req as never, res as never, () => {
        if (req.method !== 'POST') {
          res.end('{}');
          return;
        }
        void runner.run({ decider: notes, streamId: 's', command: { text: 'x' }, metadata, batchable: true }).then((result) => {
          res.end(JSON.stringify({ version: result.version }));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answers = await Promise.all([1, 2, 3].map(() => fetch(base, { method: 'POST' })));
      const versions: number[] = [];
      for (const answer of answers) {
        const { version } = (await answer.json()) as { version: number };
        versions.push(version);
        expect(decodeConsistencyToken(answer.headers.get(consistencyHeaders.token)!)).toEqual(new Map([['s', version]]));
      }
      expect(versions.sort()).toEqual([1, 2, 3]);
      const read = await fetch(base);
      expect(read.headers.get(consistencyHeaders.token)).toBeNull();
    } finally {
      server.close();
    }
  });
});
