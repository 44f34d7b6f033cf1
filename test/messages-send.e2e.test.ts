import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { inject } from 'vitest';
import { readBack } from './support/kafka.js';
import { done, sendMessage, text } from './support/messages.js';

let app: TestApp;
let other: TestApp;

/** Reads chat.messages.events from the beginning until `count` events match (first arrival of each offset). */
async function collectEvents(match: (value: Record<string, unknown>) => boolean, count: number, timeoutMs = 20_000): Promise<Record<string, unknown>[]> {
  const kafka = new Kafka({ clientId: 'e2e-burst', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `e2e-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: 'chat.messages.events', fromBeginning: true });
    const found: Record<string, unknown>[] = [];
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${found.length} of ${count} events within ${timeoutMs} ms`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const value = JSON.parse(message.value?.toString('utf8') ?? 'null') as Record<string, unknown>;
          if (value && match(value)) found.push(value);
          if (found.length >= count) {
            clearTimeout(timer);
            resolve(found);
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

beforeAll(async () => {
  [app, other] = await Promise.all([createApp('messages send'), createApp('other tenant')]);
  for (const uid of ['alice', 'bob', 'carol', 'dave']) await createUser(app, uid, uid.toUpperCase());
});

describe('POST /v3/messages to a user', () => {
  it('sends a text message with metadata and tags, in CometChat’s shape, and publishes MessageSent', async () => {
    const sent = await sendMessage(app, 'alice', text('bob', 'hello bob', 'user', { tags: ['t1'], data: { text: 'hello bob', metadata: { 'a.b': 1, $c: [[1]] } } }));
    expect(sent.status).toBe(200);
    const m = sent.body.data;
    expect(m).toMatchObject({
      conversationId: 'alice_user_bob',
      sender: 'alice',
      receiver: 'bob',
      receiverType: 'user',
      category: 'message',
      type: 'text',
      tags: ['t1'],
      data: {
        text: 'hello bob',
        metadata: { 'a.b': 1, $c: [[1]] },
        entities: {
          sender: { entityType: 'user', entity: { uid: 'alice', name: 'ALICE', status: 'offline' } },
          receiver: { entityType: 'user', entity: { uid: 'bob', name: 'BOB', conversationId: 'alice_user_bob' } },
        },
      },
    });
    expect(m.id).toMatch(/^[1-9][0-9]*$/);
    expect(m.updatedAt).toBe(m.sentAt);
    const published = await readBack('chat.messages.events', (v) => v['type'] === 'MessageSent' && (v['data'] as any).id === m.id && v['appId'] === app.appId);
    expect(published.value['streamId']).toBe(`messages:${app.appId}:alice_user_bob`);

    const got = await app.call('GET', `/v3/messages/${m.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(m);
  });

  it('ids grow per app, also under concurrent sends', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => sendMessage(app, i % 2 ? 'alice' : 'carol', text(i % 3 ? 'bob' : 'dave', `n${i}`))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = results.map((r) => Number(r.body.data.id));
    expect(new Set(ids).size).toBe(12);
    const listed = await app.call('GET', '/v3/messages?limit=1000');
    const listedIds = listed.body.data.map((m: any) => Number(m.id));
    expect(listedIds).toEqual([...listedIds].sort((a, b) => a - b));
    for (const id of ids) expect(listedIds).toContain(id);
  });

  it('a burst of concurrent sends reaches Kafka complete, each conversation’s events in version order', async () => {
    const pairs = [['alice', 'bob'], ['carol', 'dave'], ['bob', 'carol']] as const;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => sendMessage(app, pairs[i % 3]![0], text(pairs[i % 3]![1], `burst ${i}`))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = new Set(results.map((r) => String(r.body.data.id)));
    const arrived = await collectEvents((v) => v['type'] === 'MessageSent' && v['appId'] === app.appId && ids.has(String((v['data'] as any).id)), ids.size);
    expect(new Set(arrived.map((v) => String((v['data'] as any).id)))).toEqual(ids);
    // One stream's events share a partition: they arrive as they were produced, versions rising.
    const versions = new Map<string, number[]>();
    for (const v of arrived) versions.set(String(v['streamId']), [...(versions.get(String(v['streamId'])) ?? []), Number(v['version'])]);
    expect(versions.size).toBe(3);
    for (const list of versions.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
  });

  it('sends media by URL and custom messages', async () => {
    const image = await sendMessage(app, 'alice', {
      receiver: 'bob',
      receiverType: 'user',
      category: 'message',
      type: 'image',
      data: { attachments: [{ url: 'https://example.com/a.png', name: 'a.png', mimeType: 'image/png', extension: 'png', size: '120' }] },
    });
    expect(image.status).toBe(200);
    expect(image.body.data).toMatchObject({ type: 'image', data: { attachments: [{ url: 'https://example.com/a.png' }] } });
    const file = await sendMessage(app, 'alice', { receiver: 'bob', receiverType: 'user', type: 'file', data: { url: 'https://example.com/f.pdf' } });
    expect(file.status).toBe(200);
    const custom = await sendMessage(app, 'alice', {
      receiver: 'bob',
      receiverType: 'user',
      category: 'custom',
      type: 'location',
      data: { customData: { lat: 1.5, lng: 2 } },
    });
    expect(custom.status).toBe(200);
    expect(custom.body.data).toMatchObject({ category: 'custom', type: 'location', data: { customData: { lat: 1.5, lng: 2 } } });
    const onlyMedia = await app.call('GET', '/v3/messages?hasAttachments=true&limit=1000');
    expect(onlyMedia.body.data.map((m: any) => m.id).sort()).toEqual([image.body.data.id, file.body.data.id].sort());
  });

  it('records mentions (mentionedUsers and <@uid:…> in the text) and a quoted message', async () => {
    const first = await sendMessage(app, 'alice', text('bob', 'first'));
    const sent = await sendMessage(app, 'alice', {
      ...text('bob', 'hi <@uid:carol> and dave'),
      mentionedUsers: ['dave', 'nobody'],
      quotedMessageId: first.body.data.id,
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data.quotedMessageId).toBe(first.body.data.id);
    expect(sent.body.data.mentionedUids.sort()).toEqual(['carol', 'dave']);
    expect(Object.keys(sent.body.data.data.mentions).sort()).toEqual(['carol', 'dave']);
    expect(sent.body.data.mentionedUsers.map((u: any) => u.uid).sort()).toEqual(['carol', 'dave']);
    const mentions = await app.call('GET', '/v3/messages?hasMentions=true');
    expect(mentions.body.data.map((m: any) => m.id)).toEqual([sent.body.data.id]);

    const quotingElsewhere = await sendMessage(app, 'carol', { ...text('dave', 'x'), quotedMessageId: first.body.data.id });
    expect(quotingElsewhere.status).toBe(404);
    expect(quotingElsewhere.body.error.code).toBe('ERR_MESSAGE_ID_NOT_FOUND');
  });
});

describe('refused sends change nothing', () => {
  async function countAll(): Promise<number> {
    return (await app.call('GET', '/v3/messages?limit=1000')).body.data.length;
  }

  it.each([
    ['no body object', [1, 2], 400, 'ERR_INVALID_MESSAGE_DATA'],
    ['no receiver', { receiverType: 'user', data: { text: 'x' } }, 400, 'ERR_EMPTY_RECEIVER'],
    ['receiver not a string', { receiver: 5, receiverType: 'user', data: { text: 'x' } }, 400, 'ERR_EMPTY_RECEIVER'],
    ['bad receiverType', { receiver: 'bob', receiverType: 'room', data: { text: 'x' } }, 400, 'ERR_INVALID_RECEIVER_TYPE'],
    ['bad category', { receiver: 'bob', receiverType: 'user', category: 'poll', data: { text: 'x' } }, 400, 'ERR_INVALID_MESSAGE_CATEGORY'],
    ['bad type', { receiver: 'bob', receiverType: 'user', type: 'sticker', data: { text: 'x' } }, 400, 'ERR_INVALID_MESSAGE_TYPE'],
    ['custom without type', { receiver: 'bob', receiverType: 'user', category: 'custom', data: { customData: {} } }, 400, 'ERR_EMPTY_MESSAGE_TYPE'],
    ['no data', { receiver: 'bob', receiverType: 'user' }, 400, 'ERR_INVALID_MESSAGE_DATA'],
    ['empty text', { receiver: 'bob', receiverType: 'user', data: { text: '' } }, 400, 'ERR_EMPTY_MESSAGE_TEXT'],
    ['text not a string', { receiver: 'bob', receiverType: 'user', data: { text: 42 } }, 400, 'ERR_INVALID_MESSAGE_TEXT'],
    ['metadata not an object', { receiver: 'bob', receiverType: 'user', data: { text: 'x', metadata: 'm' } }, 400, 'ERR_INVALID_METADATA'],
    ['media without file', { receiver: 'bob', receiverType: 'user', type: 'image', data: {} }, 400, 'ERR_EMPTY_MESSAGE_FILE'],
    ['attachment without url', { receiver: 'bob', receiverType: 'user', type: 'video', data: { attachments: [{ name: 'v' }] } }, 400, 'ERR_INVALID_MEDIA_MESSAGE'],
    ['custom without customData', { receiver: 'bob', receiverType: 'user', category: 'custom', type: 'x', data: {} }, 400, 'ERR_EMPTY_CUSTOM_DATA'],
    ['customData not an object', { receiver: 'bob', receiverType: 'user', category: 'custom', type: 'x', data: { customData: 'no' } }, 400, 'ERR_INVALID_CUSTOM_DATA'],
    ['too many tags', { ...text('bob', 'x'), tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }, 400, 'ERR_BAD_REQUEST'],
    ['oversized text', text('bob', 'x'.repeat(70_000)), 413, 'ERR_PAYLOAD_TOO_LARGE'],
    ['oversized metadata', { receiver: 'bob', receiverType: 'user', data: { text: 'x', metadata: { blob: 'y'.repeat(66_000) } } }, 413, 'ERR_PAYLOAD_TOO_LARGE'],
    ['unknown receiver', text('nobody', 'x'), 404, 'ERR_UID_NOT_FOUND'],
    ['to self', text('alice', 'x'), 400, 'ERR_MESSAGE_TO_SELF'],
    ['unknown guid', text('no-such-group', 'x', 'group'), 404, 'ERR_GUID_NOT_FOUND'],
    ['unknown quoted message', { ...text('bob', 'x'), quotedMessageId: '999999' }, 404, 'ERR_MESSAGE_ID_NOT_FOUND'],
    ['multiple receivers', { ...text('bob', 'x'), multipleReceivers: { uids: ['carol'] } }, 400, 'ERR_BAD_REQUEST'],
    ['an empty tag', { ...text('bob', 'x'), tags: [''] }, 400, 'ERR_BAD_REQUEST'],
    ['muid not a string', { ...text('bob', 'x'), muid: 5 }, 400, 'ERR_BAD_REQUEST'],
    ['quotedMessageId not an id', { ...text('bob', 'x'), quotedMessageId: 'abc' }, 400, 'ERR_INVALID_MESSAGE_ID'],
    ['mentionedUsers not a list', { ...text('bob', 'x'), mentionedUsers: 'carol' }, 400, 'ERR_BAD_REQUEST'],
    ['a receiver over 100 characters', text('b'.repeat(101), 'x'), 400, 'ERR_EMPTY_RECEIVER'],
  ])('refuses %s', async (_name, body, status, code) => {
    const before = await countAll();
    const response = await sendMessage(app, 'alice', body as Record<string, unknown>);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(await countAll()).toBe(before);
  });

  it('malformed JSON, an unknown sender, the authOnly key and another app’s key are refused', async () => {
    const malformed = await app.call('POST', '/v3/messages', { onBehalfOf: 'alice', rawBody: '{"receiver": "bob",' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('ERR_BAD_REQUEST');
    const ghost = await sendMessage(app, 'ghost', text('bob', 'x'));
    expect(ghost.status).toBe(404);
    expect(ghost.body.error.code).toBe('ERR_UID_NOT_FOUND');
    const authOnly = await app.call('POST', '/v3/messages', { apiKey: app.authOnlyKey, onBehalfOf: 'alice', body: text('bob', 'x') });
    expect(authOnly.status).toBe(403);
    const foreignKey = await call('POST', '/v3/messages', { appId: app.appId, apiKey: other.fullAccessKey, onBehalfOf: 'alice', body: text('bob', 'x') });
    expect(foreignKey.status).toBe(401);
    // Another tenant's users are unknown here, and this tenant's messages are invisible there.
    const crossTenant = await other.call('POST', '/v3/messages', { onBehalfOf: 'alice', body: text('bob', 'x') });
    expect(crossTenant.status).toBe(404);
    const sent = await sendMessage(app, 'alice', text('bob', 'mine'));
    const peek = await other.call('GET', `/v3/messages/${sent.body.data.id}`);
    expect(peek.status).toBe(404);
    expect(peek.body.error.code).toBe('ERR_MESSAGE_ID_NOT_FOUND');
  });
});

describe('blocked and deactivated users', () => {
  it('a user who blocked the sender, or whom the sender blocked, receives nothing until unblocked', async () => {
    await createUser(app, 'erin');
    await createUser(app, 'frank');
    expect((await sendMessage(app, 'erin', text('frank', 'before'))).status).toBe(200);
    await done(app.call('POST', '/v3/users/frank/blockedusers', { body: { blockedUids: ['erin'] } }));
    const refused = await eventually(() => sendMessage(app, 'erin', text('frank', 'x')), (r) => r.status === 403);
    expect(refused.body.error.code).toBe('ERR_BLOCKED_SENDER');
    const reverse = await sendMessage(app, 'frank', text('erin', 'x'));
    expect(reverse.status).toBe(403);
    expect(reverse.body.error.code).toBe('ERR_BLOCKED_RECEIVER');
    await done(app.call('DELETE', '/v3/users/frank/blockedusers', { body: { blockedUids: ['erin'] } }));
    const again = await eventually(() => sendMessage(app, 'erin', text('frank', 'after')), (r) => r.status === 200);
    expect(again.status).toBe(200);
  });

  it('a deactivated user neither sends nor receives; reactivated, both work again', async () => {
    await createUser(app, 'gina');
    const deactivated = await done(app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['gina'] } }));
    expect(deactivated.body.data.deactivatedUids).toEqual(['gina']);
    const toGina = await eventually(() => sendMessage(app, 'alice', text('gina', 'x')), (r) => r.status === 404);
    expect(toGina.body.error.code).toBe('ERR_UID_NOT_FOUND');
    const fromGina = await sendMessage(app, 'gina', text('alice', 'x'));
    expect(fromGina.status).toBe(404);
    const reactivated = await done(app.call('PUT', '/v3/users', { body: { uidsToActivate: ['gina'] } }));
    expect(reactivated.body.data.nonDeactivatedUids).toEqual(['gina']);
    const back = await eventually(() => sendMessage(app, 'gina', text('alice', 'back')), (r) => r.status === 200);
    expect(back.status).toBe(200);
  });
});

describe('deleted users', () => {
  it('a deleted user cannot send or receive; a permanent deletion erases their messages', async () => {
    await createUser(app, 'hank');
    await createUser(app, 'ivy');
    const toIvy = await sendMessage(app, 'hank', text('ivy', 'to be erased'));
    const fromIvy = await sendMessage(app, 'ivy', text('hank', 'also erased'));
    const kept = await sendMessage(app, 'ivy', text('alice', 'kept'));
    await done(app.call('DELETE', '/v3/users/hank', { body: { permanent: true } }));
    const refused = await eventually(() => sendMessage(app, 'ivy', text('hank', 'x')), (r) => r.status === 404);
    expect(refused.body.error.code).toBe('ERR_UID_NOT_FOUND');
    expect((await sendMessage(app, 'hank', text('ivy', 'x'))).status).toBe(404);
    for (const id of [toIvy.body.data.id, fromIvy.body.data.id]) {
      const gone = await eventually(() => app.call('GET', `/v3/messages/${id}`), (r) => r.status === 404);
      expect(gone.body.error.code).toBe('ERR_MESSAGE_ID_NOT_FOUND');
    }
    expect((await app.call('GET', `/v3/messages/${kept.body.data.id}`)).status).toBe(200);
  });
});

describe('POST /v3/bots/{uid}/messages', () => {
  it('sends as the bot uid, ignoring onBehalfOf; an unknown bot is refused', async () => {
    await createUser(app, 'helper-bot', 'Helper');
    const sent = await app.call('POST', '/v3/bots/helper-bot/messages', { onBehalfOf: 'alice', body: text('bob', 'beep') });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ sender: 'helper-bot', receiver: 'bob', conversationId: 'bob_user_helper-bot' });
    const unknown = await app.call('POST', '/v3/bots/no-bot/messages', { body: text('bob', 'beep') });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ERR_UID_NOT_FOUND');
  });
});
