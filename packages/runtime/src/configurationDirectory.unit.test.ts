import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore, ProjectionRuntime } from '@chat/mongo';
import type { Projection } from '@chat/mongo';
import type { PartitionProgress, Watermark } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { ConfigurationDirectory } from './configurationDirectory.js';
import { TopicFence } from './topicFence.js';

interface Settings {
  appId: string;
  hooks: string[];
}

/** An app's configuration document (`_id` = app id), fed by the app's stream. */
const settingsProjection: Projection<Settings> = {
  name: 'settings',
  eventTypes: ['HookAdded'],
  documentIds: (event) => [event.appId],
  evolve: (doc, event) => ({ appId: event.appId, hooks: [...(doc?.hooks ?? []), String(event.data['hook'])] }),
};

/**
 * A configuration topic of one partition, the read model another replica's projection writes, and
 * this replica's watch, each moved by the test: the orders in which they see an event are the races.
 */
function world(options: { timeoutMs?: number } = {}) {
  const log: EventEnvelope[] = [];
  const store = new InMemoryDocumentStore();
  const projection = new ProjectionRuntime(settingsProjection, store);
  let clock = 1_000;
  let watermarkReads = 0;
  const watched: EventEnvelope[] = [];
  const giveUps: string[] = [];
  const fence = new TopicFence({
    readWatermarks: () => {
      watermarkReads += 1;
      const watermarks: Watermark[] = [{ topic: 'config', partition: 0, offset: log.length }];
      return new Promise((resolve) => setTimeout(() => resolve(watermarks), 5));
    },
    timeoutMs: options.timeoutMs ?? 2_000,
    onGiveUp: (reason) => giveUps.push(reason),
    now: () => clock,
  });
  let loads = 0;
  const directory = new ConfigurationDirectory<string[]>({
    load: async (appId) => {
      loads += 1;
      return ((await store.findMany([appId])).get(appId)?.['hooks'] as string[] | undefined) ?? [];
    },
    documents: [
      {
        projection: settingsProjection,
        positions: async (ids) => {
          const docs = await store.findMany(ids);
          return new Map([...docs].map(([id, doc]) => [id, doc._positions]));
        },
      },
    ],
    fence,
    appliedTimeoutMs: options.timeoutMs ?? 2_000,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  const progress = (next: number): PartitionProgress => ({ topic: 'config', partition: 0, next });
  fence.advance(progress(0));
  return {
    fence,
    directory,
    giveUps,
    watermarkReads: () => watermarkReads,
    loads: () => loads,
    setClock: (ms: number) => {
      clock = ms;
    },
    /** A configuration write answered: its event is on the topic (the watch and the projection come later). */
    publish: (hook: string) => {
      const event = testEnvelope('HookAdded', 'app-app1', log.length + 1, { hook }, clock);
      log.push(event);
      return event;
    },
    /** Another replica's projection applies what is on the topic. */
    project: () => projection.apply(log),
    /** This replica's watch reads the rest of the topic. */
    watch: () => {
      const fresh = log.slice(watched.length);
      watched.push(...fresh);
      directory.observe(fresh);
      fence.advance(progress(log.length));
    },
  };
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ConfigurationDirectory', () => {
  it('applies a configuration change to an event that occurred after it, though the watch and the read model see the change later', async () => {
    const w = world();
    w.publish('first');
    await w.project();
    w.watch();
    expect(await w.directory.get('app1', 1_000)).toEqual(['first']);

    // A webhook created (answered at 1_100), then a message at 1_200 whose event this replica handles
    // before its watch has read the creation and before any projection has applied it.
    w.setClock(1_100);
    w.publish('second');
    w.setClock(1_200);
    let answered: string[] | null = null;
    const handled = w.directory.get('app1', 1_200).then((hooks) => (answered = hooks));
    await tick();
    expect(answered).toBeNull(); // the fence holds it: the watch is behind the topic's watermark

    w.watch(); // the watch sees the change: the entry is dropped, the load waits for the read model
    await tick();
    expect(answered).toBeNull();

    await w.project();
    await handled;
    expect(answered).toEqual(['first', 'second']);
    expect(w.fence.counters.timeouts).toBe(0);
    expect(w.directory.counters.appliedTimeouts).toBe(0);
  });

  it('serves an event that occurred before the last fence from memory, with no watermark read', async () => {
    const w = world();
    w.publish('first');
    await w.project();
    w.watch();
    w.setClock(2_000);
    await w.directory.get('app1', 2_000);
    expect(w.watermarkReads()).toBe(1);
    for (let i = 0; i < 10; i++) await w.directory.get('app1', 1_500 + i);
    expect(w.watermarkReads()).toBe(1);
    expect(w.loads()).toBe(1);
  });

  it('shares one round among concurrent waiters, and callers that come during it the next one', async () => {
    const w = world();
    w.publish('first');
    await w.project();
    w.watch();
    w.setClock(3_000);
    const first = Array.from({ length: 50 }, (_, i) => w.directory.get('app1', 2_950 + i));
    // These events occurred after the round in flight read its watermarks: they share one more round.
    w.setClock(3_100);
    const second = Array.from({ length: 50 }, (_, i) => w.directory.get('app1', 3_050 + i));
    const answers = await Promise.all([...first, ...second]);
    expect(answers.every((hooks) => hooks.length === 1)).toBe(true);
    expect(w.watermarkReads()).toBe(2);
    expect(w.fence.counters.rounds).toBe(2);
    expect(w.fence.currentAsOf).toBe(3_100);
  });

  it('lets the event go on after the timeout when the watch is stalled, and counts it', async () => {
    const w = world({ timeoutMs: 100 });
    w.publish('first');
    await w.project();
    w.watch();
    expect(await w.directory.get('app1', 1_000)).toEqual(['first']);

    w.setClock(1_500);
    w.publish('second'); // the watch never reads it
    const started = Date.now();
    expect(await w.directory.get('app1', 1_500)).toEqual(['first']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(w.fence.counters.timeouts).toBe(1);
    expect(w.giveUps).toEqual(['watch behind']);
    // Not trusted past the stall: the next later event fences again.
    w.setClock(1_600);
    await w.directory.get('app1', 1_600);
    expect(w.fence.counters.rounds).toBe(3);
  });

  it('stops waiting for a read model that does not apply what the watch saw, and counts it', async () => {
    const w = world({ timeoutMs: 100 });
    w.publish('first');
    await w.project();
    w.watch();
    await w.directory.get('app1', 1_000);
    w.setClock(1_500);
    w.publish('second');
    w.watch(); // seen, but no projection applies it
    expect(await w.directory.get('app1', 1_500)).toEqual(['first']);
    expect(w.directory.counters.appliedTimeouts).toBe(1);
    // Given up on: a later load does not wait for it again.
    w.directory.applied([testEnvelope('HookAdded', 'app-app1', 3, { hook: 'second' })]);
    const started = Date.now();
    await w.directory.get('app1');
    expect(Date.now() - started).toBeLessThan(90);
    expect(w.directory.counters.appliedTimeouts).toBe(1);
  });

  it('no longer awaits a version its own projection applied: an app that never loads keeps no note', async () => {
    const w = world();
    const first = w.publish('first');
    w.watch();
    const second = w.publish('second');
    w.watch();
    expect(w.directory.awaitedVersions).toBe(1); // one document, one source: the newest version
    await w.project();
    w.directory.applied([first]); // an older version applied: the newer one is still awaited
    expect(w.directory.awaitedVersions).toBe(1);
    w.directory.applied([second]);
    expect(w.directory.awaitedVersions).toBe(0);
    // Nothing to wait for: the next load reads at once.
    const started = Date.now();
    expect(await w.directory.get('app1')).toEqual(['first', 'second']);
    expect(Date.now() - started).toBeLessThan(90);
    expect(w.directory.counters.appliedTimeouts).toBe(0);
  });

  it('does not keep a load that raced a change the watch saw meanwhile', async () => {
    const w = world();
    w.publish('first');
    await w.project();
    w.watch();
    const racing = w.directory.get('app1'); // loads now, before the change below
    w.publish('second');
    w.watch();
    expect(await racing).toEqual(['first']);
    await w.project();
    expect(await w.directory.get('app1')).toEqual(['first', 'second']);
  });
});
