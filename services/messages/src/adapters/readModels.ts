import type { EventEnvelope } from '@chat/contracts';
import { DocumentMemory, MongoDocumentStore, ProjectedReadModels, byScalarFields, dropRetiredIndexes, ensureIndexes, findByIds, findPage, showsPositions, stripStoredFields } from '@chat/mongo';
import type { DocumentMemoryOptions, KeysetOrder, MongoDocumentStoreOptions, PagePosition, Stored, StoredRecord } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import { groupFactsProjection, knownGroupId, membershipId } from '../projections/groups.js';
import type { GroupFactDoc, KnownGroupDoc, MembershipDoc } from '../projections/groups.js';
import type { MessageFact, ReceiptFact } from '../domain/usageMetrics/usageMetrics.js';
import { importedMuidId, importedMuidsProjection } from '../projections/dataImport/importedMuids.js';
import type { ImportedMuidDoc } from '../projections/dataImport/importedMuids.js';
import { messageDocId, messagesProjection } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import { messageMuidId, messageMuidsProjection } from '../projections/messageMuids.js';
import type { MessageMuidDoc } from '../projections/messageMuids.js';
import { receiptFactsProjection } from '../projections/usageMetrics/receiptFacts.js';
import type { ReceiptFactDoc } from '../projections/usageMetrics/receiptFacts.js';
import { receiptMarksProjection } from '../projections/receiptMarks.js';
import type { ReceiptMarksDoc } from '../projections/receiptMarks.js';
import { scopePermissionsId, scopePermissionsProjection } from '../projections/scopePermissions.js';
import type { ScopePermissionsDoc } from '../projections/scopePermissions.js';
import { knownUserId, knownUsersProjection } from '../projections/users.js';
import type { KnownUserDoc } from '../projections/users.js';
import { messageFilter } from './messageQuery.js';
import type { MessageCursor, MessageQuery, UnseenBy } from './messageQuery.js';

/** `watchCurrentAsOf`: how current this replica's watch is (the pipeline's), so kept facts are not re-read while it keeps up. */
export interface MessagesReadModelsOptions extends Pick<DocumentMemoryOptions, 'watchCurrentAsOf'>, MongoDocumentStoreOptions {
  /**
   * Resolves once the own-events group (every replica's) has applied everything on the messages topic
   * when called; false when it gave up waiting. An erasure waits for it. Default: at once (no group).
   */
  untilOwnTopicApplied?: () => Promise<boolean>;
}

/** Users, groups and memberships share one collection so a command reads all its facts at once. */
type FactDoc = KnownUserDoc | GroupFactDoc | ScopePermissionsDoc;

export interface FactsRequest {
  users: readonly string[];
  guid?: string;
  /** Whose membership of `guid` to read. */
  members?: readonly string[];
}

export interface Facts {
  users: Map<string, KnownUserDoc>;
  group: KnownGroupDoc | null;
  memberships: Map<string, MembershipDoc>;
  /** The group's scope permissions; null while every value is the default. */
  scopePermissions: ScopePermissionsDoc | null;
}

/** Page order of message lists: ids grow with `seq`, which is unique. */
const BY_SEQ: KeysetOrder = [['seq', 1]];
/**
 * `groupsOf` asks the facts by the fields of the `memberships_of_user` index, all written as strings by
 * the groups and users projections: on FerretDB the read searches that index, not every app's facts.
 */
const MEMBERSHIP_SCALARS = byScalarFields('appId', 'kind', 'uid', 'standing');
/** A user's receipt marks by the string fields leading `marks_of_user`, for the same reason. */
const MARKS_SCALARS = byScalarFields('appId', 'uid');
/**
 * `app_time` ({appId, sentAt}) served only the usage metrics' read of an app's messages by time, whose
 * range never reaches SQL on FerretDB: any index `appId` leads serves it as well. On MongoDB the read
 * now walks the app's entries of `app_order` (an admin's metrics read, not a send's). The index cost
 * every send's insert (ADR 0097).
 */
const RETIRED_MESSAGE_INDEXES = ['app_time'];
/** The usage metrics' reads by app (a string in every message and receipt fact), through an index it leads. */
const BY_APP = byScalarFields('appId');

