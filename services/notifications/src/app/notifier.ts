import { hash } from 'node:crypto';
import type { Actor, KnownEvent, MessageSent, NotificationProvider, NotificationSkipReason, NotificationSubject } from '@chat/contracts';
import type { HandedRun } from '@chat/kafka';
import type { NotificationReadModels } from '../adapters/readModels.js';
import { decide } from '../domain/decision.js';
import type { Decision } from '../domain/decision.js';
import { skipEntry } from '../domain/notificationRecord.js';
import type { LogDocument, NotificationDocument } from '../domain/notificationRecord.js';
import { digestMessage, notificationText, pushDetails } from '../domain/payload.js';
import { effectivePreferences } from '../domain/preferences.js';
import type { RecipientDocument } from '../projections/recipients.js';
import { enabledProviders, providerOf } from './directory.js';
import type { AppDirectory, AppEntry } from './directory.js';
import { groupBy } from '../domain/grouping.js';

/** The notifications service acts as itself in the facts it records. */
export const notifierActor = (appId: string): Actor => ({ appId, keyId: 'notifications', scope: 'management' });

/**
 * The same message, recipient and target always get the same id, so a redelivered event is decided once.
 * One-shot `hash` (no Hash object per id: ADR 0127), the same hex digest as `createHash`.
 */
export function notificationIdOf(eventId: string, recipient: string, target: string): string {
  return hash('sha256', `${eventId}\n${recipient}\n${target}`).slice(0, 32);
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
  readModels: Pick<NotificationReadModels, 'groupMembers' | 'findRecipients'>;
  directory: AppDirectory;
  /**
   * The app's recipients generation, current for a message that occurred then (ADR 0059): a new one
   * once a recipient change the watch saw is in the read model, so kept recipients are read again.
   */
  recipients: { get(appId: string, occurredAt: number): Promise<object> };
  region: string;
  defaultTimezone: string;
  /**
   * Makes a run's decisions durable (`Deliveries.take`): the skips logged, the sends not decided
   * before made, and what they came to stored, before the offsets move on.
   */
  take: (skipped: readonly LogDocument[], sends: readonly NotificationDocument[], run: HandedRun) => Promise<void>;
  clock?: () => number;
}

type MessageEvent = Extract<KnownEvent, { type: 'MessageSent' }>;

/**
 * What a message renders to for its recipients, worked out once per message and privacy mode (ADR
 * 0090): every recipient of a group message gets the same push details and digest, which depend on
 * the message, the app's settings and whether the recipient reads the privacy templates only.
 */
class Rendered {
  private readonly details = new Map<boolean, Record<string, unknown>>();
  private readonly digests = new Map<boolean, { text: { title: string; body: string }; messages: Array<Record<string, unknown>> }>();

  constructor(
    private readonly message: MessageSent,
    private readonly settings: AppEntry['settings'],
  ) {}

  pushDetails(privacy: boolean): Record<string, unknown> {
    let found = this.details.get(privacy);
    if (!found) this.details.set(privacy, (found = pushDetails(this.message, this.settings, privacy)));
    return found;
  }

  digest(privacy: boolean): { text: { title: string; body: string }; messages: Array<Record<string, unknown>> } {
    let found = this.digests.get(privacy);
    if (!found) {
      found = { text: notificationText(this.message, this.settings, privacy), messages: [digestMessage(this.message, privacy)] };
      this.digests.set(privacy, found);
    }
    return found;
  }
}

/**
 * A recipient's preferences as they apply under an app's settings, kept while both stay the same
 * objects: kept recipients (ADR 0059) and the directory's entry are replaced, never changed, when
 * either changes, so a recipient's next message reuses them.
 */
interface Applied {
  settings: AppEntry['settings'];
  preferences: ReturnType<typeof effectivePreferences>;
  mutes: Record<string, number | null>;
}

/** One decision for one recipient and target: not to notify (logged), or what to send. */
type Planned = { skipped: LogDocument } | { queued: NotificationDocument };

function isNotifiable(event: KnownEvent): event is MessageEvent {
  // Imported history and group action messages notify nobody.
  return event.type === 'MessageSent' && event.data.imported !== true && event.data.category !== 'action';
}

/**
 * Decides, per message and recipient, whether and how to notify. The decisions of a run of events
 * are stored together (ADR 0043, 0049): the skips and the sends' first calls as log entries, the
 * sends not finished within the first-attempt wait as pending notifications; a redelivered message
 * maps to the same ids, so it is decided once.
 */
export class Notifier {
  private readonly clock: () => number;
  private readonly applied = new WeakMap<RecipientDocument, Applied>();

