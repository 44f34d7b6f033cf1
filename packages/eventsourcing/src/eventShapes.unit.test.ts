import { EventSchemaRegistry } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CommandRunner } from './commandRunner.js';
import type { Decider, DomainEvent } from './decider.js';
import { InMemoryCommitStore } from './memoryStore.js';

describe('the command runner across event shapes (ADR 0060)', () => {
  // A title event whose shape changed: version 1 carried `title`, version 2 carries `text` and `lang`.
  const schemas = new EventSchemaRegistry(
    { Titled: { 1: z.object({ title: z.string() }), 2: z.object({ text: z.string(), lang: z.string() }) } },
    { Titled: { 1: (data) => ({ text: data['title'], lang: 'und' }) } },
  );
  type TitledEvent = DomainEvent<'Titled', { text: string; lang: string }>;
  const titles: Decider<{ titles: string[] }, { text: string }, TitledEvent> = {
    initialState: () => ({ titles: [] }),
    decide: (command) => [{ type: 'Titled', data: { text: command.text, lang: 'en' } }],
    // Written against the newest shape only: a version 1 event reaching it unconverted would add `undefined@undefined`.
    evolve: (state, event) => ({ titles: [...state.titles, `${event.data.text}@${event.data.lang}`] }),
    snapshotVersion: 1,
  };

  it('replays a version 1 event stored before version 2 existed, and writes new events at version 2', async () => {
    const store = new InMemoryCommitStore();
    const stored: EventEnvelope = {
      id: 'old',
      type: 'Titled',
      schemaVersion: 1,
      appId: 'app',
      streamId: 'doc',
      version: 1,
      occurredAt: '2025-01-01T00:00:00.000Z',
      actor: { keyId: 'k', scope: 'fullAccess' },
      correlationId: 'old',
      causationId: null,
      data: { title: 'first' },
    };
    expect(store.appendOne({ commitId: 'c-old', appId: 'app', streamId: 'doc', startVersion: 1, endVersion: 1, position: 0, committedAt: new Date(0), events: [stored] })).toBe('appended');
    const runner = new CommandRunner({ store, publisher: { publish: async () => undefined }, logger: { warn: () => undefined, info: () => undefined }, readModels: { apply: async () => undefined }, schemas });
    const result = await runner.run({ decider: titles, streamId: 'doc', command: { text: 'second' }, metadata: { appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' }, correlationId: 'req-1', now: new Date(1_000) } });
    await runner.stop();
    expect(result.state).toEqual({ titles: ['first@und', 'second@en'] });
    expect(result.events.map((e) => [e.version, e.schemaVersion])).toEqual([[2, 2]]);
    expect((await store.readStream('doc'))[0]).toMatchObject({ schemaVersion: 1, data: { title: 'first' } }); // history is never rewritten
  });
});
