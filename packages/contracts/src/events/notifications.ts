import { z } from 'zod';

/**
 * The notifications service's facts, on `chat.notifications.events`. Three kinds of stream:
 * `notifications-app:<appId>` (the app's settings and providers), `notifications-user:<appId>:<uid>`
 * (one recipient's preferences, mutes, timezone, contact details and push tokens) and
 * `notification:<appId>:<notificationId>` (one notification to one recipient over one channel:
 * queued or skipped, then each provider call).
 */

const settingsDocument = z.record(z.string(), z.unknown());

/** The app's settings after a PATCH, whole (defaults merged in), so a reader never merges. */
export const notificationSettingsChangedV1 = z.object({ settings: settingsDocument, changedAt: z.number().int() });
export const notificationSettingsResetV1 = z.object({ resetAt: z.number().int() });

export const notificationChannels = ['push', 'email', 'sms'] as const;
export const notificationProviders = ['fcm', 'apns', 'custom', 'twilio', 'sendgrid'] as const;

/**
 * A provider's configuration. `secrets` are sealed with the notifications secrets key (the same
 * SecretBox as webhook secrets): what is stored and published is useless without the key.
 */
export const notificationProviderSavedV1 = z.object({
  channel: z.enum(notificationChannels),
  provider: z.enum(notificationProviders),
  providerId: z.string(),
  settings: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.string()),
  /** The last characters of each secret, so the API can show a recognisable masked value. */
  hints: z.record(z.string(), z.string()),
  savedAt: z.number().int(),
});
export const notificationProviderRemovedV1 = z.object({
  channel: z.enum(notificationChannels),
  provider: z.enum(notificationProviders),
  providerId: z.string(),
  removedAt: z.number().int(),
});
export const notificationProviderDefaultSetV1 = z.object({
  provider: z.enum(['fcm', 'apns']),
  providerId: z.string(),
  setAt: z.number().int(),
});

/** A recipient's own choices (CometChat's user preference shape), whole after the change. */
export const notificationPreferencesChangedV1 = z.object({ uid: z.string(), preferences: settingsDocument, changedAt: z.number().int() });
export const notificationPreferencesResetV1 = z.object({ uid: z.string(), resetAt: z.number().int() });

const conversationRef = z.object({ id: z.string(), type: z.enum(['oneOnOne', 'group']) });
export const conversationsMutedV1 = z.object({
  uid: z.string(),
  /** `until`: epoch ms when the mute ends; absent mutes until unmuted. */
  conversations: z.array(conversationRef.extend({ until: z.number().int().optional() })).min(1),
  mutedAt: z.number().int(),
});
export const conversationsUnmutedV1 = z.object({ uid: z.string(), conversations: z.array(conversationRef).min(1), unmutedAt: z.number().int() });
export const notificationTimezoneSetV1 = z.object({ uid: z.string(), timezone: z.string(), setAt: z.number().int() });
export const contactDetailsChangedV1 = z.object({
  uid: z.string(),
  email: z.string().optional(),
  phno: z.string().optional(),
  changedAt: z.number().int(),
});
export const contactDetailsRemovedV1 = z.object({ uid: z.string(), removedAt: z.number().int() });

export const pushTokenTypes = ['fcm', 'apns_device', 'apns_voip'] as const;
export const pushTokenRegisteredV1 = z.object({
  uid: z.string(),
  token: z.string(),
  tokenType: z.enum(pushTokenTypes),
  platform: z.string(),
  providerId: z.string(),
  /** Fingerprint of the auth token (the session) it was registered with: a logout removes its tokens. */
  sessionId: z.string(),
  registeredAt: z.number().int(),
});
export const pushTokensRemovedV1 = z.object({
  uid: z.string(),
  tokens: z.array(z.string()).min(1),
  /**
   * `unregistered`: removed through the API, or its session ended (the auth token it was registered with
   * was revoked, ADR 0151); `invalid`: the provider said the token no longer reaches a device.
   */
  reason: z.enum(['unregistered', 'invalid']),
  removedAt: z.number().int(),
});

/** What a notification is about, copied onto every fact of its stream so each log entry stands alone. */
export const notificationSubject = z.object({
  notificationId: z.string(),
  trigger: z.string(),
  messageId: z.string(),
  conversationId: z.string(),
  messageCategory: z.string(),
  messageType: z.string(),
  sender: z.string(),
  receiver: z.string(),
  receiverType: z.enum(['user', 'group']),
  /** The user notified. */
  recipient: z.string(),
  channel: z.enum(notificationChannels),
  provider: z.enum(notificationProviders).optional(),
  providerId: z.string().optional(),
  tokenType: z.enum(pushTokenTypes).optional(),
  pushToken: z.string().optional(),
  /** Epoch ms of the message: latency is message → provider call. */
  messageSentAt: z.number().int(),
});

