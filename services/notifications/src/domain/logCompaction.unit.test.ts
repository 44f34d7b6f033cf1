import { describe, expect, it } from 'vitest';
import { compacted, expanded } from './logCompaction.js';

/** A small seeded generator, so a failure names the seed that shows it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A message's log entries as the notifier writes them: skips without payload, calls with one per recipient. */
function entries(next: () => number): Array<Record<string, unknown>> {
  const count = 1 + Math.floor(next() * 6);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const recipient = pick(['bob', 'carol', 'dave']);
    const call = next() < 0.6;
    return {
      _id: `n${i}${call ? '-1' : ''}`,
      appId: 'app1',
      messageId: 'm1',
      recipient,
      channel: pick(['push', 'email']),
      ...(next() < 0.5 ? { provider: pick(['custom', 'fcm']) } : {}),
      notificationTriggered: call,
      ...(call
        ? {
            attempt: 1,
            payload: {
              trigger: 'push-notification-payload-generated',
              data: { to: { uid: recipient, ...(next() < 0.3 ? { email: `${recipient}@x.test` } : {}) }, notificationDetails: { title: 'alice', body: pick(['hi', 'hello']), list: [1, 2] } },
              ...(next() < 0.2 ? {} : { region: 'us' }),
              ...(next() < 0.1 ? { extra: null } : {}),
            },
          }
        : { reason: 'MUTE_PREFERENCE' }),
      processingStartedAtMS: 1_000 + Math.floor(next() * 3),
    };
  });
}

describe('log documents store their entries compactly and give them back as they were', () => {
  it('round-trips random entries (seeds 1–300), through JSON as the store keeps them', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const given = entries(random(seed));
      const stored = JSON.parse(JSON.stringify(compacted(given))) as ReturnType<typeof compacted>;
      expect(expanded(stored), `seed ${seed}`).toEqual(given);
    }
  });

  it('stores what entries hold alike once, and a payload as its changes from the first', () => {
    const payload = (uid: string) => ({ trigger: 't', data: { to: { uid }, notificationDetails: { title: 'alice', body: 'a long text' } } });
    const given = ['bob', 'carol', 'dave'].map((uid, i) => ({ _id: `n${i}-1`, messageId: 'm1', sender: 'alice', recipient: uid, payload: payload(uid) }));
    const stored = compacted(given);
    expect(stored.shared).toEqual({ messageId: 'm1', sender: 'alice' });
    expect(stored.entries[1]).toEqual({ _id: 'n1-1', recipient: 'carol', payloadChanges: [{ path: ['data', 'to', 'uid'], value: 'carol' }] });
    expect(JSON.stringify(stored).split('a long text')).toHaveLength(2);
    expect(expanded(stored)).toEqual(given);
  });

  it('stores no array directly inside an array (FerretDB refuses them)', () => {
    const nested = (value: unknown): boolean => Array.isArray(value) ? value.some((v) => Array.isArray(v) || nested(v)) : typeof value === 'object' && value !== null && Object.values(value).some(nested);
    for (let seed = 1; seed <= 100; seed++) expect(nested(compacted(entries(random(seed)))), `seed ${seed}`).toBe(false);
  });

  it('leaves a document of one entry, and one written before compaction, as they are', () => {
    const one = [{ _id: 'n1', messageId: 'm1', payload: { a: 1 } }];
    expect(compacted(one)).toEqual({ entries: one });
    expect(expanded({ entries: one })).toEqual(one);
  });
});
