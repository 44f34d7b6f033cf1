import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BacklogGate, deploymentGroups } from './backlogGate.js';
import { BacklogPolicy } from './backlogPolicy.js';
import type { GroupPosition } from './backlogPolicy.js';
import type { PartitionLag } from '@chat/kafka';

const limits = { maxDrainMs: 5_000, minLag: 100 };

/** Feeds one group's (lag, applied) readings a second apart; returns each verdict's shedding flag. */
function run(policy: BacklogPolicy, readings: ReadonlyArray<[lag: number, applied: number]>, groupId = 'g'): boolean[] {
  return readings.map(([lag, applied], i) => policy.observe([{ groupId, lag, applied }], i * 1_000).shedding);
}

describe('BacklogPolicy', () => {
  it('sheds when a stalled group’s backlog keeps growing past the bound, and not before two rising ticks', () => {
    // Applies nothing; 200 new records a second.
    const shed = run(new BacklogPolicy(limits), [
      [0, 0],
      [200, 0],
      [400, 0],
      [600, 0],
    ]);
    expect(shed).toEqual([false, false, true, true]);
  });

  it('takes writes again only once the backlog could be applied in half the bound', () => {
    const policy = new BacklogPolicy(limits);
    // 100/s applied, 300/s arriving: 2,000 behind after 10 s (20 s to drain) → shedding.
    const readings: Array<[number, number]> = [];
    for (let s = 0; s <= 10; s += 1) readings.push([200 * s, 100 * s]);
    expect(run(policy, readings).at(-1)).toBe(true);
    // Writes stop; the group applies 100/s: still shedding at 400 behind (4 s), free at 200 (2 s ≤ 2.5 s).
    const after = [1_000, 700, 400, 200].map((lag, i) => policy.observe([{ groupId: 'g', lag, applied: 1_000 + 100 * (i + 1) }], 11_000 + i * 1_000).shedding);
    expect(after).toEqual([true, true, true, false]);
  });

  it('does not shed for a group replaying history (its backlog shrinks) or for a burst below the floor', () => {
    const replaying: Array<[number, number]> = [
      [100_000, 0],
      [98_000, 2_000],
      [96_000, 4_000],
      [94_000, 6_000],
    ];
    expect(run(new BacklogPolicy(limits), replaying)).toEqual([false, false, false, false]);
    const small: Array<[number, number]> = [
      [10, 0],
      [40, 0],
      [90, 0],
    ];
    expect(run(new BacklogPolicy(limits), small)).toEqual([false, false, false]);
  });

  it('judges a busy group by the fastest pace it showed recently, not by one idle tick', () => {
    const policy = new BacklogPolicy(limits);
    // It applied 1,000/s a moment ago; a backlog of 1,500 that grew twice drains in 1.5 s: no shedding.
    const verdicts = [
      [0, 0],
      [0, 1_000],
      [500, 1_000],
      [1_500, 1_000],
    ].map(([lag, applied], i) => policy.observe([{ groupId: 'g', lag: lag!, applied: applied! }], i * 1_000));
    expect(verdicts.map((v) => v.shedding)).toEqual([false, false, false, false]);
    expect(verdicts.at(-1)?.worst).toEqual({ groupId: 'g', lag: 1_500, drainMs: 1_500 });
  });

  it('names the worst group, bounds Retry-After to 1–10 s, forgets groups that went away, and never sheds when off', () => {
    const policy = new BacklogPolicy(limits);
    const tick = (positions: GroupPosition[], at: number) => policy.observe(positions, at);
    tick([{ groupId: 'fast', lag: 0, applied: 0 }, { groupId: 'stuck', lag: 0, applied: 0 }], 0);
    tick([{ groupId: 'fast', lag: 150, applied: 500 }, { groupId: 'stuck', lag: 300, applied: 0 }], 1_000);
    const behind = tick([{ groupId: 'fast', lag: 160, applied: 1_000 }, { groupId: 'stuck', lag: 600, applied: 0 }], 2_000);
    expect(behind).toMatchObject({ shedding: true, retryAfterSeconds: 10, worst: { groupId: 'stuck', lag: 600 } });
    const gone = tick([{ groupId: 'fast', lag: 0, applied: 1_160 }], 3_000);
    expect(gone).toMatchObject({ shedding: false, retryAfterSeconds: 1, worst: null });

    const off = new BacklogPolicy({ ...limits, maxDrainMs: 0 });
    expect(run(off, [
      [0, 0],
      [500, 0],
      [1_000, 0],
      [1_500, 0],
    ])).toEqual([false, false, false, false]);
  });
});

