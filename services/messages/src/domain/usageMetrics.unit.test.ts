import { describe, expect, it } from 'vitest';
import { evolveCall } from './callRecord.js';
import type { CallMessage, CallRecord } from './callRecord.js';
import { messageMetrics, usageMetrics } from './usageMetrics.js';

const day = Date.UTC(2026, 0, 10) / 1000;

function call(sessionId: string, type: 'audio' | 'video', from: string, to: string, start: number, talk: number, extra: Partial<CallMessage> = {}): CallRecord {
  const base = { sessionId, type, receiverType: 'user' as const, ...extra };
  let record = evolveCall(null, { ...base, id: '1', sender: from, receiver: to, action: 'initiated', sentAt: start });
  record = evolveCall(record, { ...base, id: '2', sender: to, receiver: from, action: 'ongoing', sentAt: start + 5 });
  return evolveCall(record, { ...base, id: '3', sender: from, receiver: to, action: 'ended', sentAt: start + 5 + talk });
}

describe('usage metrics', () => {
  it('counts participant minutes by call type, recorded minutes, active senders and the peak in calls', () => {
    const calls = [
      call('a', 'audio', 'ann', 'ben', day, 120, { hasRecording: true }),
      call('b', 'video', 'cat', 'dan', day + 60, 600),
    ];
    const messages = [
      { sender: 'ann', type: 'text', category: 'message', sentAt: day },
      { sender: 'ann', type: 'text', category: 'message', sentAt: day + 10 },
      { sender: 'eve', type: 'image', category: 'message', sentAt: day + 20 },
      { sender: 'app_system', type: 'groupMember', category: 'action', sentAt: day + 30 },
    ];
    const { metrics } = usageMetrics(messages, calls, { fromDate: day, toDate: day + 86_399 });
    expect(metrics).toEqual({ audio_minutes: 4, video_minutes: 20, recorded_minutes: 4, active_users: 2, concurrent_users: 4 });
    // Only the part of a call inside the range counts.
    expect(usageMetrics([], calls, { fromDate: day, toDate: day + 65 }).metrics).toMatchObject({ audio_minutes: 2, concurrent_users: 2 });
  });

  it('gives one data point per day of the range with messages by type and category', () => {
    const messages = [
      { sender: 'ann', type: 'text', category: 'message', sentAt: day + 5 },
      { sender: 'ben', type: 'audio', category: 'call', sentAt: day + 86_400 + 5 },
      { sender: 'ben', type: 'text', category: 'message', sentAt: day + 86_400 + 6 },
    ];
    const result = messageMetrics('app1', messages, { fromDate: day, toDate: day + 2 * 86_400 + 100 });
    expect(result.dataPoints.map((p) => [p.date, p.messages, p.activeUsers])).toEqual([
      ['2026-01-10', 1, 1],
      ['2026-01-11', 2, 1],
      ['2026-01-12', 0, 0],
    ]);
    expect(result.dataPoints[1]).toMatchObject({ byType: { audio: 1, text: 1 }, byCategory: { call: 1, message: 1 } });
  });
});