/**
 * The messages service's read models: what it knows of users, groups and memberships (from other
 * services' events) and every message (from its own). The Kafka consumer and the read-your-writes
 * path both write through the projection runtime.
 */
export class MessagesReadModels extends ProjectedReadModels {
  private readonly messages: Collection<Stored<MessageDoc>>;
  private readonly messageMuids: Collection<Stored<MessageMuidDoc>>;
  private readonly receiptMarks: Collection<Stored<ReceiptMarksDoc>>;
  private readonly receiptFacts: Collection<Stored<ReceiptFactDoc>>;
  private readonly facts: Collection<Stored<FactDoc>>;
  private readonly importedMuids: Collection<Stored<ImportedMuidDoc>>;
  /** The facts every send reads, from memory; `observeFacts` keeps it current on every replica. */
  private readonly factsMemory: DocumentMemory;

  private readonly untilOwnTopicApplied: () => Promise<boolean>;

  constructor(db: Db, options: MessagesReadModelsOptions = {}) {
    const { untilOwnTopicApplied = () => Promise.resolve(true), documentsPerInsert, ...memory } = options;
    super(db, documentsPerInsert !== undefined ? { documentsPerInsert } : {});
    this.untilOwnTopicApplied = untilOwnTopicApplied;
    // Users, groups and memberships share one collection (distinct ids) so a command reads all its facts at once.
    this.projected('facts', knownUsersProjection);
    this.projected('facts', groupFactsProjection);
    this.facts = this.projected('facts', scopePermissionsProjection) as Collection<Stored<FactDoc>>;
    this.messages = this.projected('messages', messagesProjection);
    this.messageMuids = this.projected('message_muids', messageMuidsProjection);
    this.receiptMarks = this.projected('receipt_marks', receiptMarksProjection);
    this.receiptFacts = this.projected('receipt_facts', receiptFactsProjection);
    this.importedMuids = this.projected('imported_muids', importedMuidsProjection);
    this.factsMemory = new DocumentMemory(
      new MongoDocumentStore(this.db, 'facts'),
      [knownUsersProjection, groupFactsProjection, scopePermissionsProjection],
      memory,
    );
  }

  /** Fact reads served from memory and from the store (for metrics and tests). */
  get factsReads(): { hits: number; misses: number } {
    return this.factsMemory.stats;
  }

  /** The event types that change a fact: the only ones the watch needs to decode for `observeFacts`. */
  static readonly factEventTypes: ReadonlySet<string> = new Set([
    ...knownUsersProjection.eventTypes,
    ...groupFactsProjection.eventTypes,
    ...scopePermissionsProjection.eventTypes,
  ]);

