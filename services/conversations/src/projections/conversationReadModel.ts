import { conversationLogStreamId, groupConversationId, userConversationId } from '@chat/contracts';
import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { ProjectionRuntime, allOf, findDocument, sourceOfStream, stripStoredFields } from '@chat/mongo';
import type { DocumentStore, EventApplier, Stored, StoredRecord } from '@chat/mongo';
import { RecentlyUsed } from '@chat/eventsourcing';
import { compareKeys } from '@chat/http';
import type { CursorKey, KeyOrder } from '@chat/http';
import { conversationMemberDocId, emptyMember } from '../domain/conversationMember.js';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import { CHUNK_SIZE, historyChunkId, timelineDocId } from '../domain/conversationTimeline.js';
import type { TimelineChunk, TimelineDoc } from '../domain/conversationTimeline.js';
import type { ConversationType, ConversationGroup, UserConversation } from '../domain/conversationView.js';
import { INBOX_SIZE, compareActivity, emptyInbox, inboxDocId, oneOnOneTotal } from '../domain/inbox.js';
import type { Activity, InboxDoc } from '../domain/inbox.js';
import { conversationView, holdsMessage, messageBefore } from '../domain/unreadCount.js';
import type { ConversationView, TimelineHistory } from '../domain/unreadCount.js';
import { conversationMembers } from './conversationMembers.js';
import { conversationTimelines } from './conversationTimelines.js';
import { inboxes } from './inboxes.js';
import { messageCopies, messageCopyDocId } from './messageCopies.js';
import type { MessageCopyDoc } from './messageCopies.js';
import { SealingTimelineStore } from './timelineStores.js';
import type { HistoryChunkDoc } from './timelineStores.js';

/**
 * The two queries that are not reads by id. On FerretDB both read the whole collection, so they serve
 * only what the inbox cannot: filtered lists and pages past the inbox's window.
 */
export interface ConversationScans {
  /** The one-on-one timelines this user takes part in. */
  timelinesWith(appId: string, uid: string): Promise<TimelineDoc[]>;
  /** Every member document of this user. */
  membersOf(appId: string, uid: string): Promise<ConversationMemberDoc[]>;
}

/** The collections of the conversation read model, behind the runtime's port, and its two scans. */
export interface ConversationStores {
  timelines: DocumentStore;
  history: DocumentStore;
  members: DocumentStore;
  copies: DocumentStore;
  inboxes: DocumentStore;
  scans: ConversationScans;
}

export interface ConversationPage {
  total: number;
  items: UserConversation[];
  /** The profiles of the page's groups, by conversation id (read with their timelines). */
  groups: ReadonlyMap<string, ConversationGroup>;
  /** Whether conversations follow this page, and the last one's key in the list's order (a cursor's). */
  more: boolean;
  last: CursorKey | undefined;
}

/**
 * A conversation's place in a user's list, as a cursor keeps it: the pins first, in their order
 * (`[0, -position, 0, id]`), then the rest by last activity (`[1, updatedAt, lastMessageSeq, id]`).
 */
export const CONVERSATION_ORDER: KeyOrder = [1, -1, -1, 1];

function pinnedKey(conversation: UserConversation, position: number): CursorKey {
  return [0, -position, 0, conversation.conversationId];
}

function restKey(conversation: UserConversation): CursorKey {
  return [1, conversation.updatedAt, conversation.lastMessageSeq, conversation.conversationId];
}

/** List filters, already resolved to document fields (peer sets come from the users and groups read here). */
export interface ConversationFilter {
  conversationType?: ConversationType;
  unreadOnly?: boolean;
  tags?: string[];
  /** Restrict to these peers (uids or guids), from userTags/groupTags/searchKey. */
  peers?: string[];
}

/** One conversation as its owner sees it, with the timeline it was derived from. */
export interface ConversationFacts {
  timeline: TimelineDoc;
  member: ConversationMemberDoc | null;
  conversation: UserConversation;
}

function documentOf<Doc extends object>(stored: StoredRecord | null): Doc | null {
  return stored ? stripStoredFields(stored as Stored<Doc>) : null;
}

