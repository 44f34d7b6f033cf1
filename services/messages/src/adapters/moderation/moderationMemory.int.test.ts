import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CommandRunner } from '@chat/eventsourcing';
import { EventWatch, KafkaEventPublisher, createKafka, ensureTopics, loadKafkaSecurity } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCredentials } from '../../app/agents/agentCredentials.js';
import { ModerationSettingsApp } from '../../app/moderation/moderationSettings.js';
import { ModerationReadModels } from './moderationReadModels.js';
import { MessagesReadModels } from '../readModels.js';
import { SecretBox } from '@chat/delivery';

// Two replicas of the messages service over one real FerretDB and Kafka: replica A changes a rule
// (its command path: store, own read models, Kafka); replica B, which has the old settings in memory
// and projects nothing itself, must judge by the new rule within a second, through its event watch alone.
describe('moderation settings reach every replica within a second', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const topic = `test.moderation.${run}`;
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const db = client.db(`moderation_memory_${run}`);
  const kafka = createKafka('moderation-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), logger, loadKafkaSecurity(process.env));
  const publisher = new KafkaEventPublisher(kafka, topic);
  const watch = new EventWatch(kafka, { purpose: `moderation-test-${run}`, topics: [topic], startFromGroup: `moderation-test-projection-${run}`, onEvents: (events) => replicaB.observe(events), logger });
  const replicaB = new ModerationReadModels(db);

  beforeAll(async () => {
    await client.connect();
    await ensureTopics(kafka, [topic], 1);
    await publisher.connect();
    await watch.start();
  });
  afterAll(async () => {
    await watch.stop();
    await publisher.disconnect();
    await db.dropDatabase();
    await client.close();
  });

  it('replica B blocks by a rule replica A just created, and stops when A disables it', async () => {
    const moderationA = new ModerationReadModels(db);
    const readModels = new MessagesReadModels(db);
    const runner = new CommandRunner({
      store: new MongoCommitStore(db),
      logger,
      publisher,
      readModels: { apply: (events) => moderationA.apply(events) },
    });
    await runner.start();
    const settingsA = new ModerationSettingsApp({ runner, readModels, moderation: moderationA, credentials: new AgentCredentials(new SecretBox('ab'.repeat(32))) });
    const context = { actor: { appId: 'app1', keyId: 'k', scope: 'fullAccess' as const }, requestId: 'r' };
    const blocksOnB = async () => (await replicaB.moderationOf('app1')).policy.judge('a zorblax here').block !== null;

    expect(await blocksOnB()).toBe(false); // B now remembers "no rules"
    await settingsA.save(context, 'keywordList', 'create', 'words', { name: 'words', category: 'word', searchTerms: ['zorblax'] });
    await settingsA.save(context, 'rule', 'create', 'r', {
      name: 'r',
      action: ['blockMessage'],
      conditions: [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'word', isKeywordsReferencePresent: true, isMediaPresent: false, value: ['words'] }],
    });
    const waitFor = async (expected: boolean) => {
      const started = Date.now();
      while (Date.now() - started < 5_000 && (await blocksOnB()) !== expected) await sleep(10);
      return Date.now() - started;
    };
    const tookOn = await waitFor(true);
    expect(await blocksOnB()).toBe(true);
    expect(tookOn).toBeLessThan(1_000);

    await settingsA.save(context, 'rule', 'update', 'r', { enabled: false });
    const tookOff = await waitFor(false);
    expect(await blocksOnB()).toBe(false);
    expect(tookOff).toBeLessThan(1_000);
    console.log(`moderation settings on another replica: rule in force after ${tookOn} ms, disabled after ${tookOff} ms`);
    await runner.stop();
  }, 60_000);

  it("a replica's settings API answers a change another replica just made, with no consistency token", async () => {
    const moderationA = new ModerationReadModels(db);
    const runner = new CommandRunner({ store: new MongoCommitStore(db), logger, publisher, readModels: { apply: (events) => moderationA.apply(events) } });
    await runner.start();
    const credentials = new AgentCredentials(new SecretBox('ab'.repeat(32)));
    const readModels = new MessagesReadModels(db);
    const settingsA = new ModerationSettingsApp({ runner, readModels, moderation: moderationA, credentials });
    // Replica C watches nothing: its send-path memory keeps what it read for up to 10 s.
    const settingsC = new ModerationSettingsApp({ runner, readModels, moderation: new ModerationReadModels(db), credentials });
    const context = { actor: { appId: 'app2', keyId: 'k', scope: 'fullAccess' as const }, requestId: 'r' };

    expect((await settingsC.settings(context)).tools).toEqual([]);
    const saved = await settingsA.save(context, 'tool', 'create', 'lookup_order', { displayName: 'Look up order', executionText: 'Looking…', description: 'An order by id' });
    expect(await settingsC.one(context, 'tool', 'lookup_order')).toEqual(saved);
    await settingsA.remove(context, 'tool', 'lookup_order');
    await expect(settingsC.one(context, 'tool', 'lookup_order')).rejects.toMatchObject({ code: 'ERR_TOOL_NOT_FOUND' });
    await runner.stop();
  }, 60_000);
});