  /** Events of the topics that feed the facts, as this replica sees them on Kafka (its event watch). */
  observeFacts(events: readonly EventEnvelope[]): void {
    this.factsMemory.observe(events);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'facts', [
      { keys: { appId: 1, kind: 1, uid: 1, standing: 1 }, options: { name: 'memberships_of_user' } },
    ]);
    await ensureIndexes(this.db, 'receipt_marks', [{ keys: { appId: 1, uid: 1 }, options: { name: 'marks_of_user' } }]);
    await ensureIndexes(this.db, 'receipt_facts', [{ keys: { appId: 1, at: 1 }, options: { name: 'app_time' } }]);
    await ensureIndexes(this.db, 'messages', [
      { keys: { appId: 1, seq: 1 }, options: { name: 'app_order' } },
      { keys: { appId: 1, conversationId: 1, seq: 1 }, options: { name: 'conversation_order' } },
      { keys: { appId: 1, parentId: 1, seq: 1 }, options: { name: 'thread_order' } },
      { keys: { appId: 1, sender: 1, seq: 1 }, options: { name: 'sender_order' } },
      { keys: { appId: 1, receiver: 1, seq: 1 }, options: { name: 'receiver_order' } },
    ]);
    await dropRetiredIndexes(this.db, 'messages', RETIRED_MESSAGE_INDEXES);
  }

  /**
   * Applies a batch to every read model that cares; safe to call any number of times. A new message
   * is inserted without a read (the runtime knows its document cannot exist yet).
   */
  override async apply(events: readonly EventEnvelope[]): Promise<void> {
    await super.apply(events);
    // What this process just wrote is current here at once, before its own watch sees the events.
    this.factsMemory.observe(events);
    // After the facts: a deleted user's sends are refused at once, whatever the erasure waits for.
    await this.eraseMessagesOf(events);
  }

  /** A user's read or delivery marks: of one conversation, or of all of theirs. */
  async marksOf(appId: string, uid: string, which: 'read' | 'delivered', conversationId?: string): Promise<UnseenBy> {
    const docs = await this.receiptMarks
      .find({ appId, uid, ...(conversationId !== undefined ? { conversationId } : {}), ...MARKS_SCALARS } as Filter<Stored<ReceiptMarksDoc>>)
      .toArray();
    return {
      uid,
      marks: docs.map((doc) => ({ conversationId: doc.conversationId, upTo: which === 'read' ? doc.readUpTo : doc.deliveredUpTo })),
    };
  }

  /**
   * A permanent user deletion erases the user's messages (`UserDeleted` contract): what they sent
   * anywhere and the one-on-one messages they received. Deleting what is already gone is a no-op, so
   * redelivery is safe.
   *
   * The own-events group re-applies every message event to heal a crash (ADR 0084), and an erased
   * document has no positions left to say it saw its `MessageSent`: a heal still behind the erasure
   * (another replica's partition, say) would write the message back, for good. So the erasure runs
   * again once that group has applied everything on the topic now (ADR 0085); the first pass only
   * makes the messages disappear without that wait.
   */
  private async eraseMessagesOf(events: readonly EventEnvelope[]): Promise<void> {
    const erasures = events.flatMap((event) => {
      if (event.type !== 'UserDeleted') return [];
      const { uid, permanent } = event.data as { uid?: unknown; permanent?: unknown };
      return permanent === true && typeof uid === 'string' ? [{ appId: event.appId, uid }] : [];
    });
    if (erasures.length === 0) return;
    const erase = () =>
      this.messages.deleteMany({
        $or: erasures.flatMap(({ appId, uid }) => [
          { appId, sender: uid },
          { appId, receiverType: 'user', receiver: uid },
        ]),
      });
    await erase();
    if (!(await this.untilOwnTopicApplied())) throw new Error('erasure: the own-events group did not catch up with the messages topic');
    await erase();
  }

  /** Every fact a command needs, in one query. */
  async findFacts(appId: string, request: FactsRequest): Promise<Facts> {
    const ids = [...new Set(request.users)].map((uid) => knownUserId(appId, uid));
    if (request.guid !== undefined) {
      const { guid } = request;
      ids.push(knownGroupId(appId, guid), scopePermissionsId(appId, guid), ...(request.members ?? []).map((uid) => membershipId(appId, guid, uid)));
    }
    const docs = await this.factsMemory.getMany(ids);
    if (request.guid !== undefined) await this.bringGroupUpToMembers(docs, knownGroupId(appId, request.guid));
    const facts: Facts = { users: new Map(), group: null, memberships: new Map(), scopePermissions: null };
    for (const stored of docs.values()) {
      const doc = stripStoredFields(stored as unknown as Stored<FactDoc>);
      if (doc.kind === 'user') facts.users.set(doc.uid, doc);
      else if (doc.kind === 'group') facts.group = doc.deleted ? null : doc;
      else if (doc.kind === 'scopePermissions') facts.scopePermissions = doc;
      else facts.memberships.set(doc.uid, doc);
    }
    return facts;
  }

  /**
   * Every event of a group's stream changes the group's document, so it must show at least each
   * position its members' documents show. A remembered group read beside a member just read from the
   * store may not (another replica's projection wrote both before this replica's watch saw the event):
   * a send would then be allowed by the new membership and carry the old member count. Such a group is
   * read again, at least at those positions.
   */
  private async bringGroupUpToMembers(docs: Map<string, StoredRecord>, groupId: string): Promise<void> {
    const group = docs.get(groupId);
    if (!group) return;
    const owed: Record<string, number> = {};
    for (const [id, record] of docs) {
      if (id === groupId || (record as unknown as FactDoc).kind !== 'member') continue;
      for (const [source, version] of Object.entries(record._positions)) owed[source] = Math.max(owed[source] ?? 0, version);
    }
    if (showsPositions(group, owed)) return;
    const reread = (await this.factsMemory.getMany([groupId], owed)).get(groupId);
    if (reread) docs.set(groupId, reread);
    else docs.delete(groupId);
  }

  /** The groups a user is a member of (for what `GET /messages` shows on their behalf). */
  async groupsOf(appId: string, uid: string): Promise<string[]> {
    const docs = await this.facts
      .find({ appId, kind: 'member', uid, standing: 'member', ...MEMBERSHIP_SCALARS } as Filter<Stored<FactDoc>>)
      .toArray();
    return docs.map((doc) => (doc as Stored<MembershipDoc>).guid);
  }

  async findMessages(appId: string, ids: readonly string[]): Promise<Map<string, MessageDoc>> {
    const docs = [...(await findByIds(this.messages, ids.map((id) => messageDocId(appId, id)))).values()];
    return new Map(docs.map((doc) => [doc.id, stripStoredFields(doc)]));
  }

  /** What the usage metrics count: the app's messages sent within the range (one read through the app's index). */
  async messageFactsBetween(appId: string, from: number, to: number): Promise<MessageFact[]> {
    const docs = await this.messages
      .find({ appId, sentAt: { $gte: from, $lte: to }, ...BY_APP } as Filter<Stored<MessageDoc>>, { projection: { sender: 1, type: 1, category: 1, sentAt: 1 } })
      .toArray();
    return docs.map((d) => ({ sender: d.sender, type: d.type, category: d.category, sentAt: d.sentAt }));
  }

  /** What the message metrics count of receipts: the app's read and delivery marks within the range. */
  async receiptFactsBetween(appId: string, from: number, to: number): Promise<ReceiptFact[]> {
    const docs = await this.receiptFacts
      .find({ appId, at: { $gte: from, $lte: to }, ...BY_APP } as Filter<Stored<ReceiptFactDoc>>, { projection: { kind: 1, at: 1 } })
      .toArray();
    return docs.map((d) => ({ kind: d.kind, at: d.at }));
  }

  /** The messages earlier data imports stored under these `muid`s, by muid. */
  async findImported(appId: string, muids: readonly string[]): Promise<Map<string, MessageDoc>> {
    const found = [...(await findByIds(this.importedMuids, muids.map((muid) => importedMuidId(appId, muid)))).values()];
    const messages = await this.findMessages(appId, found.map((doc) => doc.id));
    const byMuid = new Map<string, MessageDoc>();
    for (const doc of found) {
      const message = messages.get(doc.id);
      if (message) byMuid.set(doc.muid, message);
    }
    return byMuid;
  }

  /** A sender's earlier message with this client id (`muid`), if any: a resend must not store it twice. */
  async findBySenderMuid(appId: string, sender: string, muid: string): Promise<MessageDoc | null> {
    const first = await this.messageMuids.findOne({ _id: messageMuidId(appId, sender, muid) } as Filter<Stored<MessageMuidDoc>>);
    // The message may be gone since (erased with its sender): then the muid names nothing.
    return first ? this.findMessage(appId, first.id) : null;
  }

  async findMessage(appId: string, id: string): Promise<MessageDoc | null> {
    return (await this.findMessages(appId, [id])).get(id) ?? null;
  }

  /**
   * Up to `limit` messages after or before the cursor, returned oldest first. `before` takes the
   * newest ones below the cursor (the page just before it).
   */
  async listMessages(query: MessageQuery, cursor: MessageCursor | null, limit: number): Promise<MessageDoc[]> {
    const backwards = cursor?.direction === 'before';
    const sortField = cursor?.field ?? 'seq';
    const docs = await this.messages
      .find(messageFilter(query, cursor))
      .sort(sortField === 'seq' ? { seq: backwards ? -1 : 1 } : { sentAt: backwards ? -1 : 1, seq: backwards ? -1 : 1 })
      .limit(limit)
      .toArray();
    if (backwards) docs.reverse();
    return docs.map((doc) => stripStoredFields(doc));
  }

  /** One page in id order, and how many messages match in all. */
  async pageMessages(query: MessageQuery, position: PagePosition, perPage: number): Promise<{ total: number; items: MessageDoc[]; more: boolean }> {
    const { total, items, more } = await findPage(this.messages, messageFilter(query, null), BY_SEQ, position, perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<MessageDoc>)), more };
  }

  async countMessages(query: MessageQuery): Promise<number> {
    return this.messages.countDocuments(messageFilter(query, null));
  }
}
