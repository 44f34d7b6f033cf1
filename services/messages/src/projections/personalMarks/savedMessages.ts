import { savedMessageEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export interface SavedEntry {
  id: string;
  conversationId: string;
  savedAt: number;
}

/** One user's saved messages, most recently saved first (at most 100: the decider's cap). */
export interface SavedMessagesDoc {
  appId: string;
  uid: string;
  saved: SavedEntry[];
}

type Handled = EventOf<(typeof savedMessageEventTypes)[number]>;

export function savedMessagesId(appId: string, uid: string): string {
  return `saved:${appId}:${uid}`;
}

/** Fed by the user's own stream only, so the runtime's position guard per stream makes replays no-ops. */
export const savedMessagesProjection: Projection<SavedMessagesDoc, Handled> = {
  name: 'saved_messages',
  eventTypes: savedMessageEventTypes,
  documentIds: (event) => [savedMessagesId(event.appId, event.data.uid)],
  evolve(doc, event) {
    const { uid, id, conversationId } = event.data;
    const rest = (doc?.saved ?? []).filter((entry) => entry.id !== id);
    switch (event.type) {
      case 'MessageSaved':
        return { appId: event.appId, uid, saved: [{ id, conversationId, savedAt: event.data.savedAt }, ...rest] };
      case 'MessageUnsaved':
        return rest.length > 0 ? { appId: event.appId, uid, saved: rest } : null;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
