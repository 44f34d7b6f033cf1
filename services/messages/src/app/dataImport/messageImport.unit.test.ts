import type { EventEnvelope, MessageSent, RequestContext } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import type { Facts } from '../../adapters/readModels.js';
import { parseImportedMessage } from '../../http/dataImport/importSchemas.js';
import type { KnownUserDoc } from '../../projections/users.js';
import { MessageImport } from './messageImport.js';

const appId = 'app1';
const context: RequestContext = { actor: { appId, keyId: 'key1', scope: 'fullAccess' }, requestId: 'r1' };
const sentAt = Math.floor(Date.now() / 1000) - 3_600;

function user(uid: string): KnownUserDoc {
  return { kind: 'user', appId, uid, name: uid, deactivated: false, deleted: false, blocked: [] } as unknown as KnownUserDoc;
}

/**
 * The facts as this service's projection of the users' events has them: `projected` users are there,
 * `arriving` ones reach it only after a few reads (another service imported them a moment ago).
 */
function factsProjection(projected: readonly string[], arriving: readonly string[], readsUntilArrival: number) {
  const facts = { reads: 0 };
  const readModels = {
    findImported: () => Promise.resolve(new Map()),
    findFacts: (_appId: string, request: { users: readonly string[] }): Promise<Facts> => {
      facts.reads += 1;
      const visible = new Set([...projected, ...(facts.reads > readsUntilArrival ? arriving : [])]);
      const users = new Map(request.users.filter((uid) => visible.has(uid)).map((uid) => [uid, user(uid)] as const));
      return Promise.resolve({ users, group: null, memberships: new Map(), scopePermissions: null });
    },
  };
  return { facts, readModels };
}

/** Appends as the runner would: the command's messages become `MessageSent` events with the given ids. */
const appender = {
  appendWithIds: async (_context: RequestContext, conversationId: string, count: number, commandFor: (ids: string[], attempt: number) => unknown) => {
    const ids = Array.from({ length: count }, (_, i) => String(100 + i));
    const command = (await commandFor(ids, 1)) as { messages: MessageSent[] };
    return command.messages.map((m, i): EventEnvelope => testEnvelope('MessageSent', `messages:${appId}:${conversationId}`, i + 1, { ...m }));
  },
};

function records(raw: Record<string, Record<string, unknown>>) {
  return Object.entries(raw).map(([key, value]) => ({ key, value: parseImportedMessage(key, value, sentAt + 3_600) }));
}

describe('MessageImport', () => {
  it('waits for senders and receivers imported a moment ago through the users service', async () => {
    const { facts, readModels } = factsProjection([], ['mia', 'max'], 2);
    const results = await new MessageImport(appender, readModels).importAll(
      context,
      records({ m1: { muid: 'm1', sender: 'mia', receiverType: 'user', receiver: 'max', type: 'text', data: { text: 'hi' }, sentAt } }),
    );
    expect(results.get('m1')).toMatchObject({ ok: { muid: 'm1', sender: 'mia', receiver: 'max', sentAt } });
    expect(facts.reads).toBe(3);
  });

  it('refuses a sender that never existed after one bounded wait, and accepts its neighbours', async () => {
    const { facts, readModels } = factsProjection(['mia', 'max'], [], 0);
    const started = Date.now();
    const results = await new MessageImport(appender, readModels).importAll(
      context,
      records({
        m1: { muid: 'm1', sender: 'ghost', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'who' }, sentAt },
        m2: { muid: 'm2', sender: 'max', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'hi' }, sentAt },
      }),
    );
    expect(results.get('m1')).toMatchObject({ error: { code: 'ERR_UID_NOT_FOUND' } });
    expect(results.get('m2')).toMatchObject({ ok: { muid: 'm2', sender: 'max' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(facts.reads).toBeGreaterThan(2);
  });
});
