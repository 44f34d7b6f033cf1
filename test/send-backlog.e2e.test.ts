import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { sendMessage, text } from './support/messages.js';

const TOPIC = 'chat.messages.events';
/** The services' default floor (BACKLOG_MIN_LAG): a smaller backlog never sheds. */
const MIN_LAG = 1_000;

let app: TestApp;
let admin: Admin;

beforeAll(async () => {
  app = await createApp('send backlog');
  await Promise.all(['ada', 'bea'].map((uid) => createUser(app, uid)));
  admin = new Kafka({ clientId: 'e2e-backlog', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin.disconnect();
});

/** This run's database suffix, read off a consumer group of the messages service (`<purpose>.chat_messages<suffix>`). */
async function deploymentSuffix(): Promise<string> {
  const { groups } = await admin.listGroups();
  for (const { groupId } of groups) {
    const found = /\.chat_messages(_[a-z0-9]+)?$/.exec(groupId);
    if (found) return found[1] ?? '';
  }
  throw new Error(`no consumer group of the messages service among ${groups.map((g) => g.groupId).join(', ')}`);
}

/** Imports `count` one-on-one messages, 50 a request (the import's limit), four requests at a time. */
async function importMessages(count: number, tag: string): Promise<void> {
  const sentAt = Math.floor(Date.now() / 1000) - 3_600;
  const batches: Array<Record<string, unknown>> = [];
  for (let start = 0; start < count; start += 50) {
    const messages: Record<string, unknown> = {};
    for (let i = start; i < Math.min(count, start + 50); i += 1) {
      messages[`${tag}-${i}`] = { muid: `${tag}-${i}`, sender: 'ada', receiverType: 'user', receiver: 'bea', category: 'message', type: 'text', data: { text: `old ${i}` }, sentAt };
    }
    batches.push(messages);
  }
  const importNext = async (): Promise<void> => {
    for (let messages = batches.shift(); messages; messages = batches.shift()) {
      const imported = await app.call('POST', '/v3/data_import/messages', { body: { messages } });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    }
  };
  await Promise.all([importNext(), importNext(), importNext(), importNext()]);
}

describe('the send path refuses writes while the consumers fall behind (ADR 0054)', () => {
  it('a stalled consumer group of the deployment makes sends answer 503 with Retry-After; reads still pass; when it is gone, sends pass again', async () => {
    // A consumer group named like the deployment's own that applies nothing from now on.
    const stalled = `e2e-stalled.chat_probe${await deploymentSuffix()}`;
    const ends = await admin.fetchTopicOffsets(TOPIC);
    await admin.setOffsets({ groupId: stalled, topic: TOPIC, partitions: ends.map(({ partition, high }) => ({ partition, offset: high })) });
    try {
      // More than the floor behind, and still growing while we send.
      await importMessages(MIN_LAG + 200, `backlog-${Date.now().toString(36)}`);
      let refused: ApiResponse | null = null;
      const deadline = Date.now() + 30_000;
      for (let i = 0; !refused && Date.now() < deadline; i += 1) {
        const sent = await sendMessage(app, 'ada', text('bea', `while behind ${i}`));
        if (sent.status === 503) refused = sent;
        else expect(sent.status, JSON.stringify(sent.body)).toBe(200);
        await sleep(100);
      }
      if (!refused) throw new Error('no send was refused within 30 s of the group stalling');
      expect(refused.body.error).toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE', message: expect.stringContaining('consumers are behind') });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(10);

      // A read of the same service still answers while writes are refused.
      const read = await app.call('GET', '/v3/users/bea/messages?limit=1', { onBehalfOf: 'ada' });
      expect(read.status, JSON.stringify(read.body)).toBe(200);
    } finally {
      await admin.deleteGroups([stalled]);
    }
    // The group is gone: within a few readings of the gate, sends are taken again.
    const resumed = await eventually(() => sendMessage(app, 'ada', text('bea', 'caught up')), (r) => r.status === 200, 15_000);
    expect(resumed.status).toBe(200);
  }, 90_000);

  it('a group of another deployment or team, however far behind, is not counted', async () => {
    const foreign = `analytics-team-${Date.now().toString(36)}`;
    const ends = await admin.fetchTopicOffsets(TOPIC);
    await admin.setOffsets({ groupId: foreign, topic: TOPIC, partitions: ends.map(({ partition }) => ({ partition, offset: '0' })) });
    try {
      // From offset 0 it is the whole topic behind (the first test alone put more than the floor there).
      for (let i = 0; i < 30; i += 1) {
        const sent = await sendMessage(app, 'ada', text('bea', `not ours ${i}`));
        expect(sent.status, JSON.stringify(sent.body)).toBe(200);
        await sleep(100);
      }
    } finally {
      await admin.deleteGroups([foreign]);
    }
  }, 60_000);
});