function activityOf(conversation: UserConversation): Activity {
  return { t: conversation.updatedAt, i: conversation.lastMessageSeq };
}

/** List order after the pins: most recent activity first, then the conversation id (stable pages). */
function newestFirst(a: UserConversation, b: UserConversation): number {
  return compareActivity(activityOf(b), activityOf(a)) || (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0);
}

function matches(conversation: UserConversation, filter: ConversationFilter): boolean {
  if (filter.conversationType && conversation.conversationType !== filter.conversationType) return false;
  if (filter.unreadOnly && conversation.unreadCount === 0) return false;
  if (filter.tags && !filter.tags.some((tag) => conversation.tags?.includes(tag))) return false;
  if (filter.peers && !filter.peers.includes(conversation.peer)) return false;
  return true;
}

/** The conversation ids of the app-wide pins, for one user, in their configured order. */
function globalPinIds(owner: string, globalPins: readonly GlobalPin[]): string[] {
  return globalPins.map((pin) => (pin.conversationType === 'user' ? userConversationId(owner, pin.conversationWith) : groupConversationId(pin.conversationWith)));
}

/** A page of the list: the pinned prefix first, then `rest` from `restStart` on. */
function pageOf(prefix: readonly UserConversation[], page: number, perPage: number) {
  const offset = (page - 1) * perPage;
  const fromPrefix = prefix.slice(offset, offset + perPage);
  return { fromPrefix, remaining: perPage - fromPrefix.length, restStart: Math.max(0, offset - prefix.length) };
}

/** Whether more follow an offset page, and the key of its last conversation. */
function pageEnd(prefix: readonly UserConversation[], items: readonly UserConversation[], offset: number, total: number): { more: boolean; last: CursorKey | undefined } {
  const last = items.at(-1);
  if (!last) return { more: false, last: undefined };
  const position = prefix.indexOf(last);
  return { more: offset + items.length < total, last: position === -1 ? restKey(last) : pinnedKey(last, position) };
}

/** A candidate of the list beyond the pins: its activity is exact once its conversation is read, an upper bound before. */
interface Candidate {
  id: string;
  activity: Activity;
  conversation?: UserConversation;
}

/**
 * The conversation read model over any store (FerretDB in the service, maps in tests): four
 * projections on the one runtime (timelines, member facts, message copies, inboxes), and the
 * read-time derivation of each user's view and list.
 */
export class ConversationReadModel implements EventApplier {
  private readonly appliers: EventApplier;
  /** Sealed chunks never change: every process may keep the ones it read. */
  private readonly chunkCache = new RecentlyUsed<string, TimelineChunk>(20_000);

  constructor(
    private readonly stores: ConversationStores,
    options: { chunkSize?: number; inboxSize?: number } = {},
  ) {
    this.appliers = allOf(
      new ProjectionRuntime(conversationTimelines(options.chunkSize ?? CHUNK_SIZE), new SealingTimelineStore(stores.timelines, stores.history)),
      new ProjectionRuntime(conversationMembers, stores.members),
      new ProjectionRuntime(messageCopies, stores.copies),
      new ProjectionRuntime(inboxes(options.inboxSize ?? INBOX_SIZE), stores.inboxes),
    );
  }

  apply(events: readonly EventEnvelope[]): Promise<void> {
    return this.appliers.apply(events);
  }

  async timeline(appId: string, conversationId: string): Promise<TimelineDoc | null> {
    return documentOf<TimelineDoc>(await findDocument(this.stores.timelines, timelineDocId(appId, conversationId)));
  }

  /**
   * True once the conversation's timeline has applied the version of its message stream that a
   * consistency token names (true when it names none): read-your-writes after a send, on any replica.
   */
  async timelineHasApplied(appId: string, conversationId: string, positions: ReadonlyMap<string, number>): Promise<boolean> {
    const streamId = conversationLogStreamId(appId, conversationId);
    const wanted = positions.get(streamId);
    if (wanted === undefined) return true;
    const stored = await findDocument(this.stores.timelines, timelineDocId(appId, conversationId));
    return (stored?._positions[sourceOfStream(streamId)] ?? 0) >= wanted;
  }

