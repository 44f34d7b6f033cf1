import { describe, expect, it } from 'vitest';
import { IDLE_FETCH_WAIT_MS, gatherAsked } from './consumer.js';
import type { ConsumerGather } from './consumer.js';

// ADR 0086: the realtime replica gathers its broadcast fetches only while it holds no connection.
describe('gatherAsked', () => {
  it('follows the answer at every read: a gather while one is asked for, an idle fetch otherwise', () => {
    let now: ConsumerGather | null = { minBytes: 65_536, maxWaitMs: 50 };
    const busyFetch = gatherAsked(() => now);
    expect({ ...busyFetch }).toEqual({ minBytes: 65_536, maxWaitTimeInMs: 50 });
    now = null;
    expect({ ...busyFetch }).toEqual({ minBytes: 1, maxWaitTimeInMs: IDLE_FETCH_WAIT_MS });
    now = { minBytes: 4_096, maxWaitMs: 20 };
    expect({ ...busyFetch }).toEqual({ minBytes: 4_096, maxWaitTimeInMs: 20 });
  });
});
