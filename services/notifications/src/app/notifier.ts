import { createHash } from 'node:crypto';
import type { Actor, KnownEvent, MessageSent, NotificationProvider, NotificationQueued, NotificationSkipReason, NotificationSubject } from '@chat/contracts';
import type { CommandRunner } from '@chat/eventsourcing';
import type { NotificationReadModels } from '../adapters/readModels.js';
import { decide } from '../domain/decision.js';
import type { Decision } from '../domain/decision.js';
import { notificationDecider, notificationStreamId } from '../domain/notification.js';
import type { NotificationCommand } from '../domain/notification.js';
import { digestMessage, notificationText, pushDetails } from '../domain/payload.js';
import { effectivePreferences } from '../domain/preferences.js';
import type { RecipientDocument } from '../projections/recipients.js';
import type { NotificationDocument } from '../projections/notifications.js';
import { enabledProviders, providerOf } from './directory.js';
import type { AppDirectory, AppEntry } from './directory.js';

/** The notifications service acts as itself in the facts it records. */
export const notifierActor = (appId: string): Actor => ({ appId, keyId: 'notifications', scope: 'management' });

/** The same message, recipient and target always get the same id, so a redelivered event is decided once. */
export function notificationIdOf(eventId: string, recipient: string, target: string): string {
  return createHash('sha256').update(`${eventId}\n${recipient}\n${target}`).digest('hex').slice(0, 32);
}

/** One way a recipient can be reached: a provider (and a token for FCM/APNs), or why not. */
interface Target {
  channel: NotificationSubject['channel'];
  provider?: NotificationProvider;
  providerId?: string;
  token?: RecipientDocument['tokens'][string];
  /** Why this target cannot be used, whatever the preferences say. */
  unusable?: NotificationSkipReason;
  payload?: Record<string, unknown>;
}

export interface NotifierOptions {
  runner: CommandRunner;
  readModels: NotificationReadModels;
  directory: AppDirectory;
  region: string;
  defaultTimezone: string;
  clock?: () => number;
}

type MessageEvent = Extract<KnownEvent, { type: 'MessageSent' }>;

function isNotifiable(event: KnownEvent): event is MessageEvent {
  // Imported history and group action messages notify nobody.
  return event.type === 'MessageSent' && event.data.imported !== true && event.data.category !== 'action';
}

/**
 * Decides, per message and recipient, whether and how to notify, and records each decision as a
 * command on the notification's own stream (queued or skipped, with CometChat's reason). The
 * commands of one Kafka batch run concurrently, so the runner groups them into few appends.
 */
export class Notifier {
  private readonly clock: () => number;

