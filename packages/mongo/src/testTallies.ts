import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import fc from 'fast-check';
import type { Projection } from './projectionRuntime.js';

// Test support shared by the runtime's unit tests (in memory) and integration tests (FerretDB).

/**
 * A test read model with every shape the runtime must handle: an event may touch several documents,
 * documents hear from several streams, an event may create a document (declared, so written without a
 * read), and an event may close one. Each document lists what it saw, so any lost, repeated or
 * reordered event shows. A closed document stays as a tombstone, as the services' read models keep
 * theirs: removing a document forgets its positions, so only a tombstone makes a later redelivery
 * of an older event a no-op.
 */
export interface TallyDoc {
  seen: string[];
  total: number;
  closed: boolean;
}
export type TallyEvent = EventEnvelope<'Tallied', { docs: string[]; amount: number; action: 'add' | 'open' | 'close' }>;

export const talliesProjection: Projection<TallyDoc, TallyEvent> = {
  name: 'tallies',
  eventTypes: ['Tallied'],
  documentIds: (event) => event.data.docs,
  creates: (event) => event.data.action === 'open',
  evolve(doc, event) {
    const mark = `${event.streamId}@${event.version}`;
    if (doc?.closed) return doc;
    if (event.data.action === 'close') return { seen: [...(doc?.seen ?? []), mark], total: doc?.total ?? 0, closed: true };
    if (event.data.action === 'open' || !doc) return { seen: [mark], total: event.data.amount, closed: false };
    return { seen: [...doc.seen, mark], total: doc.total + event.data.amount, closed: false };
  },
};

/** The same read model removing closed documents: batching must still agree with one event at a time. */
export const removingTallies: Projection<TallyDoc, TallyEvent> = {
  ...talliesProjection,
  name: 'removing-tallies',
  evolve: (doc, event, id) => (event.data.action === 'close' ? null : talliesProjection.evolve(doc, event, id)),
};

export const tallied = (stream: string, version: number, docs: string[], action: 'add' | 'open' | 'close' = 'add', amount = 1) =>
  testEnvelope('Tallied', stream, version, { docs, amount, action }) as TallyEvent;

/** Streams of tally events interleaved in a random order that keeps each stream's own order. */
export const tallyHistoryArbitrary: fc.Arbitrary<EventEnvelope[]> = fc
  .array(
    fc.record({
      stream: fc.constantFrom('s:a', 's:b', 's:c'),
      docs: fc.uniqueArray(fc.constantFrom('d1', 'd2', 'd3', 'd4'), { minLength: 1, maxLength: 3 }),
      action: fc.constantFrom('add', 'add', 'add', 'open', 'close'),
      amount: fc.integer({ min: 1, max: 9 }),
    }),
    { maxLength: 40 },
  )
  .map((steps) => {
    const versions = new Map<string, number>();
    return steps.map(({ stream, docs, action, amount }) => {
      const version = (versions.get(stream) ?? 0) + 1;
      versions.set(stream, version);
      return tallied(stream, version, docs, action, amount);
    });
  });