  async member(appId: string, owner: string, conversationId: string): Promise<ConversationMemberDoc | null> {
    return documentOf<ConversationMemberDoc>(await findDocument(this.stores.members, conversationMemberDocId(appId, owner, conversationId)));
  }

  async inbox(appId: string, owner: string): Promise<InboxDoc> {
    return documentOf<InboxDoc>(await findDocument(this.stores.inboxes, inboxDocId(appId, owner))) ?? emptyInbox(appId, owner);
  }

  /** Where a timeline's sealed chunks and older messages are read from. */
  history(appId: string, conversationId: string): TimelineHistory {
    return {
      chunk: async (k) => {
        const id = historyChunkId(appId, conversationId, k);
        const cached = this.chunkCache.get(id);
        if (cached) return cached;
        const found = documentOf<HistoryChunkDoc>(await findDocument(this.stores.history, id));
        if (!found) return null;
        const chunk: TimelineChunk = { k: found.k, before: found.before, entries: found.entries };
        this.chunkCache.set(id, chunk);
        return chunk;
      },
      message: async (id) => documentOf<MessageCopyDoc>(await findDocument(this.stores.copies, messageCopyDocId(appId, id)))?.message ?? null,
    };
  }

  /** What `owner` sees of the conversation, from its timeline and their own facts. */
  view(timeline: TimelineDoc, member: ConversationMemberDoc | null, owner: string): Promise<ConversationView> {
    return conversationView(timeline, member, owner, this.history(timeline.appId, timeline.conversationId));
  }

  /** Whether `id` is an existing message of the conversation's own timeline (a mark may name it). */
  holdsMessage(timeline: TimelineDoc, id: number): Promise<boolean> {
    return holdsMessage(timeline, this.history(timeline.appId, timeline.conversationId), id);
  }

  /** The newest existing message of the timeline before `id` (0 when none). */
  messageBefore(timeline: TimelineDoc, id: number): Promise<number> {
    return messageBefore(timeline, this.history(timeline.appId, timeline.conversationId), id);
  }

  /** The owner's conversation from its timeline and their member document (absent: a one-on-one conversation they never marked). */
  async userConversation(owner: string, timeline: TimelineDoc, member: ConversationMemberDoc | null): Promise<UserConversation> {
    const view = await this.view(timeline, member, owner);
    const peer =
      timeline.conversationType === 'group'
        ? (timeline.group?.guid ?? timeline.conversationId.replace(/^group_/, ''))
        : (timeline.participants?.find((uid) => uid !== owner) ?? owner);
    const facts = member ?? emptyMember(timeline.appId, owner, timeline.conversationId, timeline.conversationType, peer);
    return { ...facts, ...view };
  }

  /** One conversation of `owner`: its timeline, their member document, and their view; null without a timeline. */
  async facts(appId: string, owner: string, conversationId: string): Promise<ConversationFacts | null> {
    const [timeline, member] = await Promise.all([this.timeline(appId, conversationId), this.member(appId, owner, conversationId)]);
    if (!timeline) return null;
    return { timeline, member, conversation: await this.userConversation(owner, timeline, member) };
  }

  /** Several conversations of `owner`, read by id, in the order given (absent ones left out); group profiles go to `groups`. */
  private async conversations(appId: string, owner: string, conversationIds: readonly string[], groups: Map<string, ConversationGroup>): Promise<UserConversation[]> {
    // The timelines and the member documents of the whole set in one read each (ADR 0056), not two per conversation.
    const [timelines, members] = await Promise.all([
      this.stores.timelines.findMany(conversationIds.map((id) => timelineDocId(appId, id))),
      this.stores.members.findMany(conversationIds.map((id) => conversationMemberDocId(appId, owner, id))),
    ]);
    const found = await Promise.all(
      conversationIds.map((id) => {
        const timeline = documentOf<TimelineDoc>(timelines.get(timelineDocId(appId, id)) ?? null);
        if (!timeline) return Promise.resolve(null);
        if (timeline.group) groups.set(timeline.conversationId, timeline.group);
        return this.userConversation(owner, timeline, documentOf<ConversationMemberDoc>(members.get(conversationMemberDocId(appId, owner, id)) ?? null));
      }),
    );
    return found.flatMap((conversation) => (conversation ? [conversation] : []));
  }

