import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { converse, createApp, createUser, eventually } from './support/api.js';

const chatctl = fileURLToPath(new URL('../scripts/chatctl.mjs', import.meta.url));
const run = promisify(execFile);

/** Runs the CLI as an operator would, against this run's infrastructure and gateway. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    KAFKA_BROKERS: inject('kafkaBrokers'),
    MONGO_URL: inject('mongoUrl'),
    GATEWAY_URL: inject('gatewayUrl'),
    MANAGEMENT_KEY: inject('managementKey'),
    MANAGEMENT_SECRET: inject('managementSecret'),
    USERS_URL: inject('serviceUrls').users,
    MESSAGES_URL: inject('serviceUrls').messages,
    LOG_LEVEL: 'silent',
    CHATCTL_SHOW_DIFFERENCES: '1',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [chatctl, ...args], { env, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const usersGroup = () => `users.read-models.chat_users_${inject('databaseSuffix')}`;

async function lagOf(group: string): Promise<number> {
  const { stdout } = await cli('lag', '--group', group);
  return stdout
    .trim()
    .split('\n')
    .slice(1)
    .reduce((sum, line) => sum + Number(line.split('\t')[5]), 0);
}

describe('chatctl', () => {
  it('rebuilds the users, conversations and messages read models from the log, equal to the live ones', async () => {
    const app = await createApp('rebuild');
    for (const uid of ['ana', 'ben', 'cy']) await createUser(app, uid);
    expect((await app.call('PUT', '/v3/users/ben', { body: { name: 'Benjamin', tags: ['vip'] } })).status).toBe(200);
    expect((await app.call('POST', '/v3/users/ana/friends', { body: { accepted: ['cy'] } })).status).toBe(200);
    await converse(app, 'ana', 'ben', 'hello from the log');
    // Live read models caught up first, so the comparison is of finished work.
    expect(await eventually(() => lagOf(usersGroup()), (lag) => lag === 0, 30_000)).toBe(0);

    const users = await cli('rebuild', 'users', '--live', `chat_users_${inject('databaseSuffix')}`);
    expect(users.stdout).toMatch(/^users: live (\d+), rebuilt \1, differing 0$/m);
    expect(users.stdout).toMatch(/^friends: live (\d+), rebuilt \1, differing 0$/m);
    expect(users.stdout, users.stderr).toContain('rebuilt == live');
    expect(users.code).toBe(0);

    const conversationsGroup = `conversations.read-models.chat_conversations_${inject('databaseSuffix')}`;
    expect(await eventually(() => lagOf(conversationsGroup), (lag) => lag === 0, 30_000)).toBe(0);
    const conversations = await cli('rebuild', 'conversations', '--live', `chat_conversations_${inject('databaseSuffix')}`);
    expect(conversations.stdout).toContain('rebuilt == live');
    expect(conversations.code).toBe(0);

    // The messages read model too: the same documents and the same indexes (ADR 0102).
    const messagesGroup = `messages.projections.chat_messages_${inject('databaseSuffix')}`;
    expect(await eventually(() => lagOf(messagesGroup), (lag) => lag === 0, 30_000)).toBe(0);
    const messages = await cli('rebuild', 'messages', '--live', `chat_messages_${inject('databaseSuffix')}`, '--json');
    const report = JSON.parse(messages.stdout) as { equal: boolean; collections: { collection: string; rebuilt: number; differing: string[]; indexesDiffering: string[] }[] };
    expect(report.collections.find((c) => c.collection === 'messages')?.rebuilt, messages.stderr).toBeGreaterThan(0);
    expect(report.collections.filter((c) => c.differing.length > 0 || c.indexesDiffering.length > 0)).toEqual([]);
    expect(report.equal).toBe(true);
    expect(messages.code).toBe(0);
  }, 300_000);

  it('says so when a live index differs from what a rebuild creates', async () => {
    const live = `chat_users_${inject('databaseSuffix')}`;
    const { MongoClient } = await import('mongodb');
    const mongo = new MongoClient(inject('mongoUrl'));
    try {
      await mongo.db(live).collection('users').createIndex({ name: 1 }, { name: 'by_hand' });
      const rebuilt = await cli('rebuild', 'users', '--live', live);
      expect(rebuilt.code).toBe(1);
      expect(rebuilt.stdout).toMatch(/^users: indexes in one database only: by_hand \{"name":1\}$/m);
      expect(rebuilt.stdout).toContain('rebuilt != live');
    } finally {
      await mongo.db(live).collection('users').dropIndex('by_hand');
      const { databases } = await mongo.db('admin').admin().listDatabases();
      for (const { name } of databases) if (name.startsWith(`${live}_rebuild_`)) await mongo.db(name).dropDatabase();
      await mongo.close();
    }
  }, 300_000);

  it('says so when the live read model differs from the log', async () => {
    const live = `chat_users_${inject('databaseSuffix')}`;
    const app = await createApp('tampered');
    await createUser(app, 'tampered');
    expect(await eventually(() => lagOf(usersGroup()), (lag) => lag === 0, 30_000)).toBe(0);
    const { MongoClient } = await import('mongodb');
    const mongo = new MongoClient(inject('mongoUrl'));
    try {
      // A hand edit no event explains.
      await mongo.db(live).collection<{ _id: string }>('users').updateOne({ _id: `${app.appId}:tampered` }, { $set: { name: 'edited by hand' } });
      const rebuilt = await cli('rebuild', 'users', '--live', live);
      expect(rebuilt.code).toBe(1);
      expect(rebuilt.stdout).toMatch(/^users: live \d+, rebuilt \d+, differing 1 \(e\.g\. .*tampered\)$/m);
      expect(rebuilt.stdout).toContain('rebuilt != live');
    } finally {
      await mongo.db(live).collection<{ _id: string }>('users').updateOne({ _id: `${app.appId}:tampered` }, { $set: { name: 'tampered' } });
      // A rebuild that differs is kept for inspection: not here.
      const { databases } = await mongo.db('admin').admin().listDatabases();
      for (const { name } of databases) if (name.startsWith(`${live}_rebuild_`)) await mongo.db(name).dropDatabase();
      await mongo.close();
    }
  }, 300_000);

  it('tails a topic filtered by app and type, and shows consumer lag per partition', async () => {
    const app = await createApp('tail');
    for (const uid of ['t1', 't2']) await createUser(app, uid);
    expect((await app.call('DELETE', '/v3/users/t2', { body: { permanent: true } })).status).toBe(200);
    const tailed = await cli('tail', 'chat.users.events', '--app', app.appId, '--type', 'UserCreated');
    const tailedEvents = tailed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { event: { id: string; appId: string; type: string; data: { uid: string } } }).event);
    // Delivery is at least once: with replicas, an event may be on the topic twice (ADR 0030); the same event, by id.
    const events = [...new Map(tailedEvents.map((event) => [event.id, event])).values()];
    expect(events.map((event) => event.data.uid).sort()).toEqual(['t1', 't2']);
    expect(events.every((event) => event.appId === app.appId && event.type === 'UserCreated')).toBe(true);

    const lag = await cli('lag', '--group', usersGroup());
    const rows = lag.stdout.trim().split('\n');
    expect(rows[0]).toBe('group\ttopic\tpartition\tcommitted\tend\tlag');
    expect(rows.slice(1).map((row) => row.split('\t').slice(0, 2).join(' '))).toContain(`${usersGroup()} chat.users.events`);

    const backlog = await cli('backlog');
    expect(backlog.stdout).toMatch(/^users\tchat\.users\.events\t\d+$/m);

    // --json: the same rows as one JSON array of objects.
    const lagJson = JSON.parse((await cli('lag', '--group', usersGroup(), '--json')).stdout) as { group: string; topic: string; lag: number }[];
    expect(lagJson.length).toBe(rows.length - 1);
    expect(lagJson).toContainEqual(expect.objectContaining({ group: usersGroup(), topic: 'chat.users.events', lag: expect.any(Number) }));
    const backlogJson = JSON.parse((await cli('backlog', '--json')).stdout) as { service: string; topic: string; backlog: number }[];
    expect(backlogJson).toContainEqual({ service: 'users', topic: 'chat.users.events', backlog: expect.any(Number) });
  }, 120_000);

  it('lists a dead letter and redrives it once', async () => {
    const kafka = new Kafka({ clientId: 'e2e-poison', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const marker = `poison-${Date.now().toString(36)}`;
    // JSON, so other readers of the topic parse it, but no event envelope: the projection dead-letters it.
    await producer.send({ topic: 'chat.users.events', messages: [{ key: marker, value: JSON.stringify({ poison: marker }), headers: { type: 'UserCreated', appId: marker } }] });
    await producer.disconnect();

    const listed = await eventually(
      () => cli('dlq', 'list', usersGroup()),
      (r) => r.stdout.includes('chat.users.events') && r.stdout.split('\n').some((line) => line.includes('\tno\t')),
      30_000,
    );
    const pending = listed.stdout.split('\n').filter((line) => line.includes('\tno\t'));
    expect(pending.length).toBeGreaterThan(0);

    const redriven = await cli('dlq', 'redrive', usersGroup());
    expect(redriven.stdout).toContain(`redriven: ${pending.length} dead letter(s)`);
    // Sent back, it is dead-lettered again (still not an event), and the first letters are marked as redriven.
    const after = await eventually(
      () => cli('dlq', 'list', usersGroup()),
      (r) => r.stdout.split('\n').filter((line) => line.includes('\tyes\t')).length >= pending.length && r.stdout.includes('\tno\t'),
      30_000,
    );
    expect(after.stdout.split('\n').filter((line) => line.includes('\tyes\t')).length).toBeGreaterThanOrEqual(pending.length);
    const again = await cli('dlq', 'redrive', usersGroup());
    expect(again.stdout).toMatch(/redriven: \d+ dead letter\(s\)/);
  }, 120_000);

  it('prints its usage for --help and -h on every command, and refuses an unknown option without a stack trace', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['lag', '--help'], ['rebuild', 'users', '-h'], ['dlq', 'list', 'x', '--help'], ['create-app', '-h']]) {
      const answer = await cli(...args);
      expect(answer.code, args.join(' ')).toBe(0);
      expect(answer.stdout).toMatch(/^usage: chatctl <command>/);
      expect(answer.stdout).toContain('rebuild <users|conversations|messages>');
    }
    for (const args of [['--bogus'], ['lag', '--colour', 'red'], ['lag', '--group']]) {
      const answer = await cli(...args);
      expect(answer.code, args.join(' ')).toBe(2);
      expect(answer.stderr).toMatch(/^chatctl: .+\nusage: chatctl <command>/);
      expect(answer.stderr).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
    }
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^chatctl: unknown command "frobnicate"\n/);
    // Eleven starts of the CLI, each a fresh Node process: on a shared 2-core machine that alone took over 30 s.
  }, 120_000);

  it('runs as the package bin: npx chatctl --help', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await run('npx', ['--no-install', 'chatctl', '--help'], { cwd: root, timeout: 60_000 });
    expect(stdout).toMatch(/^usage: chatctl <command>/);
  }, 90_000);

  it('creates an app and a key through the gateway', async () => {
    const created = await cli('create-app', 'from-cli');
    expect(created.code).toBe(0);
    const app = JSON.parse(created.stdout) as { id: string; apiKeys: Record<string, { apiKey: string; scope: string }> };
    const fullAccess = Object.values(app.apiKeys).find((key) => key.scope === 'fullAccess')?.apiKey ?? '';
    const key = await cli('create-key', app.id, '--apikey', fullAccess, '--scope', 'authOnly', '--name', 'ops');
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout)).toMatchObject({ scope: 'authOnly', name: 'ops' });
  }, 60_000);
});