  constructor(private readonly options: NotifierOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** The notifications a run of events queues, for the dispatcher (already stored). */
  async queue(events: readonly KnownEvent[]): Promise<NotificationDocument[]> {
    const messages = events.filter(isNotifiable);
    if (messages.length === 0) return [];
    const commands: { event: MessageEvent; command: NotificationCommand; appId: string; notificationId: string }[] = [];
    for (const [appId, appMessages] of groupBy(messages, (e) => e.appId)) {
      const entry = await this.options.directory.entry(appId);
      if (!hasAnyProvider(entry)) continue;
      const audiences = await Promise.all(appMessages.map((e) => this.audience(e)));
      const recipients = await this.options.readModels.findRecipients(appId, [...new Set(audiences.flat())]);
      appMessages.forEach((event, i) => {
        for (const uid of audiences[i]!) {
          const recipient = recipients.get(uid);
          if (!recipient?.exists || !recipient.active) continue;
          for (const planned of this.plan(event, recipient, entry)) commands.push({ event, appId, ...planned });
        }
      });
    }
    const queued = await Promise.all(
      commands.map(async ({ event, command, appId, notificationId }) => {
        const result = await this.options.runner.run({
          decider: notificationDecider,
          streamId: notificationStreamId(appId, notificationId),
          command,
          metadata: { appId, actor: notifierActor(appId), correlationId: event.correlationId, causationId: event.id, now: new Date(this.clock()) },
          // A notification id is new unless Kafka redelivers its message: no store read for the usual case.
          expectNew: true,
        });
        const fact = result.events[0];
        return fact?.type === 'NotificationQueued' ? documentOf(appId, fact.data as NotificationQueued) : null;
      }),
    );
    return queued.filter((n): n is NotificationDocument => n !== null);
  }

  /** Who a message may notify: the other user, or the group's members but the sender. */
  private async audience(event: MessageEvent): Promise<string[]> {
    const m = event.data;
    if (m.receiverType === 'user') return m.receiver === m.sender ? [] : [m.receiver];
    return (await this.options.readModels.groupMembers(event.appId, m.receiver)).filter((uid) => uid !== m.sender);
  }

  private plan(event: MessageEvent, recipient: RecipientDocument, entry: AppEntry): { command: NotificationCommand; notificationId: string }[] {
    const m = event.data;
    const now = this.clock();
    const preferences = effectivePreferences(entry.settings, recipient.preferences ?? undefined);
    const mutes = Object.fromEntries(Object.entries(recipient.mutes).map(([key, mute]) => [key, mute.until]));
    const timezone = recipient.timezone ?? this.options.defaultTimezone;
    const decision: Decision = decide(
      { ...m, sentAt: now },
      { uid: recipient.uid, preferences, mutes, timezone },
      entry.settings.preferences.bypassPreferencesForMentions,
      now,
    );
    return this.targets(event, recipient, entry, preferences.privacy).map((target) => {
      const notificationId = notificationIdOf(event.id, recipient.uid, `${target.channel}:${target.provider ?? ''}:${target.providerId ?? ''}:${target.token?.token ?? ''}`);
      const subject: NotificationSubject = {
        notificationId,
        trigger: 'after_message',
        messageId: m.id,
        conversationId: m.conversationId,
        messageCategory: m.category,
        messageType: m.type,
        sender: m.sender,
        receiver: m.receiver,
        receiverType: m.receiverType,
        recipient: recipient.uid,
        channel: target.channel,
        messageSentAt: Date.parse(event.occurredAt),
        ...(target.provider ? { provider: target.provider } : {}),
        ...(target.providerId ? { providerId: target.providerId } : {}),
        ...(target.token ? { tokenType: target.token.tokenType, pushToken: target.token.token } : {}),
      };
      const reason = decision.notify ? target.unusable : decision.reason;
      if (reason || !target.payload) {
        return { notificationId, command: { type: 'Skip', skipped: { ...subject, reason: reason ?? 'NOT_FOUND', decidedAt: now } } };
      }
      return { notificationId, command: { type: 'Queue', queued: { ...subject, payload: target.payload, queuedAt: now } } };
    });
  }

  /** Every way the app can reach the recipient, with the payload each provider gets. */
  private targets(event: MessageEvent, recipient: RecipientDocument, entry: AppEntry, privacy: boolean): Target[] {
    const m = event.data;
    const envelope = { appId: event.appId, region: this.options.region, webhook: 'custom' };
    const targets: Target[] = [];
    const details = () => pushDetails(m, entry.settings, privacy);
    for (const custom of enabledProviders(entry, 'push').filter((p) => p.provider === 'custom')) {
      targets.push({
        channel: 'push',
        provider: 'custom',
        providerId: custom.providerId,
        payload: { trigger: 'push-notification-payload-generated', data: { to: { uid: recipient.uid }, notificationDetails: details() }, ...envelope },
      });
    }
    for (const token of Object.values(recipient.tokens)) {
      const kind = token.tokenType === 'fcm' ? 'fcm' : 'apns';
      const provider = providerOf(entry, kind, token.providerId);
      if (provider?.settings['isEnabled'] === false) continue;
      targets.push({
        channel: 'push',
        provider: kind,
        providerId: token.providerId,
        token,
        ...(provider ? { payload: { notificationDetails: details(), platform: platformOf(token.platform) } } : { unusable: 'INVALID_PUSH_PROVIDER_ID' as const }),
      });
    }
    const text = notificationText(m, entry.settings, privacy);
    const messages = [digestMessage(m, privacy)];
    const name = m.receiverType === 'user' ? nameOf(m, 'receiver') : undefined;
    for (const provider of enabledProviders(entry, 'email')) {
      const needsStored = provider.provider === 'sendgrid' || provider.settings['useStoredEmailID'] === true;
      const to = { uid: recipient.uid, ...(recipient.email ? { email: recipient.email } : {}), ...(name ? { name } : {}) };
      const subject = text.title;
      targets.push({
        channel: 'email',
        provider: provider.provider,
        providerId: provider.providerId,
        ...(needsStored && !recipient.email
          ? { unusable: 'MISSING_EMAIL' as const }
          : { payload: { trigger: 'email-notification-payload-generated', data: { to, subject, messages }, ...envelope } }),
      });
    }
    for (const provider of enabledProviders(entry, 'sms')) {
      const needsStored = provider.provider === 'twilio' || provider.settings['useStoredPhNo'] === true;
      const to = { uid: recipient.uid, ...(recipient.phno ? { phno: recipient.phno } : {}), ...(name ? { name } : {}) };
      targets.push({
        channel: 'sms',
        provider: provider.provider,
        providerId: provider.providerId,
        ...(needsStored && !recipient.phno
          ? { unusable: 'MISSING_PHNO' as const }
          : { payload: { trigger: 'sms-notification-payload-generated', data: { to, messages, text: `${text.title}: ${text.body}` }, ...envelope } }),
      });
    }
    return targets;
  }
}

function hasAnyProvider(entry: AppEntry): boolean {
  return entry.providers.size > 0;
}

function platformOf(platform: string): 'ios' | 'web' | 'android' {
  return platform.includes('ios') ? 'ios' : platform.includes('web') ? 'web' : 'android';
}

function nameOf(message: MessageSent, side: 'receiver' | 'sender'): string | undefined {
  const entities = message.data['entities'] as Record<string, { entity?: { name?: unknown } }> | undefined;
  const name = entities?.[side]?.entity?.name;
  return typeof name === 'string' ? name : undefined;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

export function documentOf(appId: string, queued: NotificationQueued): NotificationDocument {
  const { payload, queuedAt, ...subject } = queued;
  return { ...subject, appId, payload, status: 'pending', attempts: 0, queuedAt };
}