/** Decided to notify: the exact payload the provider adapter sends. */
export const notificationQueuedV1 = notificationSubject.extend({ payload: z.record(z.string(), z.unknown()), queuedAt: z.number().int() });

export const notificationSkipReasons = [
  'MESSAGES_PREFERENCE',
  'REPLIES_PREFERENCE',
  'QUOTED_REPLIES_PREFERENCE',
  'DND_PREFERENCE',
  'MUTE_PREFERENCE',
  'SCHEDULE_PREFERENCE',
  'MISSING_EMAIL',
  'MISSING_PHNO',
  'INVALID_PUSH_PROVIDER_ID',
  'NOT_FOUND',
] as const;
/** Decided not to notify, and why (CometChat's log reasons). */
export const notificationSkippedV1 = notificationSubject.extend({ reason: z.enum(notificationSkipReasons), decidedAt: z.number().int() });

export const notificationOutcomes = ['delivered', 'retrying', 'failed', 'invalidToken'] as const;
export const notificationAttemptedV1 = notificationSubject.extend({
  attempt: z.number().int().min(1),
  outcome: z.enum(notificationOutcomes),
  statusCode: z.number().int().optional(),
  error: z.string().optional(),
  /** At most 256 characters of the provider's answer. */
  responsePrefix: z.string(),
  payload: z.record(z.string(), z.unknown()),
  startedAt: z.number().int(),
  at: z.number().int(),
  nextAttemptAt: z.number().int().optional(),
});

export const notificationAppEventTypes = [
  'NotificationSettingsChanged',
  'NotificationSettingsReset',
  'NotificationProviderSaved',
  'NotificationProviderRemoved',
  'NotificationProviderDefaultSet',
] as const;
export const notificationRecipientEventTypes = [
  'NotificationPreferencesChanged',
  'NotificationPreferencesReset',
  'ConversationsMuted',
  'ConversationsUnmuted',
  'NotificationTimezoneSet',
  'ContactDetailsChanged',
  'ContactDetailsRemoved',
  'PushTokenRegistered',
  'PushTokensRemoved',
] as const;
export const notificationDeliveryEventTypes = ['NotificationQueued', 'NotificationSkipped', 'NotificationAttempted'] as const;

export const notificationEventSchemas = {
  NotificationSettingsChanged: { 1: notificationSettingsChangedV1 },
  NotificationSettingsReset: { 1: notificationSettingsResetV1 },
  NotificationProviderSaved: { 1: notificationProviderSavedV1 },
  NotificationProviderRemoved: { 1: notificationProviderRemovedV1 },
  NotificationProviderDefaultSet: { 1: notificationProviderDefaultSetV1 },
  NotificationPreferencesChanged: { 1: notificationPreferencesChangedV1 },
  NotificationPreferencesReset: { 1: notificationPreferencesResetV1 },
  ConversationsMuted: { 1: conversationsMutedV1 },
  ConversationsUnmuted: { 1: conversationsUnmutedV1 },
  NotificationTimezoneSet: { 1: notificationTimezoneSetV1 },
  ContactDetailsChanged: { 1: contactDetailsChangedV1 },
  ContactDetailsRemoved: { 1: contactDetailsRemovedV1 },
  PushTokenRegistered: { 1: pushTokenRegisteredV1 },
  PushTokensRemoved: { 1: pushTokensRemovedV1 },
  NotificationQueued: { 1: notificationQueuedV1 },
  NotificationSkipped: { 1: notificationSkippedV1 },
  NotificationAttempted: { 1: notificationAttemptedV1 },
} as const;

export type NotificationChannel = (typeof notificationChannels)[number];
export type NotificationProvider = (typeof notificationProviders)[number];
export type PushTokenType = (typeof pushTokenTypes)[number];
export type NotificationSkipReason = (typeof notificationSkipReasons)[number];
export type NotificationOutcome = (typeof notificationOutcomes)[number];
export type NotificationSubject = z.infer<typeof notificationSubject>;
export type NotificationSettingsChanged = z.infer<typeof notificationSettingsChangedV1>;
export type NotificationProviderSaved = z.infer<typeof notificationProviderSavedV1>;
export type NotificationProviderRemoved = z.infer<typeof notificationProviderRemovedV1>;
export type NotificationProviderDefaultSet = z.infer<typeof notificationProviderDefaultSetV1>;
export type ConversationsMuted = z.infer<typeof conversationsMutedV1>;
export type ConversationsUnmuted = z.infer<typeof conversationsUnmutedV1>;
export type ContactDetailsChanged = z.infer<typeof contactDetailsChangedV1>;
export type PushTokenRegistered = z.infer<typeof pushTokenRegisteredV1>;
export type PushTokensRemoved = z.infer<typeof pushTokensRemovedV1>;
export type NotificationQueued = z.infer<typeof notificationQueuedV1>;
export type NotificationSkipped = z.infer<typeof notificationSkippedV1>;
export type NotificationAttempted = z.infer<typeof notificationAttemptedV1>;
