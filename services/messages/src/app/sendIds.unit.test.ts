import type { RequestContext } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import { describe, expect, it, vi } from 'vitest';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import type { AppModeration } from '../adapters/moderation/moderationReadModels.js';
import type { KnownUserDoc } from '../projections/users.js';
import { createMessagesApp } from './messages.js';
import type { SendInput } from './messageSending.js';

const user = (uid: string) => ({ kind: 'user', appId: 'app', uid, name: uid, role: 'default', createdAt: 1, deactivated: false, deleted: false, blocked: [] }) as unknown as KnownUserDoc;
const context: RequestContext = { actor: { appId: 'app', keyId: 'k', scope: 'fullAccess', uid: 'alice' }, requestId: 'r' };
const input = (text: string): SendInput => ({ sender: 'alice', receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text }, mentionedUids: [] });

describe('message ids of sends queued behind a turn', () => {
  it('are taken once that turn is appended, for every queued send together, and grow in send order', async () => {
    const steps: string[] = [];
    const store = new InMemoryCommitStore();
    const append = store.appendBatch.bind(store);
    vi.spyOn(store, 'appendBatch').mockImplementation(async (batch) => {
      await new Promise(setImmediate);
      steps.push('appended');
      return append(batch);
    });
    let last = 0;
    const ids = {
      allocate: async (_appId: string, count = 1) => {
        steps.push('ids taken');
        return Array.from({ length: count }, () => String(++last));
      },
    };
    const readModels = {
      findBySenderMuid: async () => null,
      findFacts: async (): Promise<Facts> => ({ users: new Map([['alice', user('alice')], ['bob', user('bob')]]), group: null, memberships: new Map(), scopePermissions: null }),
      findMessages: async () => new Map(),
    } as unknown as MessagesReadModels;
    const moderation = { moderationOf: async () => ({ policy: { isEmpty: true } }) as unknown as AppModeration };
    const runner = new CommandRunner({
      store,
      publisher: { publish: () => Promise.resolve() },
      readModels: { apply: () => Promise.resolve() },
      logger: { warn: () => undefined, info: () => undefined },
    });
    const app = createMessagesApp({ runner, readModels, ids, moderation, clock: () => new Date(5_000) });
    const first = app.sending.send(context, input('one'));
    // The first send's turn is appending when the next two reach the stream.
    while (!steps.includes('ids taken')) await new Promise(setImmediate);
    const queued = [app.sending.send(context, input('two')), app.sending.send(context, input('three'))];
    const sent = await Promise.all([first, ...queued]);
    expect(sent.map((message) => [message.id, (message.data as { text: string }).text])).toEqual([['1', 'one'], ['2', 'two'], ['3', 'three']]);
    // Main took the queued sends' ids on arrival, before the first append was acknowledged.
    expect(steps).toEqual(['ids taken', 'appended', 'ids taken', 'ids taken', 'appended']);
  });
});
