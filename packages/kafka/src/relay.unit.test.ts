import { InMemoryCommitStore } from '@chat/eventsourcing';
import type { Commit, EventPublisher } from '@chat/eventsourcing';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRelay } from './relay.js';

const logger = pino({ level: 'silent' });

function unpublishedCommit(id: string, committedAt: Date): Commit {
  const envelope = {
    id: `event-${id}`, type: 'Incremented', schemaVersion: 1, appId: 'app', streamId: id, version: 1,
    occurredAt: committedAt.toISOString(), actor: { keyId: 'k', scope: 'fullAccess' }, correlationId: 'r', causationId: null, data: {},
  };
  return { commitId: id, appId: 'app', streamId: id, startVersion: 1, endVersion: 1, events: [envelope], committedAt, published: false };
}

describe('the relay of unpublished commits', () => {
  afterEach(() => vi.useRealTimers());

  it('publishes what an earlier process left unpublished at start-up, then marks it', async () => {
    const store = new InMemoryCommitStore();
    await store.append(unpublishedCommit('a', new Date(Date.now() - 60_000)));
    const published: string[] = [];
    const relay = startRelay(store, { publish: async (events) => void published.push(...events.map((e) => e.id)) }, logger);
    await relay.sweep();
    await relay.stop();
    expect(published).toEqual(['event-a']);
    expect(await store.findUnpublished(new Date(), 10)).toEqual([]);
  });

  it('sweeps soon after a reported failure instead of waiting for the safety interval', async () => {
    vi.useFakeTimers();
    const store = new InMemoryCommitStore();
    const published: string[] = [];
    const publisher: EventPublisher = { publish: async (events) => void published.push(...events.map((e) => e.id)) };
    const relay = startRelay(store, publisher, logger, { intervalMs: 600_000, graceMs: 1_000 });
    await vi.advanceTimersByTimeAsync(0); // the start-up sweep finds nothing
    await store.append(unpublishedCommit('b', new Date()));

    relay.requestSweep();
    relay.requestSweep(); // a burst of failures asks for one sweep
    await vi.advanceTimersByTimeAsync(500);
    expect(published).toEqual([]); // still inside the grace period: a publish may be in flight
    await vi.advanceTimersByTimeAsync(1_000);
    expect(published).toEqual(['event-b']);
    await relay.stop();
  });

  it('does not sweep again before the safety interval when nothing failed', async () => {
    vi.useFakeTimers();
    const store = new InMemoryCommitStore();
    const findUnpublished = vi.spyOn(store, 'findUnpublished');
    const relay = startRelay(store, { publish: async () => {} }, logger, { intervalMs: 60_000 });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(findUnpublished).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(findUnpublished).toHaveBeenCalledTimes(2);
    await relay.stop();
  });
});
