import { z } from 'zod';

/**
 * The app's notification settings (CometChat's `GET /notifications/v1/settings` shape). Settings
 * values follow CometChat's dashboard: for messages, replies and reactions 1 = don't notify,
 * 2 = notify for all, 3 = only when mentioned; for member actions and edits 1 = don't notify,
 * 2 = notify; `dndPreferenceSetting` 1 = off, 2 = on. Each `…Override` says whether a user may
 * change that value for themselves.
 */
const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Day = (typeof days)[number];
export const weekDays: readonly Day[] = days;

/** `from`/`to` are HHMM in the user's timezone (0–2359): notifications go out inside the window only. */
const daySchedule = z.strictObject({
  from: z.number().int().min(0).max(2359),
  to: z.number().int().min(0).max(2359),
  dnd: z.boolean(),
});
export type DaySchedule = z.infer<typeof daySchedule>;
const schedule = z.strictObject(Object.fromEntries(days.map((d) => [d, daySchedule])) as Record<Day, typeof daySchedule>);
export type Schedule = z.infer<typeof schedule>;

const three = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const two = z.union([z.literal(1), z.literal(2)]);

/** What one-on-one and group conversations share; groups add their member actions. */
const conversationPreferences = {
  messagesSetting: three,
  messagesOverride: z.boolean(),
  repliesSetting: three,
  repliesOverride: z.boolean(),
  quotedRepliesSetting: three,
  quotedRepliesOverride: z.boolean(),
  reactionsSetting: three,
  reactionsOverride: z.boolean(),
  messageEditedSetting: two,
  messageDeletedSetting: two,
};
const memberActions = ['memberLeft', 'memberAdded', 'memberJoined', 'memberKicked', 'memberBanned', 'memberUnbanned', 'memberScopeChanged'] as const;
const groupPreferences = z.strictObject({
  ...conversationPreferences,
  ...(Object.fromEntries(memberActions.flatMap((a) => [[`${a}Setting`, two], [`${a}Override`, z.boolean()]])) as Record<`${(typeof memberActions)[number]}${'Setting' | 'Override'}`, typeof two | z.ZodBoolean>),
});
const oneOnOnePreferences = z.strictObject(conversationPreferences);
const callKinds = ['initiated', 'ongoing', 'cancelled', 'busy', 'rejected', 'unanswered', 'ended'] as const;
const callPreferences = z.strictObject(
  Object.fromEntries(callKinds.flatMap((k) => [[`${k}Setting`, two], [`${k}Override`, z.boolean()]])) as Record<string, typeof two | z.ZodBoolean>,
);
const mutePreferences = z.strictObject({
  dndPreferenceSetting: two,
  dndPreferenceOverride: z.boolean(),
  schedulePreferenceSetting: schedule,
  schedulePreferenceOverride: z.boolean(),
  mutedGroupsOverride: z.boolean(),
  mutedOneOnOnesOverride: z.boolean(),
});
const digest = z.strictObject({
  notifyForUnreadOnly: z.boolean(),
  intervalInSeconds: z.number().int().min(0).max(86_400),
  maxPerDay: z.number().int().min(0).max(10_000),
  maxPerDayPerConversation: z.number().int().min(0).max(10_000),
});
const pushPayload = z.strictObject({
  includeMessageObjectSetting: z.boolean(),
  includeSenderMetadataSetting: z.boolean(),
  includeReceiverMetadataSetting: z.boolean(),
  trimTextFieldSetting: z.boolean(),
  includeMessageMetadataSetting: z.boolean(),
  customJson: z.record(z.string(), z.unknown()),
});
const template = z.record(z.string(), z.string().max(1_000));
const templateNames = ['text', 'media', 'poll', 'reminder', 'custom']
  .map((k) => `${k}MessageTemplate`)
  .concat(['emailSubjectTemplate', 'smsContentTemplate', 'userMentionTemplate', 'groupMentionTemplate'])
  .flatMap((base) => [`${base}Default`, `${base}Privacy`]);

export const settingsSchema = z.strictObject({
  preferences: z.strictObject({
    group: groupPreferences,
    oneOnOne: oneOnOnePreferences,
    call: callPreferences,
    mute: mutePreferences,
    email: digest,
    sms: digest,
    push: pushPayload,
    bypassPreferencesForMentions: z.boolean(),
  }),
  sound: z.strictObject({ chat: z.string().max(256), call: z.string().max(256) }),
  templates: z.strictObject({
    usePrivacyTemplate: three,
    ...(Object.fromEntries(templateNames.map((name) => [name, template.optional()])) as Record<string, z.ZodOptional<typeof template>>),
  }),
});
/** Templates are looked up by name (`textMessageTemplatePrivacy`, …), so they are typed as a lookup. */
export type NotificationSettings = Omit<z.infer<typeof settingsSchema>, 'templates'> & {
  templates: { usePrivacyTemplate: 1 | 2 | 3; [name: string]: unknown };
};

