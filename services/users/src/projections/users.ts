import { userProfileFields } from '@chat/contracts';
import type { EventEnvelope, UserCreated, UserProfileFields } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export interface UserDoc extends UserProfileFields {
  appId: string;
  statusMessage?: string;
  /** JSON text: metadata keys are the client's and may contain dots or a leading `$` (ADR 0002). */
  metadata?: string;
  tags: string[];
  status: string;
  updatedAt: number;
}

type Handled = EventEnvelope<'UserCreated', UserCreated>;

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

export const usersProjection: Projection<UserDoc, Handled> = {
  name: 'users',
  canHandle: (event: EventEnvelope): event is Handled => event.type === 'UserCreated',
  documentIds: (event) => [userDocId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  evolve(_doc, event) {
    const user = event.data;
    return {
      appId: event.appId,
      ...userProfileFields(user),
      ...(user.statusMessage !== undefined ? { statusMessage: user.statusMessage } : {}),
      ...(user.metadata !== undefined ? { metadata: JSON.stringify(user.metadata) } : {}),
      tags: user.tags,
      status: 'offline',
      updatedAt: user.createdAt,
    };
  },
};
