import { Kafka, logLevel } from 'kafkajs';
import { topics } from '@chat/contracts';
import { readTopicConfigs } from '@chat/kafka';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createUsers } from './support/groups.js';
import { readBack } from './support/kafka.js';

// The topics the running services created at start keep every event (ADR 0051): a rebuild or a new
// consumer group, which reads from offset 0, finds the whole history however old it is.
describe('event topics are kept for good', () => {
  const kafka = new Kafka({ clientId: 'e2e-retention', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let app: TestApp;

  beforeAll(async () => {
    await admin.connect();
    app = await createApp('topic retention');
    await createUsers(app, 'alice', 'bob');
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it('every service topic has retention.ms=-1, and a message sent through the gateway is read back from offset 0', async () => {
    const sent = await app.call('POST', '/v3/messages', {
      onBehalfOf: 'alice',
      body: { receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: 'kept for good' } },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = String(sent.body.data.id);
    // A new group from the beginning, as `chatctl rebuild` reads.
    const found = await readBack(topics.messages, (event) => JSON.stringify(event).includes('kept for good') && JSON.stringify(event).includes(id));
    expect(found.value).toBeDefined();

    const configs = await readTopicConfigs(admin, Object.values(topics));
    for (const topic of Object.values(topics)) {
      const kept = Object.fromEntries((configs.get(topic) ?? []).filter((e) => ['retention.ms', 'cleanup.policy'].includes(e.configName)).map((e) => [e.configName, e.configValue]));
      expect(kept, topic).toEqual({ 'retention.ms': '-1', 'cleanup.policy': 'delete' });
    }
    // Nothing was ever deleted from the start of the messages topic.
    for (const { low } of await admin.fetchTopicOffsets(topics.messages)) expect(low).toBe('0');
  });
});
