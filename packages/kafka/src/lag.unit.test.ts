import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { LagReader } from './lag.js';

/** A broker's answers for one 2-partition topic, and how many OffsetFetch reads were made. */
function broker() {
  const state = { high: [5, 7], committed: { audit: [5, 7], projection: [5, 7], users: [-1, -1] } as Record<string, number[]>, offsetReads: 0, endReads: 0 };
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    fetchTopicOffsets: () => Promise.resolve(state.high.map((high, partition) => ({ partition, high: String(high), low: '0', offset: String(high) }))),
    fetchTopicEnds: (topics: string[]) => {
      state.endReads += 1;
      return Promise.resolve(topics.map((topic) => ({ topic, partitions: state.high.map((high, partition) => ({ partition, offset: String(high) })) })));
    },
    fetchOffsets: ({ groupId, topics }: { groupId: string; topics: string[] }) => {
      state.offsetReads += 1;
      return Promise.resolve(topics.map((topic) => ({ topic, partitions: (state.committed[groupId] ?? []).map((offset, partition) => ({ partition, offset: String(offset) })) })));
    },
  };
  return { state, kafka: { admin: () => admin } as unknown as Kafka };
}

describe('LagReader.highWatermarks', () => {
  it('reads every topic’s watermarks in one request, and none for no topic', async () => {
    const { state, kafka } = broker();
    const reader = new LagReader(kafka);
    expect(await reader.highWatermarks(['chat.users.events', 'chat.notifications.events'])).toEqual([
      { topic: 'chat.users.events', partition: 0, offset: 5 },
      { topic: 'chat.users.events', partition: 1, offset: 7 },
      { topic: 'chat.notifications.events', partition: 0, offset: 5 },
      { topic: 'chat.notifications.events', partition: 1, offset: 7 },
    ]);
    expect(state.endReads).toBe(1);
    expect(await reader.highWatermarks([])).toEqual([]);
    expect(state.endReads).toBe(1);
  });
});

describe('LagReader.measureGroups', () => {
  it('does not read the groups again while all had applied everything and nothing was produced', async () => {
    // A group that consumes none of the topics (committed nothing there) does not keep the answer from standing.
    const idle = broker();
    const withOthers = new LagReader(idle.kafka);
    await withOthers.measureGroups(['audit', 'users'], ['chat.messages.events']);
    await withOthers.measureGroups(['audit', 'users'], ['chat.messages.events']);
    expect(idle.state.offsetReads).toBe(2);

    const { state, kafka } = broker();
    const reader = new LagReader(kafka);
    const first = await reader.measureGroups(['audit', 'projection'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(2);
    expect(await reader.measureGroups(['audit', 'projection'], ['chat.messages.events'])).toEqual(first);
    expect(state.offsetReads).toBe(2);

    // Something produced: the groups are read again, and a group behind is reported.
    state.high = [6, 7];
    const behind = await reader.measureGroups(['audit', 'projection'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(4);
    expect(behind.filter((lag) => lag.lag > 0).map((lag) => [lag.groupId, lag.partition, lag.lag])).toEqual([
      ['audit', 0, 1],
      ['projection', 0, 1],
    ]);

    // Still behind (nothing produced, a group not yet committed): a group behind is read every time until
    // caught up; one that caught up is not read again.
    state.committed['audit'] = [6, 7];
    await reader.measureGroups(['audit', 'projection'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(6);
    state.committed['projection'] = [6, 7];
    await reader.measureGroups(['audit', 'projection'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(7);
    await reader.measureGroups(['audit', 'projection'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(7);

    // A group never read at these watermarks is read.
    await reader.measureGroups(['audit', 'users'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(8);
  });

  it('answers a reading of some of the settled groups from an earlier reading of them all (ADR 0134)', async () => {
    // The admission gate reads every counted group on a refresh and the consuming ones between refreshes.
    const { state, kafka } = broker();
    const reader = new LagReader(kafka);
    const all = await reader.measureGroups(['audit', 'projection', 'users'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(3);
    const consumers = await reader.measureGroups(['projection', 'audit'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(3);
    expect(consumers).toEqual([...all.filter((lag) => lag.groupId === 'projection'), ...all.filter((lag) => lag.groupId === 'audit')]);
    expect(await reader.measureGroups(['audit', 'projection', 'users'], ['chat.messages.events'])).toEqual(all);
    expect(state.offsetReads).toBe(3);

    // Another topic list is another question; something produced makes every group be read again.
    await reader.measureGroups(['audit'], ['chat.messages.events', 'chat.users.events']);
    expect(state.offsetReads).toBe(4);
    state.high = [6, 7];
    await reader.measureGroups(['projection', 'audit'], ['chat.messages.events']);
    expect(state.offsetReads).toBe(6);
  });
});
