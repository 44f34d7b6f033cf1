import { ApiError } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it, vi } from 'vitest';
import { CommandRunner } from './commandRunner.js';
import type { Decider, DomainEvent } from './decider.js';
import { InMemoryCommitStore } from './memoryStore.js';
import type { EventPublisher } from './store.js';

type CounterEvent = DomainEvent<'Incremented', { by: number }>;
const counter: Decider<{ total: number }, { by: number; max: number }, CounterEvent> = {
  initialState: () => ({ total: 0 }),
  decide: (command, state) => {
    if (state.total + command.by > command.max) throw new ApiError('ERR_BAD_REQUEST', 'over the maximum');
    return command.by === 0 ? [] : [{ type: 'Incremented', data: { by: command.by } }];
  },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  snapshotVersion: 1,
};

/** A message's facts as a read model would hold them: what the decisions below are made from. */
interface NoteFacts {
  deleted: boolean;
  reactions: string[];
}
type NoteCommand =
  | { type: 'Edit'; facts: NoteFacts }
  | { type: 'Delete'; facts: NoteFacts }
  | { type: 'React'; reaction: string; facts: NoteFacts };
type NoteEvent = DomainEvent<'Edited' | 'Deleted', Record<string, never>> | DomainEvent<'Reacted', { reaction: string }>;
const note: Decider<{ count: number }, NoteCommand, NoteEvent> = {
  initialState: () => ({ count: 0 }),
  decide: (command) => {
    if (command.facts.deleted) throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'deleted');
    if (command.type === 'React') {
      return command.facts.reactions.includes(command.reaction) ? [] : [{ type: 'Reacted', data: { reaction: command.reaction } }];
    }
    return [{ type: command.type === 'Edit' ? 'Edited' : 'Deleted', data: {} }];
  },
  evolve: (state) => ({ count: state.count + 1 }),
  snapshotVersion: 1,
};

const logger = { warn: () => undefined, info: () => undefined };

function metadata(correlationId = 'req-1') {
  return { appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const }, correlationId, now: new Date(1_000) };
}

function noteReadModel() {
  const facts: NoteFacts = { deleted: false, reactions: [] };
  return {
    facts,
    read: async (): Promise<NoteFacts> => {
      await Promise.resolve();
      return structuredClone(facts);
    },
    readModels: {
      apply: async (events: readonly EventEnvelope[]) => {
        // A slow read model: the runner must wait for it before a loser re-reads.
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const event of events) {
          if (event.type === 'Deleted') facts.deleted = true;
          if (event.type === 'Reacted') facts.reactions.push((event.data as { reaction: string }).reaction);
        }
      },
    },
  };
}

function recordingPublisher() {
  const published: EventEnvelope[] = [];
  const publisher: EventPublisher = { publish: async (events) => void published.push(...events) };
  return { published, publisher };
}

