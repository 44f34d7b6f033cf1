import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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
