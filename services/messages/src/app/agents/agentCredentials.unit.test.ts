import type { Agent, EventEnvelope } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import type { EventPublisher } from '@chat/eventsourcing';
import { describe, expect, it } from 'vitest';
import type { ModerationReadModels } from '../../adapters/moderation/moderationReadModels.js';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import { moderationSettingsDecider, moderationSettingsStream } from '../../domain/moderation/moderationSettings.js';
import { AgentCredentials } from './agentCredentials.js';
import { ModerationSettingsApp } from '../moderation/moderationSettings.js';
import { SecretBox } from '@chat/delivery';

const keyA = '1a'.repeat(32);
const keyB = '2b'.repeat(32);
const secret = 'Bearer tok-7f3a9c2e';

describe('agent credentials', () => {
  const credentials = new AgentCredentials(new SecretBox(keyA));

  it('seals every value, opens them back, and sends values stored before sealing as they are', () => {
    const sealed = credentials.seal({ authorization: secret, 'x-team': 'blue' });
    expect(Object.values(sealed).every((v) => SecretBox.isSealed(v))).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain('tok-7f3a9c2e');
    expect(credentials.open(sealed)).toEqual({ authorization: secret, 'x-team': 'blue' });
    expect(credentials.open({ authorization: secret })).toEqual({ authorization: secret });
  });

  it('refuses a tampered sealed value instead of sending it', () => {
    const { authorization } = credentials.seal({ authorization: secret });
    const broken = `${authorization!.slice(0, -2)}${authorization!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => credentials.open({ authorization: broken })).toThrow();
  });

  it('reseals plaintext and values of a rotated-out key, and leaves current ones alone', () => {
    const rotated = new AgentCredentials(new SecretBox(`${keyB},${keyA}`));
    const oldSealed = credentials.seal({ authorization: secret });
    const resealed = rotated.resealed({ ...oldSealed, plain: 'p' })!;
    expect(resealed['authorization']!.split('.')[1]).toBe(new SecretBox(keyB).keyIds[0]);
    expect(rotated.open(resealed)).toEqual({ authorization: secret, plain: 'p' });
    expect(rotated.resealed(resealed)).toBeNull();
    expect(rotated.resealed({})).toBeNull();
  });
});

describe('saving an agent', () => {
  function harness(keyring: string, store = new InMemoryCommitStore()) {
    const published: EventEnvelope[] = [];
    const publisher: EventPublisher = { publish: async (events) => void published.push(...events) };
    const runner = new CommandRunner({ store, publisher, logger: { warn: () => undefined, info: () => undefined }, readModels: { apply: async () => undefined } });
    // The agent's user exists: the only fact saving an agent reads.
    const readModels = { findFacts: async () => ({ users: new Map([['bot', { deleted: false, deactivated: false }]]) }) } as unknown as MessagesReadModels;
    const credentials = new AgentCredentials(new SecretBox(keyring));
    const app = new ModerationSettingsApp({ runner, readModels, moderation: {} as ModerationReadModels, credentials, clock: () => new Date(1_700_000_000_000) });
    return { app, runner, published, store, credentials };
  }
  const context = { actor: { appId: 'app1', keyId: 'k', scope: 'fullAccess' as const }, requestId: 'r' };
  const fields = (headers: Record<string, string>): Partial<Agent> => ({
    name: 'Bot',
    integrateWith: 'ag-ui',
    integrationType: 'agent',
    integrationMeta: { url: 'https://agent.example/run', headers },
  });
  const savedHeaders = (events: EventEnvelope[]) => events.filter((e) => e.type === 'AgentSaved').map((e) => (e.data as { agent: Agent }).agent.integrationMeta.headers);

  it('appends and publishes only sealed header values, which open to what was given', async () => {
    const { app, runner, published, credentials } = harness(keyA);
    const saved = await app.save(context, 'agent', 'create', 'bot', fields({ authorization: secret }));
    await runner.stop();
    expect(JSON.stringify(published)).not.toContain('tok-7f3a9c2e');
    expect(JSON.stringify(saved)).not.toContain('tok-7f3a9c2e');
    expect(credentials.open(savedHeaders(published)[0]!)).toEqual({ authorization: secret });
  });

  it('an update that keeps the headers seals those stored in plaintext, and reseals them after a rotation', async () => {
    const store = new InMemoryCommitStore();
    // As stored before sealing: the same command with plaintext headers.
    const before = new CommandRunner({ store, publisher: { publish: async () => undefined }, logger: { warn: () => undefined, info: () => undefined }, readModels: { apply: async () => undefined } });
    await before.run({
      decider: moderationSettingsDecider,
      streamId: moderationSettingsStream('app1'),
      command: { type: 'SaveSetting', kind: 'agent', mode: 'create', id: 'bot', fields: fields({ authorization: secret }), at: 1, appId: 'app1', agentUserExists: true },
      metadata: { appId: 'app1', actor: context.actor, correlationId: 'r', causationId: null, now: new Date() },
    });
    await before.stop();

    const first = harness(keyA, store);
    await first.app.save(context, 'agent', 'update', 'bot', { isActive: false });
    await first.runner.stop();
    const [sealedWithA] = savedHeaders(first.published);
    expect(sealedWithA!['authorization']!.split('.')[1]).toBe(new SecretBox(keyA).keyIds[0]);
    expect(first.credentials.open(sealedWithA!)).toEqual({ authorization: secret });

    const rotated = harness(`${keyB},${keyA}`, store);
    await rotated.app.save(context, 'agent', 'update', 'bot', {});
    await rotated.app.save(context, 'agent', 'update', 'bot', { name: 'Bot 2' });
    await rotated.runner.stop();
    const [resealed, unchanged] = savedHeaders(rotated.published);
    expect(resealed!['authorization']!.split('.')[1]).toBe(new SecretBox(keyB).keyIds[0]);
    expect(unchanged).toEqual(resealed);
    expect(rotated.credentials.open(resealed!)).toEqual({ authorization: secret });
  });
});
