import { messageInteractionEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export interface Interaction {
  uid: string;
  elementId: string;
  interactedAt: number;
}

/** Who interacted with which element of one message, first interaction first. */
export interface MessageInteractionsDoc {
  appId: string;
  id: string;
  interactions: Interaction[];
}

type Handled = EventOf<(typeof messageInteractionEventTypes)[number]>;

export function messageInteractionsId(appId: string, id: string): string {
  return `interactions:${appId}:${id}`;
}

/**
 * One document per message, fed by one stream per interacting user: an element is added once, so
 * the fold is a set addition that needs no positions (re-applying changes nothing).
 */
export const messageInteractionsProjection: Projection<MessageInteractionsDoc, Handled> = {
  name: 'message_interactions',
  eventTypes: messageInteractionEventTypes,
  documentIds: (event) => [messageInteractionsId(event.appId, event.data.id)],
  sourceOf: () => null,
  evolve(doc, event) {
    const { uid, id, elementIds, interactedAt } = event.data;
    const known = doc?.interactions ?? [];
    const added = elementIds
      .filter((elementId) => !known.some((i) => i.uid === uid && i.elementId === elementId))
      .map((elementId) => ({ uid, elementId, interactedAt }));
    if (doc && added.length === 0) return doc;
    return { appId: event.appId, id, interactions: [...known, ...added] };
  },
};