  /**
   * A user's conversations in CometChat's order: app-wide pins (in their configured order), then
   * the user's own pins (newest first), then the rest by last activity. Unfiltered pages inside the
   * inbox's window are read by id only; filtered lists and pages beyond it scan (`listDeep`).
   */
  async listForUser(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
    page: number,
    perPage: number,
    after?: CursorKey,
  ): Promise<ConversationPage> {
    if (after !== undefined) return this.listAfter(appId, owner, globalPins, filter, after, perPage);
    if (Object.keys(filter).length === 0) {
      const fromInbox = await this.listFromInbox(appId, owner, globalPins, page, perPage);
      if (fromInbox) return fromInbox;
    }
    return this.listDeep(appId, owner, globalPins, filter, page, perPage);
  }

  /**
   * The page from the inbox: the pins and the user's groups are read by id, and the one-on-one
   * conversations in the inbox's order, until the page is certain (the inbox's activity of a
   * conversation is an upper bound of what its owner sees: a reset or a deletion can only make it
   * older or hide it). Null when the page reaches past an inbox that dropped older conversations.
   */
  private async listFromInbox(appId: string, owner: string, globalPins: readonly GlobalPin[], page: number, perPage: number): Promise<ConversationPage | null> {
    const inbox = await this.inbox(appId, owner);
    const globalIds = globalPinIds(owner, globalPins);
    const prefixIds = [...new Set([...globalIds, ...inbox.pins.map((pin) => pin.c)])];
    const inPrefix = new Set(prefixIds);
    const profiles = new Map<string, ConversationGroup>();
    const [pinned, groups] = await Promise.all([
      this.conversations(appId, owner, prefixIds, profiles),
      this.conversations(appId, owner, inbox.groups.filter((id) => !inPrefix.has(id)), profiles),
    ]);
    const prefix = pinned.filter((conversation) => conversation.listed);
    const listedGroups = groups.filter((conversation) => conversation.listed);
    const candidates: Candidate[] = [
      ...listedGroups.map((conversation) => ({ id: conversation.conversationId, activity: activityOf(conversation), conversation })),
      ...inbox.recent.filter((entry) => !inPrefix.has(entry.c)).map((entry) => ({ id: entry.c, activity: { t: entry.t, i: entry.i } })),
    ].sort((a, b) => compareActivity(b.activity, a.activity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

    const { fromPrefix, remaining, restStart } = pageOf(prefix, page, perPage);
    const needed = remaining > 0 ? restStart + remaining : 0;
    const certain: UserConversation[] = [];
    let next = 0;
    for (;;) {
      certain.sort(newestFirst);
      const boundary = certain[needed - 1];
      if (needed === 0 || next >= candidates.length) break;
      if (boundary && compareActivity(activityOf(boundary), candidates[next]!.activity) >= 0) break;
      const batch = candidates.slice(next, next + Math.max(1, needed - certain.length));
      next += batch.length;
      const unread = batch.filter((candidate) => !candidate.conversation);
      const read = await this.conversations(appId, owner, unread.map((candidate) => candidate.id), profiles);
      for (const conversation of [...batch.flatMap((candidate) => (candidate.conversation ? [candidate.conversation] : [])), ...read]) {
        if (conversation.listed) certain.push(conversation);
      }
    }
    // Past the window, conversations the inbox dropped may come between: only what is newer than them is certain.
    const dropped = inbox.evicted;
    if (dropped && certain.filter((conversation) => compareActivity(activityOf(conversation), dropped) > 0).length < needed) return null;
    const groupsPinned = prefix.filter((conversation) => conversation.conversationType === 'group').length;
    const total = oneOnOneTotal(inbox) + listedGroups.length + groupsPinned;
    const items = [...fromPrefix, ...certain.slice(restStart, restStart + remaining)];
    return { total, items, groups: profiles, ...pageEnd(prefix, items, (page - 1) * perPage, total) };
  }

  /**
   * Every conversation of the user, each view derived, then filtered, ordered and paged in memory:
   * two scans (the user's one-on-one timelines, their member documents) and a read by id per group.
   * What filtered lists and pages past the inbox's window cost.
   */
  private async listDeep(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
    page: number,
    perPage: number,
  ): Promise<ConversationPage> {
    const { prefix, rest, profiles } = await this.inOrder(appId, owner, globalPins, filter);
    const { fromPrefix, remaining, restStart } = pageOf(prefix, page, perPage);
    const items = [...fromPrefix, ...(remaining > 0 ? rest.slice(restStart, restStart + remaining) : [])];
    const total = prefix.length + rest.length;
    return { total, items, groups: profiles, ...pageEnd(prefix, items, (page - 1) * perPage, total) };
  }

  /**
   * The conversations after a cursor's key: the whole list in order (as `listDeep` reads it), from
   * the first conversation past the key. A conversation that became more recent meanwhile moved
   * above the cursor, like any new one: neither is repeated.
   */
  private async listAfter(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
    after: CursorKey,
    perPage: number,
  ): Promise<ConversationPage> {
    const { prefix, rest, profiles } = await this.inOrder(appId, owner, globalPins, filter);
    const keyed = [...prefix.map((conversation, position) => ({ conversation, key: pinnedKey(conversation, position) })), ...rest.map((conversation) => ({ conversation, key: restKey(conversation) }))];
    const start = keyed.findIndex((entry) => compareKeys(CONVERSATION_ORDER, entry.key, after) > 0);
    const from = start === -1 ? keyed.length : start;
    const page = keyed.slice(from, from + perPage);
    return {
      total: keyed.length,
      items: page.map((entry) => entry.conversation),
      groups: profiles,
      more: from + perPage < keyed.length,
      last: page.at(-1)?.key,
    };
  }

  /** Every listed conversation of the user matching `filter`: the pins in their order, then the rest newest first. */
  private async inOrder(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
  ): Promise<{ prefix: UserConversation[]; rest: UserConversation[]; profiles: Map<string, ConversationGroup> }> {
    const [timelines, members] = await Promise.all([this.stores.scans.timelinesWith(appId, owner), this.stores.scans.membersOf(appId, owner)]);
    const memberOf = new Map(members.map((member) => [member.conversationId, member]));
    const groupTimelines = await Promise.all(
      members.filter((member) => member.conversationType === 'group').map((member) => this.timeline(appId, member.conversationId)),
    );
    const profiles = new Map(groupTimelines.flatMap((timeline) => (timeline?.group ? [[timeline.conversationId, timeline.group] as const] : [])));
    const all = await Promise.all(
      [...timelines, ...groupTimelines.flatMap((timeline) => (timeline ? [timeline] : []))].map((timeline) =>
        this.userConversation(owner, timeline, memberOf.get(timeline.conversationId) ?? null),
      ),
    );
    const shown = all.filter((conversation) => conversation.listed && matches(conversation, filter));
    const byId = new Map(shown.map((conversation) => [conversation.conversationId, conversation]));
    const globallyPinned = globalPinIds(owner, globalPins).flatMap((id) => byId.get(id) ?? []);
    const inPrefix = new Set(globallyPinned.map((conversation) => conversation.conversationId));
    const ownPinned = shown
      .filter((conversation) => conversation.pinnedAt !== undefined && !inPrefix.has(conversation.conversationId))
      .sort((a, b) => (b.pinOrder ?? 0) - (a.pinOrder ?? 0));
    const prefix = [...globallyPinned, ...ownPinned];
    for (const conversation of ownPinned) inPrefix.add(conversation.conversationId);
    const rest = shown.filter((conversation) => !inPrefix.has(conversation.conversationId)).sort(newestFirst);
    return { prefix, rest, profiles };
  }
}
