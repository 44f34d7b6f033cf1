import { createHash } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { RecentlyUsed } from '@chat/eventsourcing';
import { MongoDocumentStore, ProjectedReadModels, appliedPositions, bulkWriteChunked, ensureIndexes, findByIds, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { EventApplier, Stored, StoredRecord } from '@chat/mongo';
import type { ConfigurationDocuments } from '@chat/runtime';
import type { Collection, Db, Filter } from 'mongodb';
import { APPS_COLLECTION, appsProjection } from '../projections/apps.js';
import type { AppConfigDocument } from '../projections/apps.js';
import {
  GROUP_MEMBERS_COLLECTION,
  GROUP_VERSIONS_COLLECTION,
  groupMemberBucketIds,
  groupMembersProjection,
  groupVersionId,
  groupVersionsProjection,
} from '../projections/groupMembers.js';
import type { GroupVersionDocument } from '../projections/groupMembers.js';
import { LogPager, entriesOf, holdsEntries, logBatchOf, messageLogId } from '../domain/logPage.js';
import type { LogBatchDocument, LogEntry, LogFilter, LogPageRequest, StoredLogDocument } from '../domain/logPage.js';
import { attemptLogEntry, logEntryId } from '../domain/notificationRecord.js';
import type { AttemptRecord, NotificationDocument } from '../domain/notificationRecord.js';
import { RECIPIENTS_COLLECTION, recipientId, recipientsProjection } from '../projections/recipients.js';
import type { RecipientDocument } from '../projections/recipients.js';
import { groupBy } from '../domain/grouping.js';
import { KeptRecipients } from '../app/keptRecipients.js';

export type { LogEntry, LogFilter } from '../domain/logPage.js';

export const NOTIFICATIONS_COLLECTION = 'notifications';
export const LOGS_COLLECTION = 'notification_logs';

const projections = [appsProjection, recipientsProjection, groupMembersProjection, groupVersionsProjection] as const;

/** What one provider call came to, and whether its notification is now finished (delivered or given up). */
export interface RecordedAttempt {
  notification: NotificationDocument;
  attempt: AttemptRecord;
  final: boolean;
}

/** A message's log entries written by the run that decided it (its skips and the first calls answered). */
export interface MessageRecord {
  appId: string;
  messageId: string;
  entries: LogEntry[];
}

/** Entries per log document: a message to a large group spills into continuation documents. */
const ENTRIES_PER_LOG_DOCUMENT = 250;

/** A document written whole by this service (not by a projection): the stored fields the log reader strips. */
function written(id: string, doc: LogBatchDocument | NotificationDocument): StoredRecord {
  return { ...doc, _id: id, _rev: 0, _positions: {} };
}

/**
 * Recipients kept per process (ADR 0049, 0059): apps, and users per app (past it, the app's kept users
 * start afresh).
 */
const KEPT_RECIPIENT_APPS = 1_000;
const KEPT_RECIPIENTS_PER_APP = 10_000;

/** Ids per delete command (`_id: {$in}`, fetched by key in our FerretDB build). */
const IDS_PER_DELETE = 500;

/**
 * Member lists kept per process (ADR 0043): groups, and the most members a kept list has. A larger
 * group is read afresh for each message (its decisions cost far more than the read).
 */
const KEPT_GROUPS = 1_000;
const KEPT_MEMBERS_PER_GROUP = 1_000;

/** Every event type a read model here applies: the consumer need not decode any other (ADR 0043). */
export const projectedEventTypes: ReadonlySet<string> = new Set(projections.flatMap((p) => [...p.eventTypes]));

/**
 * The notifications service's read models, in its own database, and the records of what it decided
 * and sent (the log and the pending notifications), which it writes itself (ADR 0043).
 */
export class NotificationReadModels extends ProjectedReadModels {
  private readonly apps = this.projected(APPS_COLLECTION, appsProjection);
  private readonly recipients = this.projected(RECIPIENTS_COLLECTION, recipientsProjection);
  private readonly groups = this.projected(GROUP_MEMBERS_COLLECTION, groupMembersProjection);
  private readonly groupVersions: Collection<Stored<GroupVersionDocument>>;
  /** Written after the others: a group's version document never shows a change its buckets lack. */
  private readonly versionProjection: EventApplier;
  private readonly keptMembers = new RecentlyUsed<string, { version: number; members: readonly string[] }>(KEPT_GROUPS);
  private readonly keptRecipients = new KeptRecipients((appId, uids) => this.storedRecipients(appId, uids), KEPT_RECIPIENT_APPS, KEPT_RECIPIENTS_PER_APP);
  private readonly notifications: Collection<Stored<NotificationDocument>>;
  private readonly logs: Collection<StoredLogDocument>;
  /** Idempotent inserts (a duplicate id is reported, not an error) into the two record collections. */
  private readonly pendingStore: MongoDocumentStore;
  private readonly logStore: MongoDocumentStore;

  constructor(db: Db) {
    super(db);
    this.versionProjection = mongoProjection(db, GROUP_VERSIONS_COLLECTION, groupVersionsProjection);
    this.groupVersions = db.collection(GROUP_VERSIONS_COLLECTION);
    this.notifications = db.collection(NOTIFICATIONS_COLLECTION);
    this.logs = db.collection(LOGS_COLLECTION);
    this.pendingStore = new MongoDocumentStore(db, NOTIFICATIONS_COLLECTION);
    this.logStore = new MongoDocumentStore(db, LOGS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, NOTIFICATIONS_COLLECTION, [{ keys: { status: 1 }, options: { name: 'status' } }]);
    await ensureIndexes(this.db, LOGS_COLLECTION, [{ keys: { appId: 1, processingStartedAtMS: -1 }, options: { name: 'app_started' } }]);
  }

  override async apply(events: readonly EventEnvelope[]): Promise<void> {
    await super.apply(events);
    await this.versionProjection.apply(events);
  }

  /** The documents an app's notification configuration is loaded from (one per app). */
  configurationDocuments(): ConfigurationDocuments[] {
    return [{ projection: appsProjection, positions: (ids) => appliedPositions(this.apps, ids) }];
  }

  async findApp(appId: string): Promise<AppConfigDocument | null> {
    const doc = await this.apps.findOne({ _id: appId });
    return doc ? stripStoredFields(doc) : null;
  }

  /** The apps with a provider stored (read once at start: a scan of the apps' documents). */
  async configuredAppIds(): Promise<string[]> {
    const docs = await this.apps.find({}, { projection: { providers: 1 } }).toArray();
    return docs.filter((doc) => Object.keys(doc.providers ?? {}).length > 0).map((doc) => String(doc._id));
  }

  async findRecipient(appId: string, uid: string): Promise<RecipientDocument | null> {
    const doc = await this.recipients.findOne({ _id: recipientId(appId, uid) });
    return doc ? stripStoredFields(doc) : null;
  }

  /**
   * The recipients of a run of messages (ADR 0059): those this process read under the recipients
   * directory's current generation for the app as they are, the others read (an `_id` set) and kept.
   */
  findRecipients(appId: string, uids: readonly string[], generation: object): Promise<Map<string, RecipientDocument>> {
    return this.keptRecipients.find(appId, uids, generation);
  }

  /** The recipients as stored now, by uid (one `_id` set read): where a kept copy must not answer. */
  async storedRecipients(appId: string, uids: readonly string[]): Promise<Map<string, RecipientDocument>> {
    const read = await findByIds(this.recipients, uids.map((uid) => recipientId(appId, uid)));
    const found = new Map<string, RecipientDocument>();
    for (const doc of read.values()) {
      const recipient = stripStoredFields<RecipientDocument>(doc);
      found.set(recipient.uid, recipient);
    }
    return found;
  }

  /** The documents the recipients directory waits for when its watch sees a recipient change (ADR 0059). */
  recipientDocuments(): ConfigurationDocuments[] {
    return [{ projection: recipientsProjection, positions: (ids) => appliedPositions(this.recipients, ids) }];
  }

  /**
   * The group's members (only for apps with a provider): its version document by `_id`, and the
   * member list this process read at that version; else every bucket, each by `_id` (a set of ids
   * would be one read, but on FerretDB `_id: {$in}` of the buckets cost 35 ms under load: issue 23).
   */
  async groupMembers(appId: string, guid: string): Promise<readonly string[]> {
    const key = groupVersionId(appId, guid);
    const current = await this.groupVersions.findOne({ _id: key }, { projection: { version: 1 } });
    const kept = this.keptMembers.get(key);
    if (current && kept?.version === current.version) return kept.members;
    const buckets = await Promise.all(groupMemberBucketIds(appId, guid).map((id) => this.groups.findOne({ _id: id })));
    const members = buckets.flatMap((doc) => doc?.members ?? []);
    // Without a version document (a group from before it existed, or deleted) nothing is kept.
    if (current && members.length <= KEPT_MEMBERS_PER_GROUP) this.keptMembers.set(key, { version: current.version, members });
    else this.keptMembers.delete(key);
    return members;
  }

  /** What a restarted process still has to send. */
  async pendingNotifications(): Promise<NotificationDocument[]> {
    const docs = await this.notifications.find({ status: 'pending' }).toArray();
    return docs.map((d) => stripStoredFields<NotificationDocument>(d));
  }

  /**
   * What a run finds decided before (ADR 0049): messages whose record is stored (their log document,
   * written after the rest of the record: the sends it left pending are stored), and sends whose
   * first call an older build logged as a document of its own. One `_id` set read of the log.
   */
  async decidedBefore(messages: ReadonlyArray<{ appId: string; messageId: string }>, notificationIds: readonly string[]): Promise<{ messages: Set<string>; sends: Set<string> }> {
    const messageIds = messages.map((m) => messageLogId(m.appId, m.messageId));
    const logged = await findByIds(this.logs, [...messageIds, ...notificationIds.map((id) => logEntryId(id, 1))], { _id: 1 });
    return {
      messages: new Set(messageIds.filter((id) => logged.has(id))),
      sends: new Set(notificationIds.filter((id) => logged.has(logEntryId(id, 1)))),
    };
  }

  /**
   * What a run of messages came to: one log document per message (its skips and the first calls
   * answered within the wait; a large group's spill into continuation documents) and the sends still
   * to be made or retried, all idempotent by id. A message's own document is written last, so its
   * presence says the rest is stored.
   */
  async recordRun(messages: readonly MessageRecord[], pending: readonly NotificationDocument[], decidedAt: number): Promise<void> {
    const heads: StoredRecord[] = [];
    const rest: StoredRecord[] = [];
    for (const { appId, messageId, entries } of messages) {
      const id = messageLogId(appId, messageId);
      heads.push(written(id, logBatchOf(appId, entries.slice(0, ENTRIES_PER_LOG_DOCUMENT), decidedAt)));
      for (let from = ENTRIES_PER_LOG_DOCUMENT; from < entries.length; from += ENTRIES_PER_LOG_DOCUMENT) {
        rest.push(written(`${id}:${from / ENTRIES_PER_LOG_DOCUMENT}`, logBatchOf(appId, entries.slice(from, from + ENTRIES_PER_LOG_DOCUMENT), decidedAt)));
      }
    }
    await Promise.all([
      rest.length === 0 ? undefined : this.logStore.insert(rest),
      pending.length === 0 ? undefined : this.pendingStore.insert(pending.map((notification) => written(notification.notificationId, notification))),
    ]);
    if (heads.length > 0) await this.logStore.insert(heads);
  }

  /**
   * Provider calls, recorded together: one insert of their log entries, then the finished
   * notifications deleted at once and each one to retry given its attempt count and time.
   */
  async recordAttempts(attempts: readonly RecordedAttempt[]): Promise<void> {
    // One log document per app and chunk, named by its entries: a write retried whole is a duplicate.
    const documents: StoredRecord[] = [];
    for (const [appId, ofApp] of groupBy(attempts, (a) => a.notification.appId)) {
      for (let from = 0; from < ofApp.length; from += ENTRIES_PER_LOG_DOCUMENT) {
        const entries = ofApp.slice(from, from + ENTRIES_PER_LOG_DOCUMENT).map(({ notification, attempt }) => attemptLogEntry(notification, attempt));
        const id = `a:${createHash('sha256').update(entries.map((e) => e._id).join('\n')).digest('hex').slice(0, 32)}`;
        documents.push(written(id, logBatchOf(appId, entries, entries[0]!.processingStartedAtMS)));
      }
    }
    await this.logStore.insert(documents);
    const retries = attempts.filter((a) => !a.final);
    await Promise.all([
      this.deletePending(attempts.filter((a) => a.final).map((a) => a.notification.notificationId)),
      retries.length === 0
        ? undefined
        : bulkWriteChunked(
            this.notifications,
            retries.map(({ notification, attempt }) => ({
              updateOne: { filter: { _id: notification.notificationId }, update: { $set: { attempts: attempt.attempt, ...(attempt.nextAttemptAt !== undefined ? { nextAttemptAt: attempt.nextAttemptAt } : {}) } } },
            })),
          ),
    ]);
  }

  private async deletePending(ids: readonly string[]): Promise<void> {
    for (let from = 0; from < ids.length; from += IDS_PER_DELETE) {
      const chunk = ids.slice(from, from + IDS_PER_DELETE);
      await this.notifications.deleteMany(chunk.length === 1 ? { _id: chunk[0]! } : { _id: { $in: chunk } });
    }
  }

  /**
   * Log entries, newest first. `after` continues below an entry (older ones), `before` above it
   * (newer ones, still listed newest first). The log's documents hold many entries each (ADR 0049):
   * they are read newest first and the page gathered from their entries (`LogPager`).
   */
  async listLogs(appId: string, filter: LogFilter, page: LogPageRequest): Promise<LogEntry[]> {
    const anchorId = page.after ?? page.before;
    const anchor = anchorId ? await this.findLogEntry(appId, anchorId) : null;
    const pager = new LogPager(filter, page, anchor);
    const lower = pager.lowerBound();
    const query: Filter<StoredLogDocument> = { appId, ...(lower !== undefined ? { processingStartedAtMS: { $gte: lower } } : {}) };
    const cursor = this.logs.find(query).sort({ processingStartedAtMS: -1, _id: -1 });
    try {
      for await (const doc of cursor) if (!pager.offer(doc)) break;
    } finally {
      await cursor.close();
    }
    return pager.entries();
  }

  /** One log entry by its id: a document of its own (before ADR 0049), or in a document of many. */
  private async findLogEntry(appId: string, entryId: string): Promise<LogEntry | null> {
    const own = await this.logs.findOne({ _id: entryId, appId });
    if (own && !holdsEntries(own)) return own;
    const holder = await this.logs.findOne({ appId, entryIds: entryId } as Filter<StoredLogDocument>);
    return holder ? (entriesOf(holder).find((e) => e._id === entryId) ?? null) : null;
  }
}
