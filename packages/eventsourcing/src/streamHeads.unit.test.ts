import { describe, expect, it } from 'vitest';
import { InMemoryCommitStore } from './memoryStore.js';
import type { StreamHead } from './store.js';
import { SAVED_HEAD_MIN_VERSION, StreamHeads } from './streamHeads.js';

/** The in-memory store, recording what is saved (it keeps no heads of its own). */
function recordingStore() {
  const saved: Array<Map<string, StreamHead>> = [];
  const store = Object.assign(new InMemoryCommitStore(), {
    saveHeads(heads: ReadonlyMap<string, StreamHead>): Promise<void> {
      saved.push(new Map(heads));
      return Promise.resolve();
    },
  });
  return { store, saved };
}

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
});
