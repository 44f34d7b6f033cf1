import { describe, expect, it } from 'vitest';
import { InMemoryCommitStore } from './memoryStore.js';
import type { StreamHead } from './store.js';
import { HEADS_PER_SAVE_COMMAND, SAVED_HEAD_MIN_VERSION, StreamHeads } from './streamHeads.js';

/** The in-memory store, recording what is saved (it keeps no heads of its own). */
function recordingStore(failOnCall?: number) {
  const saved: Array<Map<string, StreamHead>> = [];
  let calls = 0;
  const store = Object.assign(new InMemoryCommitStore(), {
    saveHeads(heads: ReadonlyMap<string, StreamHead>): Promise<void> {
      calls += 1;
      if (calls === failOnCall) return Promise.reject(new Error('store away'));
      saved.push(new Map(heads));
      return Promise.resolve();
    },
  });
  return { store, saved };
}

const streams = (count: number) => Array.from({ length: count }, (_, i) => `s${String(i).padStart(3, '0')}`);

describe('StreamHeads', () => {
  it('saves the changed heads of streams old enough, the newest head of each, once', async () => {
    const { store, saved } = recordingStore();
    const heads = new StreamHeads(store);
    heads.remember('young', { version: SAVED_HEAD_MIN_VERSION - 1 }, true);
    heads.remember('grown', { version: SAVED_HEAD_MIN_VERSION }, true);
    heads.remember('grown', { version: SAVED_HEAD_MIN_VERSION + 2 }, true);
    heads.remember('loaded', { version: 50 }, false);
    await heads.save();
    expect(saved).toEqual([new Map([['grown', { version: SAVED_HEAD_MIN_VERSION + 2 }]])]);
    // Nothing changed since: no second write.
    await heads.save();
    expect(saved).toHaveLength(1);
    // The young stream is still served from memory.
    expect(heads.get('young')).toEqual({ version: SAVED_HEAD_MIN_VERSION - 1 });
  });

  it('saves many heads in commands of a few each, so no one command holds the store long', async () => {
    const { store, saved } = recordingStore();
    const heads = new StreamHeads(store);
    const ids = streams(3 * HEADS_PER_SAVE_COMMAND + 1);
    for (const id of ids) heads.remember(id, { version: SAVED_HEAD_MIN_VERSION + 1 }, true);
    await heads.save();
    expect(saved.length).toBe(4);
    for (const command of saved) expect(command.size).toBeLessThanOrEqual(HEADS_PER_SAVE_COMMAND);
    expect(saved.flatMap((command) => [...command.keys()])).toEqual(ids);
  });

  it('keeps the heads a failed command and the ones after it did not save for the next save', async () => {
    const { store, saved } = recordingStore(2);
    const heads = new StreamHeads(store);
    const ids = streams(3 * HEADS_PER_SAVE_COMMAND);
    for (const id of ids) heads.remember(id, { version: SAVED_HEAD_MIN_VERSION }, true);
    await expect(heads.save()).rejects.toThrow('store away');
    // Changed again meanwhile: the newer head is the one kept.
    heads.remember(ids.at(-1)!, { version: SAVED_HEAD_MIN_VERSION + 5 }, true);
    await heads.save();
    const written = new Map(saved.flatMap((command) => [...command]));
    expect([...written.keys()].sort()).toEqual(ids);
    expect(written.get(ids.at(-1)!)).toEqual({ version: SAVED_HEAD_MIN_VERSION + 5 });
    expect(saved.reduce((sum, command) => sum + command.size, 0)).toBe(ids.length);
  });
});
