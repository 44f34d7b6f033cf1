import type { EventEnvelope, RequestContext } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import type { AppModeration } from '../adapters/moderation/moderationReadModels.js';
import type { KnownUserDoc } from '../projections/users.js';
import { createMessagesApp } from './messages.js';
import type { SendInput } from './messageSending.js';

const user = (uid: string) => ({ kind: 'user', appId: 'app', uid, name: uid, role: 'default', createdAt: 1, deactivated: false, deleted: false, blocked: [] }) as unknown as KnownUserDoc;
const context: RequestContext = { actor: { appId: 'app', keyId: 'k', scope: 'fullAccess', uid: 'alice' }, requestId: 'r' };
const text: SendInput = { sender: 'alice', receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: 'hi' }, mentionedUids: [] };
const call: SendInput = { ...text, category: 'call', type: 'audio', data: { action: 'initiated', sessionId: 's1' } };

/** The app over an in-memory runner whose Kafka takes each produce only when the test lets it. */
function harness() {
  let ids = 0;
  const produced: EventEnvelope[] = [];
  let release!: () => void;
  const kafkaBack = new Promise<void>((resolve) => (release = resolve));
  const readModels = {
    findFacts: async (): Promise<Facts> => ({ users: new Map([['alice', user('alice')], ['bob', user('bob')]]), group: null, memberships: new Map(), scopePermissions: null }),
    findMessages: async () => new Map(),
  } as unknown as MessagesReadModels;
  const messageIds = { allocate: async (_appId: string, count: number) => Array.from({ length: count }, () => String(++ids)) };
  const moderation = { moderationOf: async () => ({ policy: { isEmpty: true } }) as unknown as AppModeration };
  const runner = new CommandRunner({
    store: new InMemoryCommitStore(),
    publisher: {
      publish: async (events) => {
        await kafkaBack;
        produced.push(...events);
      },
    },
    readModels: { apply: () => Promise.resolve() },
    logger: { warn: () => undefined, info: () => undefined },
  });
  return { app: createMessagesApp({ runner, readModels, ids: messageIds, moderation, clock: () => new Date(5_000) }).sending, produced, release };
}

const settled = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 50))]);

describe('a call message', () => {
  it('answers once it is on Kafka, where the calls service reads it; other sends do not wait for Kafka', async () => {
    const { app, produced, release } = harness();
    expect(await settled(app.send(context, text))).toBe(true);
    expect(produced).toEqual([]);
    const calling = app.send(context, call);
    expect(await settled(calling)).toBe(false);
    release();
    expect(await calling).toMatchObject({ category: 'call', data: { action: 'initiated', sessionId: 's1' } });
    expect(produced.map((e) => (e.data as { category: string }).category)).toEqual(['message', 'call']);
  });
});