describe('BacklogGate', () => {
  const lagsOf = (groupId: string, lag: number, committed: number): PartitionLag[] => [
    { groupId, topic: 't', partition: 0, end: committed + lag, committed, lag },
    // A partition the group has not started on counts for nothing.
    { groupId, topic: 't', partition: 1, end: 50, committed: -1, lag: 0 },
  ];

  it('reads the counted groups’ positions, refuses while behind, and admits when the broker cannot be read', async () => {
    let clock = 0;
    let lag = 0;
    let broken = false;
    const measured: string[][] = [];
    const gate = new BacklogGate({
      ...limits,
      intervalMs: 1_000,
      topics: ['t'],
      countsGroup: (id) => id.startsWith('ours.'),
      logger: pino({ level: 'silent' }),
      now: () => clock,
      lags: {
        groupIds: async () => ['ours.a', 'theirs.b'],
        measureGroups: async (groups) => {
          if (broken) throw new Error('broker away');
          measured.push([...groups]);
          return groups.flatMap((g) => lagsOf(g, lag, 10));
        },
      },
    });
    for (const next of [0, 300, 600]) {
      lag = next;
      await gate.tick();
      clock += 1_000;
    }
    expect(measured.every((groups) => groups.join() === 'ours.a')).toBe(true);
    const refusal = gate.refusal();
    expect(refusal?.retryAfterSeconds).toBe(10);
    expect(refusal?.message).toContain('600 events not yet applied');
    broken = true;
    await gate.tick();
    expect(gate.refusal()).toBeNull();
    await gate.stop();
  });
  it('reads a group that commits nothing on the topics only when the group list is read again', async () => {
    const measured: string[] = [];
    let idleStarted = false;
    const gate = new BacklogGate({
      ...limits,
      intervalMs: 1_000,
      topics: ['t'],
      countsGroup: () => true,
      logger: pino({ level: 'silent' }),
      now: () => 0,
      lags: {
        groupIds: async () => ['busy', 'idle'],
        measureGroups: async (groups) => {
          measured.push(groups.join());
          // `idle` commits on the topic from its fourth reading on (a consumer deployed meanwhile).
          return groups.flatMap((g) => (g === 'busy' || idleStarted ? lagsOf(g, 0, 10) : [{ groupId: g, topic: 't', partition: 0, end: 10, committed: -1, lag: 0 }]));
        },
      },
    });
    for (let tick = 0; tick < 12; tick += 1) {
      if (tick === 3) idleStarted = true;
      await gate.tick();
    }
    // Every tenth reading (the group list's) reads every group; the ones between, the consumers only.
    expect(measured).toEqual(['busy,idle', ...Array<string>(9).fill('busy'), 'busy,idle', 'busy,idle']);
    await gate.stop();
  });
});

describe('deploymentGroups', () => {
  it('counts this deployment’s groups by their database suffix, not watches or other teams’ groups', () => {
    const counts = deploymentGroups('chat_messages_t1abc', 'messages');
    expect(counts('conversations.timelines.chat_conversations_t1abc')).toBe(true);
    expect(counts('webhooks.chat_webhooks_t1abc')).toBe(true);
    expect(counts('webhooks.chat_webhooks_t2xyz')).toBe(false);
    expect(counts('analytics-team')).toBe(false);
    expect(counts('webhooks.config.chat_webhooks_t1abc.watch.3f2a')).toBe(false);
    const plain = deploymentGroups('chat_messages', 'messages');
    expect(plain('notifications.chat_notifications')).toBe(true);
    expect(plain('notifications.chat_notifications_t1abc')).toBe(false);
    const custom = deploymentGroups('tenant_store', 'messages');
    expect(custom('notifications.tenant_store')).toBe(true);
    expect(custom('notifications.other')).toBe(false);
  });
});
