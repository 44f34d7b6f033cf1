import { userProfileFields } from '@chat/contracts';
import type { EventEnvelope, UserCreated } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { PeerUserDoc } from '../domain/conversationView.js';

type Handled = EventEnvelope<'UserCreated', UserCreated>;

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

/** This service's own copy of users: existence checks and `conversationWith`. */
export const usersProjection: Projection<PeerUserDoc, Handled> = {
  name: 'users',
  canHandle: (event: EventEnvelope): event is Handled => event.type === 'UserCreated',
  documentIds: (event) => [userDocId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  evolve(_doc, event) {
    return { appId: event.appId, ...userProfileFields(event.data), status: 'offline' };
  },
};
