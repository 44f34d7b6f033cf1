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
});
