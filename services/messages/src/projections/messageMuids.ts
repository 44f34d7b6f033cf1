import { messageEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** Which message a sender's client id (`muid`) was first given to. */
export interface MessageMuidDoc {
  id: string;
}

type Handled = EventOf<(typeof messageEventTypes)[number]>;

/** A sender's muids are looked up by `_id` alone: any other filter is a collection scan on FerretDB. */
export function messageMuidId(appId: string, sender: string, muid: string): string {
  return `${appId}:${sender}:${muid}`;
}

/**
 * The first message each `(sender, muid)` named, so a client's resend after a lost answer finds it
 * with one read by id. Written once (inserted with the message, no read); a later message with the
 * same muid (two resends that raced) leaves the first in place.
 */
export const messageMuidsProjection: Projection<MessageMuidDoc, Handled> = {
  name: 'message_muids',
  eventTypes: messageEventTypes,
  documentIds: (event) =>
    event.type === 'MessageSent' && event.data.muid !== undefined ? [messageMuidId(event.appId, event.data.sender, event.data.muid)] : [],
  // Two streams (a user's conversations) may name the same muid: the document keeps no position, and the first id stays.
  sourceOf: () => null,
  creates: () => true,
  // Only a MessageSent names a document (above).
  evolve: (doc, event) => doc ?? { id: event.data.id },
};
