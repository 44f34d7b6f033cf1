import { z } from 'zod';
import { mergeDeep, weekDays } from './settings.js';
import type { NotificationSettings, Schedule } from './settings.js';

/**
 * A user's own preferences, in CometChat's user shape (`groupPreferences.groupMessages`, …). Each
 * user field stands for one app setting; the user's value counts only while the app lets users
 * override that setting, so a later dashboard change that locks a setting wins at once.
 */
const three = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const two = z.union([z.literal(1), z.literal(2)]);
const day = z.strictObject({ from: z.number().int().min(0).max(2359), to: z.number().int().min(0).max(2359), dnd: z.boolean() });

export const userPreferencesSchema = z.strictObject({
  groupPreferences: z
    .strictObject({
      groupMessages: three,
      groupReplies: three,
      groupQuotedReplies: three,
      groupReactions: three,
      groupMemberLeft: two,
      groupMemberAdded: two,
      groupMemberJoined: two,
      groupMemberKicked: two,
      groupMemberBanned: two,
      groupMemberUnbanned: two,
      groupMemberScopeChanged: two,
    })
    .partial()
    .optional(),
  oneOnOnePreferences: z
    .strictObject({ oneOnOneMessages: three, oneOnOneReplies: three, oneOnOneQuotedReplies: three, oneOnOneReactions: three })
    .partial()
    .optional(),
  mutePreferences: z
    .strictObject({
      dnd: two,
      schedule: z.strictObject(Object.fromEntries(weekDays.map((d) => [d, day])) as Record<(typeof weekDays)[number], typeof day>).partial(),
    })
    .partial()
    .optional(),
  usePrivacyTemplate: z.boolean().optional(),
});
export type UserPreferences = z.infer<typeof userPreferencesSchema>;

/** user field → [app section, app setting, the app's override flag]. */
const groupFields: Record<string, [string, string]> = {
  groupMessages: ['messagesSetting', 'messagesOverride'],
  groupReplies: ['repliesSetting', 'repliesOverride'],
  groupQuotedReplies: ['quotedRepliesSetting', 'quotedRepliesOverride'],
  groupReactions: ['reactionsSetting', 'reactionsOverride'],
  groupMemberLeft: ['memberLeftSetting', 'memberLeftOverride'],
  groupMemberAdded: ['memberAddedSetting', 'memberAddedOverride'],
  groupMemberJoined: ['memberJoinedSetting', 'memberJoinedOverride'],
  groupMemberKicked: ['memberKickedSetting', 'memberKickedOverride'],
  groupMemberBanned: ['memberBannedSetting', 'memberBannedOverride'],
  groupMemberUnbanned: ['memberUnbannedSetting', 'memberUnbannedOverride'],
  groupMemberScopeChanged: ['memberScopeChangedSetting', 'memberScopeChangedOverride'],
};
const oneOnOneFields: Record<string, [string, string]> = {
  oneOnOneMessages: ['messagesSetting', 'messagesOverride'],
  oneOnOneReplies: ['repliesSetting', 'repliesOverride'],
  oneOnOneQuotedReplies: ['quotedRepliesSetting', 'quotedRepliesOverride'],
  oneOnOneReactions: ['reactionsSetting', 'reactionsOverride'],
};

export interface EffectivePreferences {
  group: NotificationSettings['preferences']['group'];
  oneOnOne: NotificationSettings['preferences']['oneOnOne'];
  mute: NotificationSettings['preferences']['mute'];
  /** Whether the privacy templates are used for this user. */
  privacy: boolean;
}

/** The app's settings with the user's allowed choices over them: what decides for this user. */
export function effectivePreferences(app: NotificationSettings, user: UserPreferences | undefined): EffectivePreferences {
  const group: Record<string, unknown> = { ...app.preferences.group };
  const oneOnOne: Record<string, unknown> = { ...app.preferences.oneOnOne };
  for (const [field, value] of Object.entries(user?.groupPreferences ?? {})) {
    const [setting, override] = groupFields[field]!;
    if (group[override] === true) group[setting] = value;
  }
  for (const [field, value] of Object.entries(user?.oneOnOnePreferences ?? {})) {
    const [setting, override] = oneOnOneFields[field]!;
    if (oneOnOne[override] === true) oneOnOne[setting] = value;
  }
  const mute = { ...app.preferences.mute };
  const own = user?.mutePreferences;
  if (own?.dnd !== undefined && mute.dndPreferenceOverride) mute.dndPreferenceSetting = own.dnd;
  if (own?.schedule && mute.schedulePreferenceOverride) mute.schedulePreferenceSetting = mergeDeep<Schedule>(mute.schedulePreferenceSetting, own.schedule);
  const mode = app.templates.usePrivacyTemplate;
  const privacy = mode === 2 || (mode === 3 && user?.usePrivacyTemplate === true);
  return {
    group: group as EffectivePreferences['group'],
    oneOnOne: oneOnOne as EffectivePreferences['oneOnOne'],
    mute,
    privacy,
  };
}

/** The effective preferences in the user shape (what `DELETE /preferences` answers). */
export function userShapeOf(effective: EffectivePreferences): Required<UserPreferences> {
  const pick = (source: Record<string, unknown>, fields: Record<string, [string, string]>) =>
    Object.fromEntries(Object.entries(fields).map(([field, [setting]]) => [field, source[setting]]));
  return {
    groupPreferences: pick(effective.group, groupFields),
    oneOnOnePreferences: pick(effective.oneOnOne, oneOnOneFields),
    mutePreferences: { dnd: effective.mute.dndPreferenceSetting, schedule: effective.mute.schedulePreferenceSetting },
    usePrivacyTemplate: effective.privacy,
  };
}
