import type { EventEnvelope } from '@chat/contracts';
import { allOf, appliedPositions, ensureIndexes, findByIds, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { EventApplier, Stored } from '@chat/mongo';
import type { ConfigurationDocuments } from '@chat/runtime';
import type { Collection, Db, Filter } from 'mongodb';
import { APPS_COLLECTION, appsProjection } from '../projections/apps.js';
import type { AppConfigDocument } from '../projections/apps.js';
import { GROUP_MEMBERS_COLLECTION, groupMemberBucketIds, groupMembersProjection } from '../projections/groupMembers.js';
import type { GroupMembersDocument } from '../projections/groupMembers.js';
import { LOGS_COLLECTION, NOTIFICATIONS_COLLECTION, logsProjection, notificationsProjection } from '../projections/notifications.js';
import type { LogDocument, NotificationDocument } from '../projections/notifications.js';
import { RECIPIENTS_COLLECTION, recipientId, recipientsProjection } from '../projections/recipients.js';
import type { RecipientDocument } from '../projections/recipients.js';
import { SESSIONS_COLLECTION, sessionId, sessionsProjection } from '../projections/sessions.js';
import type { SessionDocument } from '../projections/sessions.js';

export type LogFilter = Partial<Record<'messageId' | 'messageCategory' | 'messageType' | 'trigger' | 'sender' | 'receiver' | 'receiverType' | 'recipient' | 'channel' | 'provider' | 'reason', string | undefined>> & {
  notificationTriggered?: boolean | undefined;
  success?: boolean | undefined;
  from?: number | undefined;
  to?: number | undefined;
};

export type LogEntry = LogDocument & { _id: string };

/** The notifications service's read models, in its own database. */
export class NotificationReadModels implements EventApplier {
  private readonly projections: EventApplier;
  private readonly apps: Collection<Stored<AppConfigDocument>>;
  private readonly recipients: Collection<Stored<RecipientDocument>>;
  private readonly sessions: Collection<Stored<SessionDocument>>;
  private readonly groups: Collection<Stored<GroupMembersDocument>>;
  private readonly notifications: Collection<Stored<NotificationDocument>>;
  private readonly logs: Collection<Stored<LogDocument>>;

  constructor(private readonly db: Db) {
    this.projections = allOf(
      mongoProjection(db, APPS_COLLECTION, appsProjection),
      mongoProjection(db, RECIPIENTS_COLLECTION, recipientsProjection),
      mongoProjection(db, SESSIONS_COLLECTION, sessionsProjection),
      mongoProjection(db, GROUP_MEMBERS_COLLECTION, groupMembersProjection),
      mongoProjection(db, NOTIFICATIONS_COLLECTION, notificationsProjection),
      mongoProjection(db, LOGS_COLLECTION, logsProjection),
    );
    this.apps = db.collection(APPS_COLLECTION);
    this.recipients = db.collection(RECIPIENTS_COLLECTION);
    this.sessions = db.collection(SESSIONS_COLLECTION);
    this.groups = db.collection(GROUP_MEMBERS_COLLECTION);
    this.notifications = db.collection(NOTIFICATIONS_COLLECTION);
    this.logs = db.collection(LOGS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, NOTIFICATIONS_COLLECTION, [{ keys: { status: 1 }, options: { name: 'status' } }]);
    await ensureIndexes(this.db, LOGS_COLLECTION, [{ keys: { appId: 1, processingStartedAtMS: -1 }, options: { name: 'app_started' } }]);
  }

  apply(events: readonly EventEnvelope[]): Promise<void> {
    return this.projections.apply(events);
  }

  /** The documents an app's notification configuration is loaded from (one per app). */
  configurationDocuments(): ConfigurationDocuments[] {
    return [{ projection: appsProjection, positions: (ids) => appliedPositions(this.apps, ids) }];
  }

  async findApp(appId: string): Promise<AppConfigDocument | null> {
    const doc = await this.apps.findOne({ _id: appId });
    return doc ? stripStoredFields(doc) : null;
  }

  async findRecipient(appId: string, uid: string): Promise<RecipientDocument | null> {
    const doc = await this.recipients.findOne({ _id: recipientId(appId, uid) });
    return doc ? stripStoredFields(doc) : null;
  }

  /** Many recipients in one read (a batch of messages, a group's members). */
  async findRecipients(appId: string, uids: readonly string[]): Promise<Map<string, RecipientDocument>> {
    const found = new Map<string, RecipientDocument>();
    for (let i = 0; i < uids.length; i += 500) {
      const ids = uids.slice(i, i + 500).map((uid) => recipientId(appId, uid));
      for (const doc of await this.recipients.find({ _id: { $in: ids } }).toArray()) {
        const recipient = stripStoredFields<RecipientDocument>(doc);
        found.set(recipient.uid, recipient);
      }
    }
    return found;
  }

  async findSession(appId: string, tokenFingerprint: string): Promise<SessionDocument | null> {
    const doc = await this.sessions.findOne({ _id: sessionId(appId, tokenFingerprint) });
    return doc ? stripStoredFields(doc) : null;
  }

  /** Every bucket of the group, in one read by `_id` (only for apps with a provider). */
  async groupMembers(appId: string, guid: string): Promise<string[]> {
    const docs = await findByIds(this.groups, groupMemberBucketIds(appId, guid));
    return [...docs.values()].flatMap((doc) => doc.members);
  }

  /** What a restarted process still has to send. */
  async pendingNotifications(): Promise<NotificationDocument[]> {
    const docs = await this.notifications.find({ status: 'pending' }).toArray();
    return docs.map((d) => stripStoredFields<NotificationDocument>(d));
  }

  /**
   * Log entries, newest first. `after` continues below an entry (older ones), `before` above it
   * (newer ones, still listed newest first).
   */
  async listLogs(appId: string, filter: LogFilter, page: { limit: number; after?: string | undefined; before?: string | undefined }): Promise<LogEntry[]> {
    const query: Filter<Stored<LogDocument>> = { appId };
    for (const key of ['messageId', 'messageCategory', 'messageType', 'trigger', 'sender', 'receiver', 'receiverType', 'recipient', 'channel', 'provider', 'reason'] as const) {
      const value = filter[key];
      if (value !== undefined) Object.assign(query, { [key]: value });
    }
    if (filter.notificationTriggered !== undefined) query.notificationTriggered = filter.notificationTriggered;
    if (filter.success !== undefined) Object.assign(query, filter.success ? { success: true } : { success: { $ne: true } });
    const range: Record<string, number> = {};
    if (filter.from !== undefined) range['$gte'] = filter.from;
    if (filter.to !== undefined) range['$lte'] = filter.to;
    const anchorId = page.after ?? page.before;
    const anchor = anchorId ? await this.logs.findOne({ _id: anchorId, appId }) : null;
    let sort: Record<string, 1 | -1> = { processingStartedAtMS: -1, _id: -1 };
    if (anchor) {
      const at = anchor.processingStartedAtMS;
      const older = page.after !== undefined;
      Object.assign(query, {
        $or: older
          ? [{ processingStartedAtMS: { $lt: at } }, { processingStartedAtMS: at, _id: { $lt: anchor._id } }]
          : [{ processingStartedAtMS: { $gt: at } }, { processingStartedAtMS: at, _id: { $gt: anchor._id } }],
      });
      if (!older) sort = { processingStartedAtMS: 1, _id: 1 };
    }
    if (Object.keys(range).length > 0) Object.assign(query, { processingStartedAtMS: { ...range, ...(query.processingStartedAtMS as object | undefined) } });
    const docs = await this.logs.find(query).sort(sort).limit(page.limit).toArray();
    const entries = docs.map((d) => ({ ...stripStoredFields<LogDocument>(d), _id: d._id }));
    return sort['_id'] === 1 ? entries.reverse() : entries;
  }
}
