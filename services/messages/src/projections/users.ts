import { userProfileFields } from '@chat/contracts';
import type { EventEnvelope, UserCreated, UserProfileFields } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** What sending needs to know of a user: that it exists and is active, and its entity snapshot. */
export interface KnownUserDoc extends UserProfileFields {
  appId: string;
  deactivated: boolean;
}

type Handled = EventEnvelope<'UserCreated', UserCreated>;

export function knownUserId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

export const knownUsersProjection: Projection<KnownUserDoc, Handled> = {
  name: 'known_users',
  canHandle: (event: EventEnvelope): event is Handled => event.type === 'UserCreated',
  documentIds: (event) => [knownUserId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  evolve: (_doc, event) => ({ appId: event.appId, ...userProfileFields(event.data), deactivated: false }),
};