describe('the command runner', () => {
  it('appends envelopes with consecutive versions, applies them before answering, and publishes them in order', async () => {
    const store = new InMemoryCommitStore();
    const { published, publisher } = recordingPublisher();
    const applied: string[] = [];
    const runner = new CommandRunner({ store, publisher, logger, readModels: { apply: async (events) => void applied.push(...events.map((e) => e.id)) } });
    const first = await runner.run({ decider: counter, streamId: 's', command: { by: 2, max: 10 }, metadata: metadata() });
    expect(applied).toEqual([first.events[0]?.id]);
    const second = await runner.run({ decider: counter, streamId: 's', command: { by: 3, max: 10 }, metadata: metadata() });
    expect(first.events[0]).toMatchObject({ type: 'Incremented', version: 1, streamId: 's', appId: 'app', correlationId: 'req-1', causationId: null });
    expect(second.events[0]?.version).toBe(2);
    expect(second.state).toEqual({ total: 5 });
    await runner.stop();
    expect(published.map((e) => e.id)).toEqual([first.events[0]?.id, second.events[0]?.id]);
    expect(await store.unpublished()).toEqual([]);
  });

  it('published() resolves once what was appended before it is on Kafka, and gives up after its bound', async () => {
    const published: string[] = [];
    let release: () => void = () => undefined;
    let hold = true;
    const publisher: EventPublisher = {
      publish: async (events) => {
        if (hold) await new Promise<void>((resolve) => (release = resolve));
        published.push(...events.map((e) => e.id));
      },
    };
    const runner = new CommandRunner({ store: new InMemoryCommitStore(), publisher, logger, readModels: { apply: async () => undefined } });
    const written = await runner.run({ decider: counter, streamId: 's', command: { by: 1, max: 10 }, metadata: metadata() });
    expect(published).toEqual([]); // the command answered before Kafka had it
    expect(await runner.published(50)).toBe(false);
    const waiting = runner.published(5_000);
    release();
    expect(await waiting).toBe(true);
    expect(published).toEqual([written.events[0]?.id]);
    hold = false;
    await runner.stop();
  });

  it('hands the publisher no trace contexts while tracing is off (no SDK registered)', async () => {
    const origins: unknown[] = [];
    const publisher: EventPublisher = { publish: async (_events, given) => void origins.push(given) };
    const runner = new CommandRunner({ store: new InMemoryCommitStore(), publisher, logger, readModels: { apply: async () => undefined } });
    await runner.run({ decider: counter, streamId: 's', command: { by: 1, max: 5 }, metadata: metadata() });
    await runner.stop();
    expect(origins).toEqual([undefined]);
  });

  it('sets causationId when a command reacts to an event', async () => {
    const runner = new CommandRunner({ store: new InMemoryCommitStore(), publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } });
    const result = await runner.run({ decider: counter, streamId: 's', command: { by: 1, max: 5 }, metadata: { ...metadata(), causationId: 'event-7' } });
    expect(result.events[0]?.causationId).toBe('event-7');
  });

  it('writes nothing for a command that decides no events', async () => {
    const store = new InMemoryCommitStore();
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } });
    const result = await runner.run({ decider: counter, streamId: 's', command: { by: 0, max: 10 }, metadata: metadata() });
    expect(result.events).toEqual([]);
    expect(store.all()).toHaveLength(0);
  });

  it('refuses an edit that lost the race to a delete: the retry re-reads the facts', async () => {
    const model = noteReadModel();
    const runner = new CommandRunner({ store: new InMemoryCommitStore(), publisher: recordingPublisher().publisher, logger, readModels: model.readModels });
    const build = (type: 'Edit' | 'Delete') => async (): Promise<NoteCommand> => ({ type, facts: await model.read() });
    const [deleted, edited] = await Promise.allSettled([
      runner.run({ decider: note, streamId: 'm', command: build('Delete'), metadata: metadata() }),
      runner.run({ decider: note, streamId: 'm', command: build('Edit'), metadata: metadata() }),
    ]);
    expect(deleted.status).toBe('fulfilled');
    expect(edited).toMatchObject({ status: 'rejected', reason: { code: 'ERR_MESSAGE_ACTION_NOT_ALLOWED' } });
  });

  it('turns two identical concurrent reactions into one event', async () => {
    const model = noteReadModel();
    const store = new InMemoryCommitStore();
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels: model.readModels });
    const react = async (): Promise<NoteCommand> => ({ type: 'React', reaction: '👍', facts: await model.read() });
    const results = await Promise.all([
      runner.run({ decider: note, streamId: 'm', command: react, metadata: metadata() }),
      runner.run({ decider: note, streamId: 'm', command: react, metadata: metadata() }),
    ]);
    expect(results.flatMap((r) => r.events)).toHaveLength(1);
    expect(store.all().flatMap((c) => c.events).map((e) => e.type)).toEqual(['Reacted']);
  });

  it('appends concurrent commands together, and a conflict in the group fails only its own command', async () => {
    const store = new InMemoryCommitStore();
    const appendBatch = vi.spyOn(store, 'appendBatch');
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } });
    // A first command occupies the store, so the next three queue up and go in one group.
    const warmUp = runner.run({ decider: counter, streamId: 'w', command: { by: 1, max: 9 }, metadata: metadata() });
    // Another writer took version 1 of stream x behind this runner's back.
    store.appendOne({
      commitId: 'rival', appId: 'app', streamId: 'x', startVersion: 1, endVersion: 1, position: 0, committedAt: new Date(0),
      events: [], snapshot: { version: 1, state: { total: 4 } },
    });
    const [x, y, z] = await Promise.all(
      ['x', 'y', 'z'].map((streamId) => runner.run({ decider: counter, streamId, command: { by: 1, max: 9 }, metadata: metadata() })),
    );
    await warmUp;
    expect(appendBatch.mock.calls[1]?.[0].commits.map((c) => c.streamId)).toEqual(['x', 'y', 'z']);
    expect([y?.version, z?.version]).toEqual([1, 1]);
    expect(x).toMatchObject({ version: 2, state: { total: 5 } });
  });

  it('applies the commands of one grouped append to the read models in one call', async () => {
    const store = new InMemoryCommitStore();
    const append = store.appendBatch.bind(store);
    // Answered in a later turn of the event loop, as a real store's insert is.
    const appendBatch = vi.spyOn(store, 'appendBatch').mockImplementation(async (batch) => {
      await new Promise(setImmediate);
      return append(batch);
    });
    const applied: string[][] = [];
    const readModels = {
      apply: async (events: readonly EventEnvelope[]) => {
        applied.push(events.map((e) => e.streamId));
      },
    };
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels });
    // A first command occupies the store, so the next three queue up and go in one group.
    const warmUp = runner.run({ decider: counter, streamId: 'w', command: { by: 1, max: 9 }, metadata: metadata() });
    await Promise.all(['x', 'y', 'z'].map((streamId) => runner.run({ decider: counter, streamId, command: { by: 1, max: 9 }, metadata: metadata() })));
    await warmUp;
    expect(appendBatch.mock.calls.map((call) => call[0].commits.map((c) => c.streamId))).toEqual([['w'], ['x', 'y', 'z']]);
    // Released together, the group's lanes share one apply instead of the first going alone (main:
    // [w], [x], [y, z]); here the second group lands before the first apply starts, so it joins too.
    expect(applied.flat()).toEqual(['w', 'x', 'y', 'z']);
    expect(applied.length).toBeLessThanOrEqual(appendBatch.mock.calls.length);
    expect(applied.find((streams) => streams.includes('x'))).toEqual(expect.arrayContaining(['x', 'y', 'z']));
  });

  it('prepares a command at once on an idle stream, and behind a turn still appending once that append is acknowledged', async () => {
    const store = new InMemoryCommitStore();
    const append = store.appendBatch.bind(store);
    const steps: string[] = [];
    vi.spyOn(store, 'appendBatch').mockImplementation(async (batch) => {
      await new Promise(setImmediate);
      steps.push(`appended ${batch.commits.map((c) => c.events.length).join('+')}`);
      return append(batch);
    });
    const readModels = {
      apply: async () => {
        steps.push('apply');
        await new Promise(setImmediate);
      },
    };
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels });
    const run = (name: string) =>
      runner.run({
        decider: counter,
        streamId: 's',
        batchable: true,
        prepare: () => steps.push(`prepare ${name}`),
        command: () => {
          steps.push(`build ${name}`);
          return { by: 1, max: 9 };
        },
        metadata: metadata(),
      });
    const first = run('a');
    expect(steps).toEqual(['prepare a']);
    // Queued while a's turn waits for its append: not prepared until then.
    const queued = [run('b'), run('c')];
    expect(steps).toEqual(['prepare a']);
    await Promise.all([first, ...queued]);
    expect(steps).toEqual(['prepare a', 'build a', 'appended 1', 'prepare b', 'prepare c', 'apply', 'build b', 'build c', 'appended 2', 'apply']);
  });

  it('decides batchable commands queued on one stream in one turn, appends them as one commit, and a refusal fails only its own command', async () => {
    const store = new InMemoryCommitStore();
    const appendBatch = vi.spyOn(store, 'appendBatch');
    const runner = new CommandRunner({ store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } });
    const run = (by: number) => runner.run({ decider: counter, streamId: 'hot', command: { by, max: 10 }, metadata: metadata(), batchable: true });
    // The first takes a turn alone; the rest queue behind it and share the next one.
    const results = await Promise.allSettled([run(1), run(2), run(9), run(3), run(4)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const fulfilled = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(fulfilled.map((r) => [r.version, r.state])).toEqual([[1, { total: 1 }], [2, { total: 3 }], [3, { total: 6 }], [4, { total: 10 }]]);
    expect(appendBatch).toHaveBeenCalledTimes(2);
    expect(store.all().map((c) => [c.startVersion, c.endVersion])).toEqual([[1, 1], [2, 4]]);
    expect(store.all().flatMap((c) => c.events).map((e) => e.version)).toEqual([1, 2, 3, 4]);
  });

  it('gives a command that is not batchable a turn of its own, after the previous one is applied', async () => {
    const model = noteReadModel();
    const runner = new CommandRunner({ store: new InMemoryCommitStore(), publisher: recordingPublisher().publisher, logger, readModels: model.readModels });
    const react = async (): Promise<NoteCommand> => ({ type: 'React', reaction: '👍', facts: await model.read() });
    const results = await Promise.all(Array.from({ length: 4 }, () => runner.run({ decider: note, streamId: 'm', command: react, metadata: metadata() })));
    expect(results.flatMap((r) => r.events)).toHaveLength(1);
  });

  it('publishes in order after failures, and a new process republishes what a crashed one left', async () => {
    const store = new InMemoryCommitStore();
    // The process dies between append and produce: its publisher never answers.
    const stuck: EventPublisher = { publish: () => new Promise<void>(() => undefined) };
    const crashed = new CommandRunner({ store, publisher: stuck, logger, readModels: { apply: async () => undefined } });
    const acknowledged = await crashed.run({ decider: counter, streamId: 's', command: { by: 1, max: 9 }, metadata: metadata() });

    let failures = 2;
    const published: EventEnvelope[] = [];
    const flaky: EventPublisher = {
      publish: async (events) => {
        if (failures-- > 0) throw new Error('broker down');
        published.push(...events);
      },
    };
    const next = new CommandRunner({ store, publisher: flaky, logger, readModels: { apply: async () => undefined }, outbox: { retry: { baseMs: 1, maxMs: 2 } } });
    await next.start();
    const later = await next.run({ decider: counter, streamId: 's', command: { by: 1, max: 9 }, metadata: metadata() });
    await next.stop();
    expect(published.map((e) => [e.streamId, e.version])).toEqual([['s', 1], ['s', 2]]);
    expect(published.map((e) => e.id)).toEqual([acknowledged.events[0]?.id, later.events[0]?.id]);
    expect(await store.unpublished()).toEqual([]);
  });

  it('decides an expected-new stream without reading it, and one that existed after all on its real state', async () => {
    const store = new InMemoryCommitStore();
    const readHead = vi.spyOn(store, 'readHead');
    const options = { store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } };
    const fresh = await new CommandRunner(options).run({ decider: counter, streamId: 'new', command: { by: 2, max: 10 }, metadata: metadata(), expectNew: true });
    expect(fresh.version).toBe(1);
    expect(readHead).not.toHaveBeenCalled();
    // Another process (no cached head) believes the stream is new: the append conflicts, the retry reads it.
    const late = await new CommandRunner(options).run({ decider: counter, streamId: 'new', command: { by: 3, max: 10 }, metadata: metadata(), expectNew: true });
    expect(late.state).toEqual({ total: 5 });
    expect(late.version).toBe(2);
    expect(readHead).toHaveBeenCalled();
  });

  it('decides a refusal or a no-op made on a head in memory again when another replica appended since; queries see it too', async () => {
    type SetEvent = DomainEvent<'Added' | 'Removed', { item: string }>;
    const set: Decider<{ items: string[] }, { add?: string; remove?: string }, SetEvent> = {
      initialState: () => ({ items: [] }),
      decide: (command, state) => {
        if (command.remove !== undefined) {
          if (!state.items.includes(command.remove)) throw new ApiError('ERR_BAD_REQUEST', `no ${command.remove}`);
          return [{ type: 'Removed', data: { item: command.remove } }];
        }
        return state.items.includes(command.add!) ? [] : [{ type: 'Added', data: { item: command.add! } }];
      },
      evolve: (state, event) => ({ items: event.type === 'Added' ? [...state.items, event.data.item] : state.items.filter((i) => i !== event.data.item) }),
      snapshotVersion: 1,
    };
    const store = new InMemoryCommitStore();
    const options = { store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } };
    const [one, other] = [new CommandRunner(options), new CommandRunner(options)];
    const run = (runner: CommandRunner, command: { add?: string; remove?: string }) => runner.run({ decider: set, streamId: 's', command, metadata: metadata() });
    await run(one, { add: 'a' }); // `one` now holds the head in memory: [a]
    await run(other, { add: 'b' });
    // Refused on [a], allowed on the stored [a, b].
    expect((await run(one, { remove: 'b' })).state).toEqual({ items: ['a'] });
    await run(other, { remove: 'a' });
    // A no-op on [a] in memory; the store has [], so it adds.
    const added = await run(one, { add: 'a' });
    expect(added.events.map((e) => e.type)).toEqual(['Added']);
    await run(other, { add: 'c' });
    expect((await one.load(set, 's')).state).toEqual({ items: ['a', 'c'] });
    // A refusal that stands on the current head costs one look-up and is answered.
    await expect(run(one, { remove: 'z' })).rejects.toThrow('no z');
    expect(store.all()).toHaveLength(6);
  });

  it('replays the stream when the stored snapshot has another shape version', async () => {
    const store = new InMemoryCommitStore();
    const options = { store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined } };
    await new CommandRunner(options).run({ decider: counter, streamId: 's', command: { by: 2, max: 10 }, metadata: metadata() });
    const changed = { ...counter, snapshotVersion: 2 };
    const result = await new CommandRunner(options).run({ decider: changed, streamId: 's', command: { by: 1, max: 10 }, metadata: metadata() });
    expect(result.state).toEqual({ total: 3 });
  });

  it('refuses a command with 503 when too many wait for the store, instead of queueing them for minutes', async () => {
    const store = new InMemoryCommitStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const original = store.appendBatch.bind(store);
    vi.spyOn(store, 'appendBatch').mockImplementation(async (batch) => {
      await gate;
      return original(batch);
    });
    const runner = new CommandRunner({
      store, publisher: recordingPublisher().publisher, logger, readModels: { apply: async () => undefined }, groupCommit: { maxWaiting: 3 },
    });
    const run = (streamId: string) => runner.run({ decider: counter, streamId, command: { by: 1, max: 9 }, metadata: metadata() });
    const accepted = [run('a'), run('b'), run('c')];
    await expect(run('d')).rejects.toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE', status: 503 });
    release();
    expect(await Promise.all(accepted)).toHaveLength(3);
  });
});
