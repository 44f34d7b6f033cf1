import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer.js';

describe('coalescer', () => {
  it('serves requests that arrive during a flush in one next batch, in order, per key', async () => {
    const batches: [string, number[]][] = [];
    let release: () => void = () => undefined;
    const coalescer = new Coalescer<number, number>(async (key, items) => {
      batches.push([key, items]);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((n) => n * 10);
    });
    const first = coalescer.submit('a', 1);
    const waiting = [coalescer.submit('a', 2), coalescer.submit('a', 3), coalescer.submit('b', 4)];
    release();
    expect(await Promise.all([first, ...waiting])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([['a', [1]], ['b', [4]], ['a', [2, 3]]]);
  });

  it('fails every request of a failed batch, and recovers for the next', async () => {
    let fail = true;
    const coalescer = new Coalescer<number, number>(async (_key, items) => {
      if (fail) throw new Error('down');
      return items;
    });
    await expect(coalescer.submit('a', 1)).rejects.toThrow('down');
    fail = false;
    expect(await coalescer.submit('a', 2)).toBe(2);
  });

  it('with gatherTurn, gathers into one batch what continuations submit in the same turn of the event loop', async () => {
    const batchesOf = async (gatherTurn: boolean): Promise<number[][]> => {
      const batches: number[][] = [];
      const coalescer = new Coalescer<number, number>(async (_key, items) => {
        batches.push(items);
        return items;
      }, { gatherTurn });
      // Three callers released together, each reaching its submit a different number of microtasks later.
      const released = Promise.resolve();
      const callers = [1, 2, 3].map(async (n) => {
        await released;
        for (let hop = 0; hop < n; hop++) await Promise.resolve();
        return coalescer.submit('all', n);
      });
      expect(await Promise.all(callers)).toEqual([1, 2, 3]);
      return batches;
    };
    expect((await batchesOf(false))[0]).toEqual([1]);
    expect(await batchesOf(true)).toEqual([[1, 2, 3]]);
  });

  it('with gatherTurn, still runs a lone request without a timer and keeps maxBatch', async () => {
    const batches: number[][] = [];
    const coalescer = new Coalescer<number, number>(async (_key, items) => {
      batches.push(items);
      return items;
    }, { gatherTurn: true, maxBatch: 2 });
    expect(await Promise.all([coalescer.submit('a', 1), coalescer.submit('a', 2), coalescer.submit('a', 3)])).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1, 2], [3]]);
    expect(await coalescer.submit('a', 4)).toBe(4);
  });
});
