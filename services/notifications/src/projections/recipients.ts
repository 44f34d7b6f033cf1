import { notificationRecipientEventTypes, userLifecycleEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { emptyRecipient, evolveRecipient } from '../domain/recipient.js';
import type { RecipientEvent, RecipientState } from '../domain/recipient.js';

export const RECIPIENTS_COLLECTION = 'notification_recipients';

/** A user as notifications know them: whether they exist and may be notified, and their own facts. */
export interface RecipientDocument extends RecipientState {
  appId: string;
  uid: string;
  /** Created and not deleted (users service events). */
  exists: boolean;
  /** Not deactivated: a deactivated user gets no notification. */
  active: boolean;
}

export const recipientEventTypes = [...userLifecycleEventTypes, ...notificationRecipientEventTypes] as const;
type Handled = EventOf<(typeof recipientEventTypes)[number]>;

export function recipientId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

const isOwn = new Set<string>(notificationRecipientEventTypes);

/**
 * One document per user (`_id` = `<appId>:<uid>`), fed by the users service's lifecycle events and
 * this service's recipient stream (each its own ordered source).
 */
export const recipientsProjection: Projection<RecipientDocument, Handled> = {
  name: RECIPIENTS_COLLECTION,
  eventTypes: recipientEventTypes,
  documentIds: (event) => [recipientId(event.appId, event.data.uid)],
  // A new user usually has no document yet, so it is inserted without a read (an import's thousands of
  // users). Where one exists (a deleted user's uid reused, or recipient events that came first), or on a
  // redelivery, the insert fails and the runtime reads and folds as usual: the position skips a replay.
  creates: (event) => event.type === 'UserCreated',
  evolve: (document, event) => {
    const doc: RecipientDocument = document ?? { ...emptyRecipient(), appId: event.appId, uid: event.data.uid, exists: false, active: false };
    if (isOwn.has(event.type)) return { ...doc, ...evolveRecipient(doc, event as unknown as RecipientEvent) };
    if (event.type === 'UserCreated') return { ...doc, exists: true, active: true };
    if (event.type === 'UserDeactivated') return { ...doc, active: false };
    if (event.type === 'UserReactivated') return { ...doc, active: true };
    // The user's tokens and contact details go with them; a later user with the uid starts afresh.
    if (event.type === 'UserDeleted') return { ...emptyRecipient(), appId: doc.appId, uid: doc.uid, exists: false, active: false };
    return doc;
  },
};
