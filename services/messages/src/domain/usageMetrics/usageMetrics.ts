import type { CallUsage } from '@chat/contracts';

/** What the usage metrics read of a message. */
export interface MessageFact {
  sender: string;
  type: string;
  category: string;
  sentAt: number;
}

/**
 * Times at or above this are epoch milliseconds (as seconds it is the year 5138). CometChat documents
 * the range as "Unix timestamps" yet echoes it in milliseconds in its example, so clients send either:
 * read as seconds, a range in milliseconds matched no message (three messages sent showed as
 * `active_users: 0`).
 */
export const MILLISECONDS_FROM = 100_000_000_000;

/** An epoch time given in seconds or milliseconds, in seconds. */
export function secondsOf(time: number): number {
  return time >= MILLISECONDS_FROM ? Math.floor(time / 1000) : time;
}

export interface TimeRange {
  fromDate: number;
  toDate: number;
}

/**
 * `GET /stats`: the call figures the calls service counted over the range (`callUsagePath`), and the
 * users who sent anything in it.
 */
export function usageMetrics(messages: readonly MessageFact[], calls: CallUsage, range: TimeRange) {
  const active = new Set(messages.filter((m) => m.category !== 'action').map((m) => m.sender));
  return {
    metrics: {
      audio_minutes: calls.audio_minutes,
      video_minutes: calls.video_minutes,
      recorded_minutes: calls.recorded_minutes,
      active_users: active.size,
      concurrent_users: calls.concurrent_users,
    },
    time_range: { fromDate: range.fromDate, toDate: range.toDate },
  };
}

/** A read or delivery receipt as the message metrics count it: one per mark a user moved, at its time. */
export interface ReceiptFact {
  kind: 'read' | 'delivered';
  at: number;
}

/** CometChat's message metrics are counted in five-minute buckets. */
export const BUCKET_SECONDS = 300;

/** CometChat's message metrics answer the last hour; a longer range of ours is cut to a day (288 buckets). */
const DEFAULT_MESSAGE_WINDOW_SECONDS = 3_600;
const MAX_MESSAGE_RANGE_SECONDS = 86_400;

/**
 * The range `GET /stats/messages` reports on, from the ends given (seconds or milliseconds). Without an
 * end: the end of the bucket `now` is in (even at its first second, so what was just sent is counted);
 * without a start: an hour before the end.
 */
export function messageMetricsRange(given: { fromDate?: number | undefined; toDate?: number | undefined }, now: number): TimeRange {
  const toDate = given.toDate !== undefined ? secondsOf(given.toDate) : (Math.floor(now / BUCKET_SECONDS) + 1) * BUCKET_SECONDS;
  const fromDate = given.fromDate !== undefined ? secondsOf(given.fromDate) : toDate - DEFAULT_MESSAGE_WINDOW_SECONDS;
  return { fromDate, toDate: Math.min(Math.max(toDate, fromDate), fromDate + MAX_MESSAGE_RANGE_SECONDS) };
}

const epochMsString = (seconds: number): string => String(seconds * 1000);

/**
 * `GET /stats/messages`: messages sent (action messages are the system's, not a user's) and receipts
 * in each five-minute bucket of the range, oldest first, times as epoch-millisecond strings as
 * CometChat answers them. The range is widened to whole buckets.
 */
export function messageMetrics(appId: string, messages: readonly MessageFact[], receipts: readonly ReceiptFact[], range: TimeRange) {
  const first = Math.floor(range.fromDate / BUCKET_SECONDS) * BUCKET_SECONDS;
  const end = Math.max(first + BUCKET_SECONDS, Math.ceil(range.toDate / BUCKET_SECONDS) * BUCKET_SECONDS);
  const points: { messagesSent: number; readReceipts: number; deliveryReceipts: number; startTime: string; endTime: string }[] = [];
  for (let start = first; start < end; start += BUCKET_SECONDS) {
    points.push({ messagesSent: 0, readReceipts: 0, deliveryReceipts: 0, startTime: epochMsString(start), endTime: epochMsString(start + BUCKET_SECONDS) });
  }
  const pointAt = (seconds: number) => (seconds >= first && seconds < end ? points[Math.floor((seconds - first) / BUCKET_SECONDS)] : undefined);
  for (const m of messages) {
    const point = m.category === 'action' ? undefined : pointAt(m.sentAt);
    if (point) point.messagesSent += 1;
  }
  for (const r of receipts) {
    const point = pointAt(r.at);
    if (!point) continue;
    if (r.kind === 'read') point.readReceipts += 1;
    else point.deliveryReceipts += 1;
  }
  return { startTime: epochMsString(first), endTime: epochMsString(end), dataPoints: points, appId };
}
