import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { topics } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { KafkaEventPublisher, consumerGroupFor, createKafka, ensureTopics } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import type { MongoConnection } from '@chat/mongo';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { WebhookReadModels, createWebhooksService, loadConfig } from '@chat/webhooks';
import { WebhookReceiver } from './support/webhookReceiver.js';
import { SecretBox, newWebhookSecret } from '@chat/delivery';

/**
 * The delivery process stopped while deliveries wait for a receiver that is down, and a new one
 * started on the same database: it resumes them from the store, in each conversation's order.
 * The app's webhook reaches this process's read models directly (not through management's topic),
 * so the stack's own delivery process, reading the same topics, has no webhook for it.
 */
describe('webhook deliveries survive a restart of the delivery process', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const appId = `restart${run}`;
  const key = randomBytes(32).toString('hex');
  const env = {
    ...process.env,
    MONGO_DB: `webhooks_restart_${run}`,
    WEBHOOK_SECRETS_KEY: key,
    TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8',
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_RETRY_MAX_MS: '200',
  };
  const config = loadConfig(env);
  const kafka = createKafka('webhooks-restart-test', config.kafkaBrokers, logger, config.kafkaSecurity);
  const receiver = new WebhookReceiver();
  let mongo: MongoConnection;

  afterAll(async () => {
    await receiver.stop();
    await mongo?.close();
  });

  const envelope = (type: string, streamId: string, version: number, data: Record<string, unknown>): EventEnvelope => ({
    ...testEnvelope(type, streamId, version, data, Date.now()),
    id: `${run}-${type}-${streamId}-${version}`,
    appId,
  });

  it('resumes every pending delivery after a restart, in order per conversation', async () => {
    mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'webhooks-restart-test');
    await receiver.start();
    await receiver.stop(); // down: its port refuses connections

    const readModels = new WebhookReadModels(mongo.db);
    const sealedSecret = new SecretBox(key).seal(newWebhookSecret());
    const config0 = { name: 'r', url: receiver.url, useBasicAuth: false, enabled: true, retryOnFailure: true };
    await readModels.apply([
      envelope('AppCreated', `app:${appId}`, 1, { appId, name: 'restart', region: 'us', createdAt: 1 }),
      envelope('WebhookCreated', `app:${appId}`, 2, { ...config0, appId, webhookId: 'w', sealedSecret, at: 1 }),
      envelope('WebhookTriggersAdded', `app:${appId}`, 3, { appId, webhookId: 'w', triggers: ['message_sent'], changed: ['message_sent'], at: 1 }),
    ]);

    // This process's consumer group is new and would read every topic from its start. It starts at the
    // topics' ends instead, so it reads only this test's messages (the file also runs on a stack of its
    // own, the `fresh` project: inside a whole suite's run it missed its deadline).
    const consumed = [topics.management, topics.messages, topics.conversations, topics.users, topics.webhooks];
    await ensureTopics(kafka, consumed);
    const admin = kafka.admin();
    await admin.connect();
    for (const topic of consumed) await admin.resetOffsets({ groupId: consumerGroupFor('webhooks.deliveries', config.mongoDb), topic, earliest: false });
    await admin.disconnect();

    const first = createWebhooksService(config, { db: mongo.db, kafka, logger });
    await first.start();
    const publisher = new KafkaEventPublisher(kafka, topics.messages);
    await publisher.connect();
    const conversations = ['a_user_b', 'a_user_c', 'b_user_c'];
    const messages: EventEnvelope[] = [];
    for (let n = 1; n <= 10; n++) {
      for (const conversationId of conversations) {
        const [sender, , receiverUid] = conversationId.split('_');
        messages.push(
          envelope('MessageSent', `messages:${appId}:${conversationId}`, n, {
            id: `${conversationId}-${n}`,
            conversationId,
            sender,
            receiver: receiverUid,
            receiverType: 'user',
            category: 'message',
            type: 'text',
            data: { text: `#${n}` },
            sentAt: n,
          }),
        );
      }
    }
    await publisher.publish(messages);
    await publisher.disconnect();

    const deliveries = mongo.db.collection('deliveries');
    const deadline = Date.now() + 60_000;
    const queuedAndTried = async () =>
      (await deliveries.countDocuments({ appId })) === 30 && (await deliveries.countDocuments({ appId, attempts: { $gte: 1 } })) >= 3;
    while (!(await queuedAndTried()) && Date.now() < deadline) await sleep(50);
    expect(await deliveries.countDocuments({ appId })).toBe(30);
    expect(await deliveries.countDocuments({ appId, status: 'pending' })).toBe(30);
    await first.stop();

    await receiver.start();
    await sleep(300);
    expect(receiver.received).toHaveLength(0); // nobody is delivering

    const second = createWebhooksService(config, { db: mongo.db, kafka, logger });
    await second.start();
    try {
      const until = Date.now() + 60_000;
      while (new Set(receiver.received.map((r) => r.headers['webhook-id'])).size < 30 && Date.now() < until) await sleep(50);
      for (const conversationId of conversations) {
        const order: string[] = [];
        for (const r of receiver.received) {
          const id = r.json.data.message.id as string;
          if (r.json.data.message.conversationId === conversationId && !order.includes(id)) order.push(id);
        }
        expect(order).toEqual(Array.from({ length: 10 }, (_, i) => `${conversationId}-${i + 1}`));
      }
      // The receiver answers before the attempt is recorded: the log catches up a moment later.
      while ((await deliveries.countDocuments({ appId, status: 'delivered' })) < 30 && Date.now() < until) await sleep(50);
      expect(await deliveries.countDocuments({ appId, status: 'delivered' })).toBe(30);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
