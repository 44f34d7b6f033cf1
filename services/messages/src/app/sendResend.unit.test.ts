import type { RequestContext } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import type { AppModeration } from '../adapters/moderation/moderationReadModels.js';
import { docOfSent } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import type { KnownUserDoc } from '../projections/users.js';
import { createMessagesApp } from './messages.js';
import type { SendInput } from './messageSending.js';

const user = (uid: string) => ({ kind: 'user', appId: 'app', uid, name: uid, role: 'default', createdAt: 1, deactivated: false, deleted: false, blocked: [] }) as unknown as KnownUserDoc;
const context: RequestContext = { actor: { appId: 'app', keyId: 'k', scope: 'fullAccess', uid: 'alice' }, requestId: 'r' };
const input: SendInput = { sender: 'alice', receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: 'hi' }, muid: 'm-1', mentionedUids: [] };

/** The app over an in-memory runner; the `muid` look-up answers only when the test says so. */
function appWith(earlier: MessageDoc | null) {
  const calls: string[] = [];
  let answerMuid!: () => void;
  const muidAnswered = new Promise<void>((resolve) => (answerMuid = resolve));
  let ids = 0;
  const readModels = {
    findBySenderMuid: async () => {
      calls.push('muid asked');
      await muidAnswered;
      return earlier;
    },
    findFacts: async (): Promise<Facts> => {
      calls.push('facts asked');
      return { users: new Map([['alice', user('alice')], ['bob', user('bob')]]), group: null, memberships: new Map(), scopePermissions: null };
    },
    findMessages: async () => new Map(),
  } as unknown as MessagesReadModels;
  const messageIds = {
    allocate: async (_appId: string, count = 1) => {
      calls.push('ids taken');
      return Array.from({ length: count }, () => String(++ids));
    },
  };
  const moderation = { moderationOf: async () => ({ policy: { isEmpty: true } }) as unknown as AppModeration };
  const runner = new CommandRunner({
    store: new InMemoryCommitStore(),
    publisher: { publish: () => Promise.resolve() },
    readModels: { apply: () => Promise.resolve() },
    logger: { warn: () => undefined, info: () => undefined },
  });
  const app = createMessagesApp({ runner, readModels, ids: messageIds, moderation, clock: () => new Date(5_000) });
  return { app, calls, answerMuid };
}

describe('a send with a muid', () => {
  it('reads its facts while the muid is looked up, and a resend answers the first message without a command', async () => {
    const first = docOfSent('app', { id: '7', conversationId: 'alice_user_bob', sender: 'alice', receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: 'hi' }, muid: 'm-1', sentAt: 4 });
    const { app, calls, answerMuid } = appWith(first);
    const sent = app.sending.send(context, input);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['facts asked', 'muid asked']);
    answerMuid();
    expect(await sent).toMatchObject({ id: '7', muid: 'm-1' });
    expect(calls).not.toContain('ids taken');
  });

  it('a first send goes on once the muid names nothing', async () => {
    const { app, calls, answerMuid } = appWith(null);
    answerMuid();
    expect(await app.sending.send(context, input)).toMatchObject({ id: '1', muid: 'm-1', receiver: 'bob' });
    expect(calls).toEqual(['facts asked', 'muid asked', 'ids taken']);
  });
});
