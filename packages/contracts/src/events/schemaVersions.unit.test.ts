import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventEnvelopeSchema } from '../envelope.js';
import type { EventEnvelope } from '../envelope.js';
import { eventCatalog, eventSchemas, parseKnownEvent } from './registry.js';
import { EventSchemaRegistry } from './schemaVersions.js';

/** A type whose shape changed: version 1 had `name`, version 2 splits it and adds `source`. */
const renamedV1 = z.object({ name: z.string().min(1) });
const renamedV2 = z.object({ displayName: z.string().min(1), source: z.enum(['user', 'import']) });
const catalog = { ProfileRenamed: { 1: renamedV1, 2: renamedV2 }, Plain: { 1: z.object({ n: z.number() }) } };
const upcasters = { ProfileRenamed: { 1: (data: Record<string, unknown>) => ({ displayName: data['name'], source: 'user' }) } };

function envelope(type: string, schemaVersion: number, data: Record<string, unknown>): EventEnvelope {
  return {
    id: 'e1',
    type,
    schemaVersion,
    appId: 'app',
    streamId: 's',
    version: 1,
    occurredAt: '2026-01-01T00:00:00.000Z',
    actor: { keyId: 'k', scope: 'fullAccess' },
    correlationId: 'c',
    causationId: null,
    data,
  };
}

describe('event schema versions', () => {
  const registry = new EventSchemaRegistry(catalog, upcasters);

  it('writes each type at its newest version, and 1 for a type it does not know', () => {
    expect(registry.newestVersion('ProfileRenamed')).toBe(2);
    expect(registry.newestVersion('Plain')).toBe(1);
    expect(registry.newestVersion('SomethingElse')).toBe(1);
  });

  it('answers an older event in the newest shape, validated, and the newest one as it is', () => {
    expect(registry.parse(envelope('ProfileRenamed', 1, { name: 'Ann' }))).toMatchObject({ schemaVersion: 2, data: { displayName: 'Ann', source: 'user' } });
    expect(registry.parse(envelope('ProfileRenamed', 2, { displayName: 'Bo', source: 'import' }))).toMatchObject({ schemaVersion: 2, data: { displayName: 'Bo', source: 'import' } });
  });

  it('refuses data that does not match its own version, an unknown version or type, and an upcast that does not make a valid newest shape', () => {
    expect(registry.parse(envelope('ProfileRenamed', 1, { displayName: 'Ann', source: 'user' }))).toBeNull();
    expect(registry.parse(envelope('ProfileRenamed', 3, { displayName: 'Ann', source: 'user' }))).toBeNull();
    expect(registry.parse(envelope('Unheard', 1, {}))).toBeNull();
    const broken = new EventSchemaRegistry(catalog, { ProfileRenamed: { 1: () => ({ displayName: '' }) } });
    expect(broken.parse(envelope('ProfileRenamed', 1, { name: 'Ann' }))).toBeNull();
  });

  it('upcasts a replayed event without validating, and leaves the newest, the unknown and a newer producer’s as they are', () => {
    const old = envelope('ProfileRenamed', 1, { name: 'Ann' });
    expect(registry.upcast(old)).toEqual({ ...old, schemaVersion: 2, data: { displayName: 'Ann', source: 'user' } });
    expect(old.data).toEqual({ name: 'Ann' }); // the stored envelope is not changed in place
    for (const same of [envelope('ProfileRenamed', 2, { displayName: 'x', source: 'user' }), envelope('Plain', 1, { n: 1 }), envelope('Unheard', 1, {}), envelope('ProfileRenamed', 3, {})]) {
      expect(registry.upcast(same)).toBe(same);
    }
  });

  it('refuses to start with a gap in the versions, a missing step or a step that leads nowhere', () => {
    expect(() => new EventSchemaRegistry({ T: { 1: renamedV1, 3: renamedV2 } }, { T: { 1: (d) => d, 2: (d) => d } })).toThrow(/without a gap/);
    expect(() => new EventSchemaRegistry({ T: { 1: renamedV1, 2: renamedV2 } }, {})).toThrow(/no upcaster from version 1 to 2/);
    expect(() => new EventSchemaRegistry({ T: { 1: renamedV1 } }, { T: { 1: (d) => d } })).toThrow(/leads to no schema/);
    expect(() => new EventSchemaRegistry({ T: { 1: renamedV1 } }, { U: { 1: (d) => d } })).toThrow(/leads to no schema/);
  });

  it('holds the published catalogue, and parseKnownEvent reads through it', () => {
    for (const type of Object.keys(eventCatalog)) expect(eventSchemas.newestVersion(type)).toBeGreaterThanOrEqual(1);
    const deleted = { uid: 'u1', permanent: true, deletedAt: 1 };
    expect(parseKnownEvent(envelope('UserDeleted', 1, deleted))?.data).toEqual(deleted);
    expect(parseKnownEvent(envelope('UserDeleted', 1, { uid: 'u1' }))).toBeNull();
    expect(parseKnownEvent(envelope('UserDeleted', 2, deleted))).toBeNull();
  });
});