  constructor(private readonly options: NotifierOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Decides the notifications a run of events causes and hands them to `take`, which stores them
   * before the offsets move on: a crash after it lost nothing (a restart resumes pending ones).
   */
  async queue(events: readonly KnownEvent[], run: HandedRun = { mayRepeat: true }): Promise<void> {
    const messages = events.filter(isNotifiable);
    if (messages.length === 0) return;
    const skipped: LogDocument[] = [];
    const queued: NotificationDocument[] = [];
    for (const [appId, appMessages] of groupBy(messages, (e) => e.appId)) {
      // Configured as of the app's newest message in the run, or later: a change answered before it applies.
      const asOf = Math.max(...appMessages.map((e) => Date.parse(e.occurredAt)));
      const entry = await this.options.directory.get(appId, asOf);
      if (!hasAnyProvider(entry)) continue;
      // A group's members are read once per run, however many of its messages the run holds.
      const groups = new Map<string, Promise<readonly string[]>>();
      const [audiences, generation] = await Promise.all([Promise.all(appMessages.map((e) => this.audience(e, groups))), this.options.recipients.get(appId, asOf)]);
      const recipients = await this.options.readModels.findRecipients(appId, [...new Set(audiences.flat())], generation);
      appMessages.forEach((event, i) => {
        const rendered = new Rendered(event.data, entry.settings);
        for (const uid of audiences[i]!) {
          const recipient = recipients.get(uid);
          if (!recipient?.exists || !recipient.active) continue;
          for (const planned of this.plan(event, recipient, entry, rendered)) {
            if ('skipped' in planned) skipped.push(planned.skipped);
            else queued.push(planned.queued);
          }
        }
      });
    }
    if (skipped.length > 0 || queued.length > 0) await this.options.take(skipped, queued, run);
  }

  /** Who a message may notify: the other user, or the group's members but the sender. */
  private async audience(event: MessageEvent, groups: Map<string, Promise<readonly string[]>>): Promise<string[]> {
    const m = event.data;
    if (m.receiverType === 'user') return m.receiver === m.sender ? [] : [m.receiver];
    let members = groups.get(m.receiver);
    if (!members) {
      members = this.options.readModels.groupMembers(event.appId, m.receiver);
      groups.set(m.receiver, members);
    }
    return (await members).filter((uid) => uid !== m.sender);
  }

  /** A recipient's preferences under the app's settings: worked out again only when either changed. */
  private appliedTo(recipient: RecipientDocument, settings: AppEntry['settings']): Applied {
    let applied = this.applied.get(recipient);
    if (applied?.settings !== settings) {
      applied = {
        settings,
        preferences: effectivePreferences(settings, recipient.preferences ?? undefined),
        mutes: Object.fromEntries(Object.entries(recipient.mutes).map(([key, mute]) => [key, mute.until])),
      };
      this.applied.set(recipient, applied);
    }
    return applied;
  }

  private plan(event: MessageEvent, recipient: RecipientDocument, entry: AppEntry, rendered: Rendered): Planned[] {
    const m = event.data;
    const now = this.clock();
    const { preferences, mutes } = this.appliedTo(recipient, entry.settings);
    const timezone = recipient.timezone ?? this.options.defaultTimezone;
    const decision: Decision = decide(
      m,
      { uid: recipient.uid, preferences, mutes, timezone },
      entry.settings.preferences.bypassPreferencesForMentions,
      now,
    );
    const messageSentAt = Date.parse(event.occurredAt);
    return this.targets(event, recipient, entry, preferences.privacy, rendered).map((target): Planned => {
      const notificationId = notificationIdOf(event.id, recipient.uid, `${target.channel}:${target.provider ?? ''}:${target.providerId ?? ''}:${target.token?.token ?? ''}`);
      // Assigned, not spread (ADR 0096): one subject per recipient and target of every message.
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
        messageSentAt,
      };
      if (target.provider) subject.provider = target.provider;
      if (target.providerId) subject.providerId = target.providerId;
      if (target.token) {
        subject.tokenType = target.token.tokenType;
        subject.pushToken = target.token.token;
      }
      const reason = decision.notify ? target.unusable : decision.reason;
      if (reason || !target.payload) return { skipped: skipEntry(event.appId, subject, reason ?? 'NOT_FOUND', now) };
      return { queued: { ...subject, appId: event.appId, payload: target.payload, status: 'pending', attempts: 0, queuedAt: now } };
    });
  }

  /** Every way the app can reach the recipient, with the payload each provider gets. */
  private targets(event: MessageEvent, recipient: RecipientDocument, entry: AppEntry, privacy: boolean, rendered: Rendered): Target[] {
    const m = event.data;
    const envelope = { appId: event.appId, region: this.options.region, webhook: 'custom' };
    const targets: Target[] = [];
    const details = () => rendered.pushDetails(privacy);
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
    const name = m.receiverType === 'user' ? nameOf(m, 'receiver') : undefined;
    for (const digest of digestChannels) {
      const address = recipient[digest.address] ?? undefined;
      for (const provider of enabledProviders(entry, digest.channel)) {
        const { text, messages } = rendered.digest(privacy);
        // The built-in provider always needs the address; a custom one only when it says so.
        const needsAddress = provider.provider !== 'custom' || provider.settings[digest.onlyWithStored] === true;
        const to = { uid: recipient.uid, ...(address ? { [digest.address]: address } : {}), ...(name ? { name } : {}) };
        const data = digest.channel === 'email' ? { to, subject: text.title, messages } : { to, messages, text: `${text.title}: ${text.body}` };
        targets.push({
          channel: digest.channel,
          provider: provider.provider,
          providerId: provider.providerId,
          ...(needsAddress && !address ? { unusable: digest.missing } : { payload: { trigger: `${digest.channel}-notification-payload-generated`, data, ...envelope } }),
        });
      }
    }
    return targets;
  }
}

/** E-mail and SMS differ only in the address they need and how its absence is logged. */
const digestChannels = [
  { channel: 'email', address: 'email', onlyWithStored: 'useStoredEmailID', missing: 'MISSING_EMAIL' },
  { channel: 'sms', address: 'phno', onlyWithStored: 'useStoredPhNo', missing: 'MISSING_PHNO' },
] as const;

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
