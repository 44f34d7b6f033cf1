import type { EventEnvelope } from '@chat/contracts';
import type { SharedConversationDoc, UserConversationDoc } from '../domain/conversationView.js';
import { listHeadDocId, updateListHead } from './listHead.js';
import type { ListHeadDoc } from './listHead.js';
import { conversationOf, evolveShared, isSharedEvent, sharedConversationDocId } from './sharedConversations.js';
import { deriveUserConversation, evolveUserConversation, isMemberEvent, ownersOf, userConversationDocId } from './userConversations.js';
import type { MemberEvent } from './userConversations.js';

/** A stored document with the guard the writer keeps: per-stream positions and a revision. */
export interface Versioned<Doc> {
  doc: Doc;
  /** Last applied version per source stream: redelivery and replay change nothing. */
  positions: Record<string, number>;
  /** Bumped by every write; compare-and-set key. */
  rev: number;
}

export type Change<Doc> = { doc: Doc; positions: Record<string, number> } | null | undefined;

/**
 * Where the conversation projections live. Each update is a read-modify-write that the store
 * repeats until it wins (compare-and-set on `rev`); `undefined` from the change means "no write".
 */
export interface ConversationProjectionStore {
  updateShared(id: string, change: (current: Versioned<SharedConversationDoc> | null) => Change<SharedConversationDoc>): Promise<void>;
  /** Reads the user's document, then the shared one, on every attempt, so a derivation never uses an older shared state than a rival's. */
  updateUserConversation(
    id: string,
    sharedId: string,
    change: (current: Versioned<UserConversationDoc> | null, shared: Versioned<SharedConversationDoc> | null) => Change<UserConversationDoc>,
  ): Promise<void>;
  /** Reads the head, then the user's conversation document, on every attempt; `undefined` from the change means "no write". */
  updateListHead(
    headId: string,
    userConversationId: string,
    change: (head: Versioned<ListHeadDoc> | null, current: UserConversationDoc | null) => ListHeadDoc | undefined,
  ): Promise<void>;
  /** Ids of every user's document of one conversation. */
  userConversationIds(appId: string, conversationId: string): Promise<string[]>;
  /** The shared document's current revision, 0 when there is none. */
  sharedRevision(id: string): Promise<number>;
}

/** Stream ids become position keys; stored keys may not contain `.` or start with `$`. */
export function sourceKey(streamId: string): string {
  return streamId.replace(/[.$]/g, '_');
}

function isNew(positions: Record<string, number> | undefined, event: EventEnvelope): boolean {
  return (positions?.[sourceKey(event.streamId)] ?? 0) < event.version;
}

function advanced(positions: Record<string, number> | undefined, event: EventEnvelope): Record<string, number> {
  return { ...positions, [sourceKey(event.streamId)]: event.version };
}

function sameDoc(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Applies events to the shared conversation documents and every affected user's view, through any
 * store. The Kafka consumer, the service's read-your-writes path and the unit tests all run this.
 */
export class ConversationProjector {
  constructor(private readonly store: ConversationProjectionStore) {}

  async apply(event: EventEnvelope): Promise<void> {
    const shared = isSharedEvent(event) ? event : null;
    const member = isMemberEvent(event) ? event : null;
    if (!shared && !member) return;

    const conversationId = shared ? conversationOf(shared) : ownersOf(member!).conversationId;
    const sharedId = sharedConversationDocId(event.appId, conversationId);
    let participants: readonly string[] | undefined;
    if (shared) {
      await this.store.updateShared(sharedId, (current) => {
        participants = current?.doc.participants;
        if (current && !isNew(current.positions, shared)) return undefined;
        const next = evolveShared(current?.doc ?? null, shared);
        if (!next) return current ? { doc: current.doc, positions: advanced(current.positions, shared) } : undefined;
        participants = next.participants;
        return { doc: next, positions: advanced(current?.positions, shared) };
      });
    }

    const owned = new Set(member ? ownersOf(member).owners.map((owner) => userConversationDocId(event.appId, owner, conversationId)) : []);
    const ids = new Set(owned);
    // A change to the shared document can change what every participant sees. A one-on-one
    // conversation names its two participants; only a group's have to be looked up (a query that
    // FerretDB v1 answers by scanning every user's conversation documents).
    if (shared) {
      const everyone = participants
        ? participants.map((uid) => userConversationDocId(event.appId, uid, conversationId))
        : await this.store.userConversationIds(event.appId, conversationId);
      for (const id of everyone) ids.add(id);
    }

    const derivedFrom = new Map<string, number>();
    for (const id of ids) {
      const revision = await this.refreshUserConversation(event.appId, conversationId, sharedId, id, owned.has(id) ? member : null);
      if (revision !== undefined && owned.has(id)) derivedFrom.set(id, revision);
    }
    // A rival applier (another partition: a message while this member joins) may have changed the
    // shared document after this one read it, and listed the conversation's user documents before this
    // one wrote a new one, so neither derivation saw both. This one wrote first and checks second, the
    // rival writes the shared document first and lists second: one of the two always sees the other.
    if (derivedFrom.size === 0) return;
    const latest = await this.store.sharedRevision(sharedId);
    for (const [id, revision] of derivedFrom) {
      if (revision < latest) await this.refreshUserConversation(event.appId, conversationId, sharedId, id, null);
    }
  }

  /**
   * Applies the member event to one user's document when it is theirs, derives it from the shared
   * document as it is now, and keeps their list head in step. Returns the shared revision a write
   * was derived from, or undefined when nothing was written.
   */
  private async refreshUserConversation(
    appId: string,
    conversationId: string,
    sharedId: string,
    id: string,
    member: MemberEvent | null,
  ): Promise<number | undefined> {
    const owner = id.slice(appId.length + 1, id.length - conversationId.length - 1);
    let listedDelta = 0;
    let wrote = false;
    let derivedFrom = 0;
    await this.store.updateUserConversation(id, sharedId, (current, sharedDoc) => {
      const change = this.nextUserConversation(member, current, sharedDoc, owner);
      wrote = change !== undefined;
      derivedFrom = sharedDoc?.rev ?? 0;
      listedDelta = (change?.doc.listed ? 1 : 0) - (current?.doc.listed ? 1 : 0);
      return change;
    });
    if (!wrote) return undefined;
    await this.store.updateListHead(listHeadDocId(appId, owner), id, (head, current) => {
      const next = updateListHead(head?.doc ?? null, { appId, owner, conversationId }, current, listedDelta);
      return head && sameDoc(next, head.doc) ? undefined : next;
    });
    return derivedFrom;
  }

  /** The owner's document after the event (their own facts, if it is theirs) and the shared document as it is now. */
  private nextUserConversation(
    member: MemberEvent | null,
    current: Versioned<UserConversationDoc> | null,
    sharedDoc: Versioned<SharedConversationDoc> | null,
    owner: string,
  ): Change<UserConversationDoc> {
    let doc = current?.doc ?? null;
    let positions = current?.positions ?? {};
    const applies = member !== null && isNew(current?.positions, member);
    if (applies) {
      doc = evolveUserConversation(doc, member, owner);
      positions = advanced(positions, member);
    }
    if (!doc) return current ? null : undefined;
    const sharedRev = sharedDoc?.rev ?? 0;
    if (!applies && current && current.doc.sharedRev > sharedRev) return undefined;
    const derived = deriveUserConversation(doc, sharedDoc?.doc ?? null, sharedRev);
    if (current && sameDoc(derived, current.doc) && sameDoc(positions, current.positions)) return undefined;
    return { doc: derived, positions };
  }
}