describe('one-pass parse of a decoded envelope in its newest version', () => {
  /** The two-pass path it stands in for: the envelope's schema, then its data's (`parseKnownEvent`). */
  const twoPass = (value: unknown) => {
    const envelope = eventEnvelopeSchema.safeParse(value);
    return envelope.success ? parseKnownEvent(envelope.data) : null;
  };
  const sent = {
    ...envelope('MessageSent', 1, {
      id: '7',
      conversationId: 'a_user_b',
      sender: 'a',
      receiver: 'b',
      receiverType: 'user',
      category: 'message',
      type: 'text',
      data: { text: 'hi', entities: { sender: { entity: { uid: 'a' }, entityType: 'user' } } },
      sentAt: 1_700_000_000,
      tags: ['x'],
    }),
    actor: { uid: 'a', keyId: 'k', scope: 'fullAccess' },
    correlationId: 'c',
    causationId: null,
  };
  const mutations: Array<[string, (value: Record<string, unknown>) => void]> = [
    ['as it is', () => {}],
    ['an extra envelope field', (v) => (v['extra'] = 1)],
    ['an extra data field', (v) => ((v['data'] as Record<string, unknown>)['extra'] = 1)],
    ['an extra actor field', (v) => ((v['actor'] as Record<string, unknown>)['extra'] = 1)],
    ...['id', 'type', 'appId', 'streamId', 'occurredAt', 'correlationId'].flatMap((field): Array<[string, (value: Record<string, unknown>) => void]> => [
      [`${field} empty`, (v) => (v[field] = '')],
      [`${field} a number`, (v) => (v[field] = 3)],
      [`${field} missing`, (v) => delete v[field]],
    ]),
    ['schemaVersion 2', (v) => (v['schemaVersion'] = 2)],
    ['schemaVersion a string', (v) => (v['schemaVersion'] = '1')],
    ['version 0', (v) => (v['version'] = 0)],
    ['version 1.5', (v) => (v['version'] = 1.5)],
    ['causationId missing', (v) => delete v['causationId']],
    ['causationId a string', (v) => (v['causationId'] = 'e0')],
    ['actor without keyId', (v) => delete (v['actor'] as Record<string, unknown>)['keyId']],
    ['actor null', (v) => (v['actor'] = null)],
    ['an unknown type', (v) => (v['type'] = 'NoSuchEvent')],
    ['data an array', (v) => (v['data'] = [])],
    ['data null', (v) => (v['data'] = null)],
    ['data of the wrong shape', (v) => ((v['data'] as Record<string, unknown>)['sentAt'] = 'now')],
    ['data missing a field', (v) => delete (v['data'] as Record<string, unknown>)['sender']],
    ['data with a class instance', (v) => (v['data'] = Object.assign(new (class Data {})(), v['data']))],
  ];

  it.each(mutations)('accepts exactly what the two passes accept, as the same event (%s)', (_name, mutate) => {
    const value = JSON.parse(JSON.stringify(sent)) as Record<string, unknown>;
    mutate(value);
    const expected = twoPass(value);
    const fast = eventSchemas.parseNewestEnvelope(value);
    // Of a newest version, what the one pass leaves to the two, they reject (and say why).
    if (fast === undefined) return expect(expected).toBeNull();
    // Whatever it accepts, the two passes accept, as the same event with the same keys in the same order.
    expect(JSON.stringify(fast)).toBe(JSON.stringify(expected));
  });

  it('takes a valid envelope of its newest version in one pass, and leaves older versions to the upcasting path', () => {
    const value = JSON.parse(JSON.stringify(sent)) as unknown;
    expect(eventSchemas.parseNewestEnvelope(value)).toEqual(twoPass(value));
    const registry = new EventSchemaRegistry(catalog, upcasters);
    expect(registry.parseNewestEnvelope(envelope('ProfileRenamed', 1, { name: 'Ann' }))).toBeUndefined();
    expect(registry.parseNewestEnvelope(envelope('ProfileRenamed', 2, { displayName: 'Ann', source: 'user' }))?.data).toEqual({ displayName: 'Ann', source: 'user' });
  });
});
