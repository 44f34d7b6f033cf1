import { describe, expect, it } from 'vitest';
import { decide } from './decision.js';
import type { MessageFacts, RecipientFacts } from './decision.js';
import { effectivePreferences } from './preferences.js';
import type { UserPreferences } from './preferences.js';
import { isQuiet, localTime } from './quietHours.js';
import { muteKey } from './recipient.js';
import { defaultSettings, mergeDeep } from './settings.js';
import type { NotificationSettings, Schedule } from './settings.js';

// 2026-03-04 is a Wednesday; 12:00 UTC is 17:30 in Kolkata and 02:00 (Wednesday) in Honolulu.
const NOON_UTC = Date.UTC(2026, 2, 4, 12, 0);
const message: MessageFacts = { sender: 'alice', receiver: 'bob', receiverType: 'user' };

function recipient(user?: UserPreferences, extra: Partial<RecipientFacts> = {}, app: NotificationSettings = defaultSettings): RecipientFacts {
  return { uid: 'bob', preferences: effectivePreferences(app, user), mutes: {}, timezone: 'UTC', ...extra };
}

const allWeek = (day: { from: number; to: number; dnd: boolean }) =>
  Object.fromEntries(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((d) => [d, day])) as Schedule;

describe('the notification decision', () => {
  it('notifies by default', () => {
    expect(decide(message, recipient(), false, NOON_UTC)).toEqual({ notify: true });
  });

  it('follows the message, reply and quoted-reply preferences, mentions-only included', () => {
    expect(decide(message, recipient({ oneOnOnePreferences: { oneOnOneMessages: 1 } }), false, NOON_UTC)).toEqual({ notify: false, reason: 'MESSAGES_PREFERENCE' });
    expect(decide({ ...message, parentId: '7' }, recipient({ oneOnOnePreferences: { oneOnOneReplies: 1 } }), false, NOON_UTC)).toEqual({ notify: false, reason: 'REPLIES_PREFERENCE' });
    expect(decide({ ...message, quotedMessageId: '7' }, recipient({ oneOnOnePreferences: { oneOnOneQuotedReplies: 1 } }), false, NOON_UTC)).toEqual({
      notify: false,
      reason: 'QUOTED_REPLIES_PREFERENCE',
    });
    const group: MessageFacts = { ...message, receiver: 'team', receiverType: 'group' };
    const mentionsOnly = recipient({ groupPreferences: { groupMessages: 3 } });
    expect(decide(group, mentionsOnly, false, NOON_UTC)).toEqual({ notify: false, reason: 'MESSAGES_PREFERENCE' });
    expect(decide({ ...group, mentionedUids: ['bob'] }, mentionsOnly, false, NOON_UTC)).toEqual({ notify: true });
  });

  it('ignores a user choice the app does not let users override', () => {
    const locked = mergeDeep(defaultSettings, { preferences: { oneOnOne: { messagesOverride: false } } });
    expect(decide(message, recipient({ oneOnOnePreferences: { oneOnOneMessages: 1 } }, {}, locked), false, NOON_UTC)).toEqual({ notify: true });
  });

  it('holds back under do-not-disturb, even for a mention with the bypass on', () => {
    const dnd = recipient({ mutePreferences: { dnd: 2 } });
    expect(decide({ ...message, mentionedUids: ['bob'] }, dnd, true, NOON_UTC)).toEqual({ notify: false, reason: 'DND_PREFERENCE' });
  });

  it('holds back a muted conversation until the mute ends; a mention bypasses it when the app says so', () => {
    const key = muteKey('oneOnOne', 'alice');
    expect(decide(message, recipient(undefined, { mutes: { [key]: null } }), false, NOON_UTC)).toEqual({ notify: false, reason: 'MUTE_PREFERENCE' });
    expect(decide(message, recipient(undefined, { mutes: { [key]: NOON_UTC + 1 } }), false, NOON_UTC)).toEqual({ notify: false, reason: 'MUTE_PREFERENCE' });
    expect(decide(message, recipient(undefined, { mutes: { [key]: NOON_UTC - 1 } }), false, NOON_UTC)).toEqual({ notify: true });
    expect(decide({ ...message, mentionedUids: ['bob'] }, recipient(undefined, { mutes: { [key]: null } }), true, NOON_UTC)).toEqual({ notify: true });
    // Another conversation of the same user is not muted.
    expect(decide({ ...message, sender: 'carol' }, recipient(undefined, { mutes: { [key]: null } }), false, NOON_UTC)).toEqual({ notify: true });
  });

  it('holds back outside the schedule window, in the user’s own timezone', () => {
    const evening = { mutePreferences: { schedule: allWeek({ from: 1700, to: 2200, dnd: false }) } };
    expect(decide(message, recipient(evening, { timezone: 'Asia/Kolkata' }), false, NOON_UTC)).toEqual({ notify: true });
    expect(decide(message, recipient(evening, { timezone: 'UTC' }), false, NOON_UTC)).toEqual({ notify: false, reason: 'SCHEDULE_PREFERENCE' });
  });
});

describe('quiet hours', () => {
  it('reads the weekday and time in the timezone', () => {
    expect(localTime(NOON_UTC, 'Asia/Kolkata')).toEqual({ day: 'wednesday', hhmm: 1730 });
    expect(localTime(NOON_UTC, 'Pacific/Honolulu')).toEqual({ day: 'wednesday', hhmm: 200 });
    expect(localTime(NOON_UTC, 'Pacific/Kiritimati')).toEqual({ day: 'thursday', hhmm: 200 });
  });

  it('handles windows past midnight and whole quiet days', () => {
    const nights = allWeek({ from: 2200, to: 300, dnd: false });
    expect(isQuiet(nights, NOON_UTC, 'Pacific/Honolulu')).toBe(false);
    expect(isQuiet(nights, NOON_UTC, 'UTC')).toBe(true);
    expect(isQuiet({ ...allWeek({ from: 0, to: 2359, dnd: false }), wednesday: { from: 0, to: 2359, dnd: true } }, NOON_UTC, 'UTC')).toBe(true);
  });
});
