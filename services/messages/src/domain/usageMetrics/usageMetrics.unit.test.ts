import { describe, expect, it } from 'vitest';
import { messageMetrics, messageMetricsRange, secondsOf, usageMetrics } from './usageMetrics.js';

const day = Date.UTC(2026, 0, 10) / 1000;

describe('usage metrics', () => {
  it('counts active senders beside the call figures the calls service gave', () => {
    const calls = { audio_minutes: 4, video_minutes: 20, recorded_minutes: 4, concurrent_users: 4 };
    const messages = [
      { sender: 'ann', type: 'text', category: 'message', sentAt: day },
      { sender: 'ann', type: 'text', category: 'message', sentAt: day + 10 },
      { sender: 'eve', type: 'image', category: 'message', sentAt: day + 20 },
      { sender: 'app_system', type: 'groupMember', category: 'action', sentAt: day + 30 },
    ];
    const { metrics } = usageMetrics(messages, calls, { fromDate: day, toDate: day + 86_399 });
    expect(metrics).toEqual({ audio_minutes: 4, video_minutes: 20, recorded_minutes: 4, active_users: 2, concurrent_users: 4 });
  });

  it('counts messages sent and receipts in five-minute buckets, times as epoch-millisecond strings', () => {
    const messages = [
      { sender: 'ann', type: 'text', category: 'message', sentAt: day + 5 },
      { sender: 'ben', type: 'audio', category: 'call', sentAt: day + 299 },
      { sender: 'ben', type: 'text', category: 'message', sentAt: day + 300 },
      { sender: 'app_system', type: 'groupMember', category: 'action', sentAt: day + 301 },
    ];
    const receipts = [
      { kind: 'delivered' as const, at: day + 10 },
      { kind: 'read' as const, at: day + 610 },
      { kind: 'read' as const, at: day + 899 },
    ];
    // A range inside buckets is widened to whole buckets: 00:00:30 to 00:14:00 is three of them.
    const result = messageMetrics('app1', messages, receipts, { fromDate: day + 30, toDate: day + 840 });
    expect(result).toMatchObject({ appId: 'app1', startTime: String(day * 1000), endTime: String((day + 900) * 1000) });
    expect(result.dataPoints).toEqual([
      { messagesSent: 2, readReceipts: 0, deliveryReceipts: 1, startTime: String(day * 1000), endTime: String((day + 300) * 1000) },
      { messagesSent: 1, readReceipts: 0, deliveryReceipts: 0, startTime: String((day + 300) * 1000), endTime: String((day + 600) * 1000) },
      { messagesSent: 0, readReceipts: 2, deliveryReceipts: 0, startTime: String((day + 600) * 1000), endTime: String((day + 900) * 1000) },
    ]);
    // An empty range still answers its one bucket.
    expect(messageMetrics('app1', [], [], { fromDate: day, toDate: day }).dataPoints).toHaveLength(1);
  });

  it('reads a time in epoch milliseconds as the same time in seconds', () => {
    expect(secondsOf(day)).toBe(day);
    expect(secondsOf(day * 1000 + 999)).toBe(day);
  });

  it('reports on the last hour by default, up to the end of the bucket now is in, even at its first second', () => {
    expect(messageMetricsRange({}, day + 301)).toEqual({ fromDate: day + 600 - 3_600, toDate: day + 600 });
    expect(messageMetricsRange({}, day + 300)).toEqual({ fromDate: day + 600 - 3_600, toDate: day + 600 });
    expect(messageMetricsRange({}, day + 300).toDate - messageMetricsRange({}, day + 300).fromDate).toBe(12 * 300);
    // Given ends, in either unit; a range past a day is cut to one, an end before the start is the start.
    expect(messageMetricsRange({ fromDate: day * 1000, toDate: (day + 900) * 1000 }, 0)).toEqual({ fromDate: day, toDate: day + 900 });
    expect(messageMetricsRange({ fromDate: day, toDate: day + 3 * 86_400 }, 0)).toEqual({ fromDate: day, toDate: day + 86_400 });
    expect(messageMetricsRange({ fromDate: day + 5_000 }, day)).toEqual({ fromDate: day + 5_000, toDate: day + 5_000 });
  });
});
