import type { CallRecord } from './callRecord.js';

/** What the usage metrics read of a message. */
export interface MessageFact {
  sender: string;
  type: string;
  category: string;
  sentAt: number;
}

export interface TimeRange {
  fromDate: number;
  toDate: number;
}

const DAY = 86_400;

/** The UTC day (`YYYY-MM-DD`) of an epoch-seconds time. */
export function dayOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

function joinedSeconds(call: CallRecord, range: TimeRange): number[] {
  return call.participants.flatMap((p) => {
    if (p.joinedAt === undefined) return [];
    const from = Math.max(p.joinedAt, range.fromDate);
    const to = Math.min(p.leftAt ?? call.endedAt ?? range.toDate, range.toDate);
    return to > from ? [to - from] : [];
  });
}

/** The largest number of users joined to calls at the same moment within the range. */
function peakInCalls(calls: readonly CallRecord[], range: TimeRange): number {
  const edges: [number, number][] = [];
  for (const call of calls) {
    for (const p of call.participants) {
      if (p.joinedAt === undefined) continue;
      const from = Math.max(p.joinedAt, range.fromDate);
      const to = Math.min(p.leftAt ?? call.endedAt ?? range.toDate, range.toDate);
      if (to > from) edges.push([from, 1], [to, -1]);
    }
  }
  // Leaves before joins at the same second: back-to-back calls are not concurrent.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of edges) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return peak;
}

/**
 * `GET /stats`: call minutes (participant minutes, by the call's type; recorded ones of recorded calls),
 * users who sent anything in the range, and the peak of users in calls at once.
 */
export function usageMetrics(messages: readonly MessageFact[], calls: readonly CallRecord[], range: TimeRange) {
  let audio = 0;
  let video = 0;
  let recorded = 0;
  for (const call of calls) {
    const seconds = joinedSeconds(call, range).reduce((sum, s) => sum + s, 0);
    if (call.type === 'audio') audio += seconds;
    else video += seconds;
    if (call.hasRecording) recorded += seconds;
  }
  const active = new Set(messages.filter((m) => m.category !== 'action').map((m) => m.sender));
  return {
    metrics: {
      audio_minutes: Math.round(audio / 60),
      video_minutes: Math.round(video / 60),
      recorded_minutes: Math.round(recorded / 60),
      active_users: active.size,
      concurrent_users: peakInCalls(calls, range),
    },
    time_range: { fromDate: range.fromDate, toDate: range.toDate },
  };
}

/** `GET /stats/messages`: one data point per UTC day of the range, oldest first. */
export function messageMetrics(appId: string, messages: readonly MessageFact[], range: TimeRange) {
  const days = new Map<string, { messages: number; activeUsers: Set<string>; byType: Record<string, number>; byCategory: Record<string, number> }>();
  for (let day = Math.floor(range.fromDate / DAY) * DAY; day <= range.toDate; day += DAY) {
    days.set(dayOf(day), { messages: 0, activeUsers: new Set(), byType: {}, byCategory: {} });
  }
  for (const m of messages) {
    const point = days.get(dayOf(m.sentAt));
    if (!point) continue;
    point.messages += 1;
    point.byType[m.type] = (point.byType[m.type] ?? 0) + 1;
    point.byCategory[m.category] = (point.byCategory[m.category] ?? 0) + 1;
    if (m.category !== 'action') point.activeUsers.add(m.sender);
  }
  return {
    appId,
    startTime: new Date(range.fromDate * 1000).toISOString(),
    endTime: new Date(range.toDate * 1000).toISOString(),
    dataPoints: [...days].map(([date, p]) => ({
      date,
      timestamp: Date.parse(`${date}T00:00:00.000Z`) / 1000,
      messages: p.messages,
      activeUsers: p.activeUsers.size,
      byType: p.byType,
      byCategory: p.byCategory,
    })),
  };
}
