import type { Day, Schedule } from './settings.js';

const dayNames: readonly Day[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether the name is an IANA time zone this runtime knows (`Asia/Kolkata`, `UTC`, …). */
export function isTimezone(name: string): boolean {
  try {
    formatterFor(name);
    return true;
  } catch {
    return false;
  }
}

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/**
 * The last answer per timezone and the minute it is for. Formatting is the dearest step of a decision
 * and every decision of a minute in a timezone has the same answer: offsets in use today are whole
 * minutes, so a zone's wall-clock minute changes only when the epoch minute does.
 */
const lastAnswers = new Map<string, { minute: number; time: { day: Day; hhmm: number } }>();
const KEPT_ANSWERS = 1_000;

/** The weekday and HHMM wall-clock time at `at` (epoch ms) in the timezone. */
export function localTime(at: number, timezone: string): { day: Day; hhmm: number } {
  const minute = Math.floor(at / 60_000);
  const last = lastAnswers.get(timezone);
  if (last?.minute === minute) return last.time;
  const time = formattedTime(at, timezone);
  if (lastAnswers.size >= KEPT_ANSWERS && !last) lastAnswers.clear();
  lastAnswers.set(timezone, { minute, time });
  return time;
}

function formattedTime(at: number, timezone: string): { day: Day; hhmm: number } {
  const parts = formatterFor(timezone).formatToParts(new Date(at));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = dayNames.find((d) => d === part('weekday').toLowerCase()) ?? 'sunday';
  return { day, hhmm: Number(part('hour')) * 100 + Number(part('minute')) };
}

/**
 * Quiet hours: each day's schedule names the window in which notifications go out (`from`–`to`,
 * HHMM in the user's timezone; a window with `from` after `to` runs past midnight) and `dnd: true`
 * silences the whole day. Outside the window is quiet.
 */
export function isQuiet(schedule: Schedule, at: number, timezone: string): boolean {
  const { day, hhmm } = localTime(at, timezone);
  const today = schedule[day];
  if (today.dnd) return true;
  const inside = today.from <= today.to ? hhmm >= today.from && hhmm <= today.to : hhmm >= today.from || hhmm <= today.to;
  return !inside;
}
