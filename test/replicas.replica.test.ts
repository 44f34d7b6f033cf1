import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startInfrastructure, startServices } from '@chat/devstack';
import type { RunningInfrastructure, RunningServices } from '@chat/devstack';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse, checkedFetch } from './support/responseContract.js';

// Two replicas of every service on a stack of its own (its own Kafka log, topics of 6 partitions from
// KAFKA_PARTITIONS), behind one gateway that balances across them. `npm test` runs it after the
// others; `REPLICAS=2 KAFKA_PARTITIONS=6 npx vitest run --project system` runs every other e2e suite
// on two replicas too.
const PARTITIONS = 6;

describe('two replicas of every service', () => {
  let infra: RunningInfrastructure;
  let services: RunningServices;
  let chat: Record<string, string>;

  const call = async (method: string, path: string, uid?: string, body?: unknown) => {
    const response = await fetch(`${services.gatewayUrl}${path}`, {
      method,
      headers: { ...chat, ...(uid ? { onbehalfof: uid } : {}), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    }).catch(() => null);
    if (!response) return { status: 0, body: undefined as any };
    const answer = (await response.json().catch(() => undefined)) as any;
    checkResponse(method, new URL(path, services.gatewayUrl).pathname, response.status, answer);
    return { status: response.status, body: answer };
  };

  beforeAll(async () => {
    infra = await startInfrastructure({ freshKafkaData: true });
    try {
      services = await startServices({
        ...infra,
        ports: 'ephemeral',
        replicas: 2,
        databaseSuffix: `r${randomBytes(3).toString('hex')}`,
        extraEnv: { LOG_LEVEL: 'warn', KAFKA_PARTITIONS: String(PARTITIONS) },
      });
    } catch (error) {
      await infra.stop();
      throw error;
    }
    const created = await checkedFetch(`${services.gatewayUrl}/apps`, {
      method: 'POST',
      headers: { key: services.managementKey, secret: services.managementSecret, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'replicas', region: 'us' }),
    });
    const app = (await created.json()) as { data: { id: string; apiKeys: Record<string, { apiKey: string; scope: string }> } };
    chat = { appid: app.data.id, apikey: Object.values(app.data.apiKeys).find((k) => k.scope === 'fullAccess')!.apiKey };
  }, 600_000);

  afterAll(async () => {
    await services?.stop();
    await infra?.stop();
  }, 120_000);

  it('runs each service twice and creates topics with the configured partition count', async () => {
    expect(services.instances.filter((i) => i.service === 'messages').map((i) => i.replica)).toEqual([1, 2]);
    const kafka = new Kafka({ clientId: 'replica-test', brokers: infra.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ['chat.messages.events', 'chat.conversations.events'] });
      expect(topics.map((t) => t.partitions.length)).toEqual([PARTITIONS, PARTITIONS]);
    } finally {
      await admin.disconnect();
    }
  });

  it('read-your-writes across services and replicas: a read carrying the send’s consistency token always sees the send', async () => {
    for (const uid of ['ryw-a', 'ryw-b']) expect((await call('POST', '/v3/users', undefined, { uid, name: uid })).status).toBe(200);
    let stale = 0;
    for (let round = 1; round <= 20; round++) {
      // The send goes to ryw-a's messages replica and the read to ryw-b's conversations replica (ADR 0036);
      // the conversation is projected by whichever conversations replica owns its partition.
      const sent = await checkedFetch(`${services.gatewayUrl}/v3/messages`, {
        method: 'POST',
        headers: { ...chat, onbehalfof: 'ryw-a', 'content-type': 'application/json' },
        body: JSON.stringify({ receiver: 'ryw-b', receiverType: 'user', category: 'message', type: 'text', data: { text: `ryw ${round}` } }),
      });
      expect(sent.status).toBe(200);
      const token = sent.headers.get('x-consistency-token');
      expect(token).toBeTruthy();
      const id = ((await sent.json()) as { data: { id: string } }).data.id;
      const read = await checkedFetch(`${services.gatewayUrl}/v3/users/ryw-a/conversation`, {
        headers: { ...chat, onbehalfof: 'ryw-b', 'x-consistency-token': token! },
      });
      expect(read.status).toBe(200);
      if (read.headers.get('x-consistency-stale') === 'true') stale += 1;
      else expect(((await read.json()) as { data: { lastMessage: { id: string } } }).data.lastMessage.id).toBe(id);
    }
    // Within the 2 s bound on this machine every read caught up.
    expect(stale).toBe(0);
    // A token the API never issued is refused, not ignored.
    const forged = await checkedFetch(`${services.gatewayUrl}/v3/users/ryw-a/conversation`, { headers: { ...chat, onbehalfof: 'ryw-b', 'x-consistency-token': 'not-a-token' } });
    expect(forged.status).toBe(400);
  });

  it('a moderation rule changed on one messages replica judges the next send on the other, for a client carrying the change’s token', async () => {
    for (const uid of ['mod-a', 'mod-b']) expect((await call('POST', '/v3/users', undefined, { uid, name: uid })).status).toBe(200);
    const write = async (method: string, path: string, body: unknown) => {
      const response = await checkedFetch(`${services.gatewayUrl}${path}`, { method, headers: { ...chat, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
      return response.headers.get('x-consistency-token')!;
    };
    await write('POST', '/v3/moderation/keywords', { id: 'replica-list', name: 'replica-list', category: 'word', searchTerms: ['zorblax'] });
    let token = await write('POST', '/v3/moderation/rules', {
      id: 'replica-rule',
      name: 'replica rule',
      action: ['blockMessage'],
      conditions: [{ operand: 'text', operator: 'contains', isKeywordsReferencePresent: true, value: ['replica-list'] }],
    });
    // The changes carry no acting user, so the gateway alternates them over the replicas, while mod-a's
    // sends stay on one (affinity): a change and the send right after it land on different replicas in
    // about half the rounds. The rule flips every round, so a stale replica answers wrongly.
    for (let round = 1; round <= 20; round++) {
      const enabled = round % 2 === 0;
      if (round > 1) token = await write('PUT', '/v3/moderation/rules/replica-rule', { enabled });
      const sent = await checkedFetch(`${services.gatewayUrl}/v3/messages`, {
        method: 'POST',
        headers: { ...chat, onbehalfof: 'mod-a', 'content-type': 'application/json', 'x-consistency-token': token },
        body: JSON.stringify({ receiver: 'mod-b', receiverType: 'user', category: 'message', type: 'text', data: { text: `zorblax ${round}` } }),
      });
      expect(sent.status, `round ${round}: rule ${round === 1 || enabled ? 'on' : 'off'}`).toBe(round === 1 || enabled ? 403 : 200);
    }
  });

  it('a replica killed -9 and restarted in the middle of a message load (a consumer-group rebalance) loses and duplicates nothing', async () => {
    const lanes = Array.from({ length: 4 }, (_, i) => ({ from: `s${i}`, to: `r${i}`, acked: [] as Array<{ id: string; text: string }> }));
    for (const lane of lanes) {
      for (const uid of [lane.from, lane.to]) expect((await call('POST', '/v3/users', undefined, { uid, name: uid })).status).toBe(200);
    }
    let loading = true;
    const statuses = new Map<number, number>();
    const drive = async (lane: (typeof lanes)[number]) => {
      for (let seq = 1; loading; seq++) {
        const text = `load ${lane.from} #${seq}`;
        const sent = await call('POST', '/v3/messages', lane.from, { receiver: lane.to, receiverType: 'user', category: 'message', type: 'text', data: { text } });
        statuses.set(sent.status, (statuses.get(sent.status) ?? 0) + 1);
        if (sent.status === 200) lane.acked.push({ id: sent.body.data.id as string, text });
        await sleep(50);
      }
    };
    const drivers = lanes.map(drive);
    await sleep(4_000);
    const victims = services.instances.filter((i) => i.replica === 2 && (i.service === 'messages' || i.service === 'conversations'));
    await Promise.all(victims.map((v) => v.kill()));
    await sleep(4_000);
    await Promise.all(victims.map((v) => v.restart()));
    await sleep(4_000);
    loading = false;
    await Promise.all(drivers);

    // Only the sends in flight to a killed replica may fail, and only as the outage answers.
    expect([...statuses.keys()].filter((status) => status !== 200 && ![0, 502, 503, 504].includes(status))).toEqual([]);
    expect(lanes.every((lane) => lane.acked.length > 10)).toBe(true);
    const findings = async () => {
      const problems: string[] = [];
      for (const lane of lanes) {
        const listed = await call('GET', `/v3/users/${lane.to}/messages?limit=1000`, lane.from);
        const texts: string[] = (listed.body?.data ?? []).map((m: { data: { text: string } }) => m.data.text);
        for (const { text } of lane.acked) {
          const times = texts.filter((t) => t === text).length;
          if (times !== 1) problems.push(`${text} listed ${times} times`);
        }
        const conversation = await call('GET', `/v3/users/${lane.from}/conversation`, lane.to);
        const data = conversation.body?.data;
        if (Number(data?.unreadMessageCount) !== texts.length) problems.push(`${lane.to} unread ${data?.unreadMessageCount}, listed ${texts.length}`);
        if (data?.lastMessage?.id !== lane.acked.at(-1)?.id && texts.length === lane.acked.length) problems.push(`${lane.to} last message ${data?.lastMessage?.id}`);
      }
      return problems;
    };
    let problems = await findings();
    for (const deadline = Date.now() + 30_000; problems.length > 0 && Date.now() < deadline; problems = await findings()) await sleep(500);
    expect(problems).toEqual([]);
  }, 300_000);
});