/** Recursively optional: what a PATCH may carry (any subset, each value still typed). */
type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
export type SettingsPatch = DeepPartial<NotificationSettings>;

/** The PATCH body: every object partial at every depth, unknown fields refused. */
export const settingsPatchSchema = deepPartial(settingsSchema) as z.ZodType<SettingsPatch>;

function deepPartial(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, deepPartial(v).optional()]));
    const catchall = schema._zod.def.catchall;
    const partial = z.strictObject(shape);
    return catchall && !(catchall instanceof z.ZodNever) ? partial.catchall(deepPartial(catchall as z.ZodType)) : partial;
  }
  if (schema instanceof z.ZodRecord) return z.record(z.string(), deepPartial(schema._zod.def.valueType as z.ZodType).optional());
  return schema;
}

const allDay: DaySchedule = { from: 0, to: 2359, dnd: false };
const conversationDefaults: NotificationSettings['preferences']['oneOnOne'] = {
  messagesSetting: 2,
  messagesOverride: true,
  repliesSetting: 2,
  repliesOverride: true,
  quotedRepliesSetting: 2,
  quotedRepliesOverride: true,
  reactionsSetting: 2,
  reactionsOverride: true,
  messageEditedSetting: 2,
  messageDeletedSetting: 2,
};
const sender = '{{message.data.entities.sender.entity.name}}';
const inGroup = `${sender} @ {{message.data.entities.receiver.entity.name}}`;
const titles = { titleOneOnOne: sender, titleGroup: inGroup };

export const defaultSettings: NotificationSettings = {
  preferences: {
    group: {
      ...conversationDefaults,
      ...(Object.fromEntries(memberActions.flatMap((a) => [[`${a}Setting`, 1], [`${a}Override`, true]])) as Record<`${(typeof memberActions)[number]}${'Setting' | 'Override'}`, 1 | true>),
    },
    oneOnOne: conversationDefaults,
    call: Object.fromEntries(callKinds.flatMap((k) => [[`${k}Setting`, 2], [`${k}Override`, false]])) as NotificationSettings['preferences']['call'],
    mute: {
      dndPreferenceSetting: 1,
      dndPreferenceOverride: true,
      schedulePreferenceSetting: Object.fromEntries(days.map((d) => [d, allDay])) as Schedule,
      schedulePreferenceOverride: true,
      mutedGroupsOverride: true,
      mutedOneOnOnesOverride: true,
    },
    email: { notifyForUnreadOnly: true, intervalInSeconds: 7200, maxPerDay: 20, maxPerDayPerConversation: 2 },
    sms: { notifyForUnreadOnly: true, intervalInSeconds: 7200, maxPerDay: 20, maxPerDayPerConversation: 2 },
    push: {
      includeMessageObjectSetting: false,
      includeSenderMetadataSetting: true,
      includeReceiverMetadataSetting: true,
      trimTextFieldSetting: false,
      includeMessageMetadataSetting: true,
      customJson: {},
    },
    bypassPreferencesForMentions: false,
  },
  sound: { chat: 'default', call: 'default' },
  templates: {
    usePrivacyTemplate: 1,
    textMessageTemplateDefault: { ...titles, body: '{{message.data.text}}' },
    textMessageTemplatePrivacy: { ...titles, body: 'New message' },
    mediaMessageTemplateDefault: {
      ...titles,
      body_image: 'Sent an image',
      body_audio: 'Sent an audio message',
      body_video: 'Sent a video',
      body_file: 'Sent a file',
    },
    mediaMessageTemplatePrivacy: { ...titles, body_image: 'New message', body_audio: 'New message', body_video: 'New message', body_file: 'New message' },
    customMessageTemplateDefault: { ...titles, body: '{{message.data.text}}', body_fallback: 'New message' },
    customMessageTemplatePrivacy: { ...titles, body: 'New message', body_fallback: 'New message' },
    emailSubjectTemplateDefault: { subjectGroup: 'New messages in {{groupDetails.name}}', subjectOneOnOne: 'New messages from {{senderDetails.name}}' },
    smsContentTemplateDefault: { bodyGroup: 'New messages in {{groupDetails.name}}', bodyOneOnOne: 'New messages from {{senderDetails.name}}' },
  },
};

/** Plain-object deep merge: the patch's values win, objects merge key by key, nothing else is touched. */
export function mergeDeep<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    // customJson is the client's JSON: replaced whole, never merged.
    out[key] = key === 'customJson' ? value : mergeDeep(out[key], value);
  }
  return out as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The app's settings as stored (null = never changed): the defaults with the stored values over them. */
export function effectiveSettings(stored: unknown): NotificationSettings {
  return stored ? mergeDeep(defaultSettings, stored) : defaultSettings;
}
