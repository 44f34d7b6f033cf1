import type { SharedConversationDoc, UserConversationDoc } from '../domain/conversationView.js';
import type { Change, ConversationProjectionStore, Versioned } from './conversationProjector.js';
import type { ListHeadDoc } from './listHead.js';

function write<Doc>(map: Map<string, Versioned<Doc>>, id: string, current: Versioned<Doc> | null, change: Change<Doc>): void {
  if (change === undefined) return;
  if (change === null) {
    map.delete(id);
    return;
  }
  map.set(id, { doc: structuredClone(change.doc), positions: { ...change.positions }, rev: (current?.rev ?? 0) + 1 });
}

/** The projection store over plain maps: what the Mongo adapter does, for unit and property tests. */
export class MemoryProjectionStore implements ConversationProjectionStore {
  readonly shared = new Map<string, Versioned<SharedConversationDoc>>();
  readonly users = new Map<string, Versioned<UserConversationDoc>>();
  readonly heads = new Map<string, Versioned<ListHeadDoc>>();

  /** A deep copy, to apply the same events again and compare. */
  clone(): MemoryProjectionStore {
    const copy = new MemoryProjectionStore();
    for (const [id, value] of this.shared) copy.shared.set(id, structuredClone(value));
    for (const [id, value] of this.users) copy.users.set(id, structuredClone(value));
    for (const [id, value] of this.heads) copy.heads.set(id, structuredClone(value));
    return copy;
  }

  updateShared(id: string, change: (current: Versioned<SharedConversationDoc> | null) => Change<SharedConversationDoc>): Promise<void> {
    const current = this.shared.get(id) ?? null;
    write(this.shared, id, current, change(current ? structuredClone(current) : null));
    return Promise.resolve();
  }

  updateUserConversation(
    id: string,
    sharedId: string,
    change: (current: Versioned<UserConversationDoc> | null, shared: Versioned<SharedConversationDoc> | null) => Change<UserConversationDoc>,
  ): Promise<void> {
    const current = this.users.get(id) ?? null;
    const shared = this.shared.get(sharedId) ?? null;
    write(this.users, id, current, change(current ? structuredClone(current) : null, shared ? structuredClone(shared) : null));
    return Promise.resolve();
  }

  updateListHead(
    headId: string,
    userConversationId: string,
    change: (head: Versioned<ListHeadDoc> | null, current: UserConversationDoc | null) => ListHeadDoc | undefined,
  ): Promise<void> {
    const head = this.heads.get(headId) ?? null;
    const next = change(head ? structuredClone(head) : null, structuredClone(this.users.get(userConversationId)?.doc ?? null));
    if (next !== undefined) write(this.heads, headId, head, { doc: next, positions: {} });
    return Promise.resolve();
  }

  sharedRevision(id: string): Promise<number> {
    return Promise.resolve(this.shared.get(id)?.rev ?? 0);
  }

  userConversationIds(appId: string, conversationId: string): Promise<string[]> {
    const ids = [...this.users.entries()]
      .filter(([, v]) => v.doc.appId === appId && v.doc.conversationId === conversationId)
      .map(([id]) => id);
    return Promise.resolve(ids);
  }
}
