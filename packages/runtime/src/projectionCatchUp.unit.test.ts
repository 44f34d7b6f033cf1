import type { PartitionLag, Watermark } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { ProjectionCatchUp } from './projectionCatchUp.js';

/** A broker in memory: the topic's ends and the group's committed offsets, moved by the test. */
function broker(ends: number[]) {
  const committed = ends.map(() => -1);
  let measures = 0;
  return {
    committed,
    get measures() {
      return measures;
    },
    ends,
    positions: {
      highWatermarks: async (): Promise<Watermark[]> => ends.map((offset, partition) => ({ topic: 't', partition, offset })),
      measure: async (groupId: string): Promise<PartitionLag[]> => {
        measures += 1;
        return ends.map((end, partition) => ({ groupId, topic: 't', partition, end, committed: committed[partition]!, lag: 0 }));
      },
    },
  };
}

const options = { groupId: 'calls.projections.chat_calls', topics: ['t'], timeoutMs: 300, pollMs: 5 };

describe('projection catch-up', () => {
  it('waits until the group has committed every partition up to the ends read when the request came', async () => {
    const kafka = broker([3, 0, 2]);
    const catchUp = new ProjectionCatchUp({ ...options, positions: kafka.positions });
    let done = false;
    const waiting = catchUp.caughtUp().then((fresh) => {
      done = true;
      return fresh;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(done).toBe(false);
    kafka.committed[0] = 3;
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Partition 2 is still behind; the empty partition 1 never holds a read up.
    expect(done).toBe(false);
    kafka.committed[2] = 2;
    expect(await waiting).toBe(true);
  });

  it('answers after its bound when the group stays behind, and says so', async () => {
    const kafka = broker([1]);
    const catchUp = new ProjectionCatchUp({ ...options, positions: kafka.positions });
    const started = Date.now();
    expect(await catchUp.caughtUp()).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(catchUp.counters.timeouts).toBe(1);
  });

  it('does not poll the group while nobody waits, nor for a read the last round covers, nor while the topic is still', async () => {
    const kafka = broker([2]);
    kafka.committed[0] = 2;
    const catchUp = new ProjectionCatchUp({ ...options, positions: kafka.positions });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(kafka.measures).toBe(0);
    const before = Date.now();
    expect(await catchUp.caughtUp(before)).toBe(true);
    expect(await catchUp.caughtUp(before)).toBe(true);
    expect(catchUp.counters.rounds).toBe(1);
    const polled = kafka.measures;
    // A later read on a topic nothing was produced to since: one watermark read, no offset fetch.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await catchUp.caughtUp()).toBe(true);
    expect(catchUp.counters.rounds).toBe(2);
    expect(kafka.measures).toBe(polled);
    // Something produced: the next read polls again until the group has it.
    kafka.ends[0] = 3;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const waiting = catchUp.caughtUp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    kafka.committed[0] = 3;
    expect(await waiting).toBe(true);
    expect(kafka.measures).toBeGreaterThan(polled);
  });
});
