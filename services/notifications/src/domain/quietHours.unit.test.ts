import { describe, expect, it } from 'vitest';
import { localTime } from './quietHours.js';

/** The wall clock as the runtime formats it, without any kept answer. */
function formatted(at: number, timezone: string): { day: string; hhmm: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(at));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: part('weekday').toLowerCase(), hhmm: Number(part('hour')) * 100 + Number(part('minute')) };
}

describe('localTime', () => {
  it('answers as the formatter does for every instant, however close together and in whichever zone', () => {
    const zones = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Eucla', 'America/St_Johns', 'Europe/Berlin', 'Pacific/Chatham'];
    // Around a daylight-saving change (Berlin, 2026-03-29 01:00 UTC) and a day boundary, in small random steps.
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const start of [Date.parse('2026-03-29T00:58:00Z'), Date.parse('2026-01-04T23:58:30Z')]) {
      let at = start;
      for (let i = 0; i < 400; i++) {
        at += Math.floor(random() * 20_000);
        const zone = zones[Math.floor(random() * zones.length)]!;
        expect(localTime(at, zone), `${new Date(at).toISOString()} in ${zone}`).toEqual(formatted(at, zone));
      }
    }
  });
});
