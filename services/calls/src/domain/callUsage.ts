import type { CallUsage } from '@chat/contracts';
import type { CallRecord } from './callRecord.js';

/** A range of epoch seconds, both ends included. */
export interface UsageRange {
  from: number;
  to: number;
}

/** Each joined participant's seconds in the call within the range. */
function joinedSeconds(call: CallRecord, range: UsageRange): number[] {
  return call.participants.flatMap((p) => {
    if (p.joinedAt === undefined) return [];
    const from = Math.max(p.joinedAt, range.from);
    const to = Math.min(p.leftAt ?? call.endedAt ?? range.to, range.to);
    return to > from ? [to - from] : [];
  });
}

/** The largest number of users joined to calls at the same moment within the range. */
function peakInCalls(calls: readonly CallRecord[], range: UsageRange): number {
  const edges: [number, number][] = [];
  for (const call of calls) {
    for (const p of call.participants) {
      if (p.joinedAt === undefined) continue;
      const from = Math.max(p.joinedAt, range.from);
      const to = Math.min(p.leftAt ?? call.endedAt ?? range.to, range.to);
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
 * The call figures of `GET /stats`: participant minutes by the call's type, recorded minutes of
 * recorded calls, and the peak of users in calls at once (the messages service adds active users).
 */
export function callUsage(calls: readonly CallRecord[], range: UsageRange): CallUsage {
  let audio = 0;
  let video = 0;
  let recorded = 0;
  for (const call of calls) {
    const seconds = joinedSeconds(call, range).reduce((sum, s) => sum + s, 0);
    if (call.type === 'audio') audio += seconds;
    else video += seconds;
    if (call.hasRecording) recorded += seconds;
  }
  return {
    audio_minutes: Math.round(audio / 60),
    video_minutes: Math.round(video / 60),
    recorded_minutes: Math.round(recorded / 60),
    concurrent_users: peakInCalls(calls, range),
  };
}
