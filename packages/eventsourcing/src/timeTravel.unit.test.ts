import { EventSchemaRegistry } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testEnvelope } from './testEnvelope.js';
import { eventsAsOf } from './timeTravel.js';

const events: EventEnvelope[] = [
  testEnvelope('A', 's1', 1, {}, 100),
  testEnvelope('A', 's1', 2, {}, 200),
  testEnvelope('A', 's1', 3, {}, 300),
  testEnvelope('B', 's2', 1, {}, 150),
  testEnvelope('B', 's2', 2, {}, 250),
];
const reader = {
  async *streamEvents(streamId: string) {
    for (const event of events.filter((e) => e.streamId === streamId)) yield await Promise.resolve(event);
  },
};
const names = (list: EventEnvelope[]) => list.map((e) => `${e.streamId}@${e.version}`);

describe('eventsAsOf', () => {
  it('a time keeps every stream up to that time', async () => {
    expect(names(await eventsAsOf(reader, ['s1', 's2'], { kind: 'time', at: 200 }, 10))).toEqual(['s1@1', 's1@2', 's2@1']);
  });

  it('a token keeps a named stream up to its version, the others up to the time of that write', async () => {
    const asOf = { kind: 'token' as const, positions: new Map([['s1', 2]]) };
    expect(names(await eventsAsOf(reader, ['s1', 's2'], asOf, 10))).toEqual(['s1@1', 's1@2', 's2@1']);
  });

  it('refuses to replay more than the cap', async () => {
    await expect(eventsAsOf(reader, ['s1', 's2'], { kind: 'time', at: 1_000 }, 4)).rejects.toMatchObject({ code: 'ERR_HISTORY_TOO_LONG' });
    expect(await eventsAsOf(reader, ['s1', 's2'], { kind: 'time', at: 1_000 }, 5)).toHaveLength(5);
  });

  it('answers stored events in their types\' newest shapes (ADR 0060)', async () => {
    const schemas = new EventSchemaRegistry({ A: { 1: z.object({}), 2: z.object({ since: z.number() }) } }, { A: { 1: () => ({ since: 0 }) } });
    const replayed = await eventsAsOf(reader, ['s1'], { kind: 'time', at: 200 }, 10, schemas);
    expect(replayed.map((e) => [e.schemaVersion, e.data])).toEqual([
      [2, { since: 0 }],
      [2, { since: 0 }],
    ]);
  });
});
