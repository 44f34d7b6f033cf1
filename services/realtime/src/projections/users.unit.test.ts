import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { blocksProjection, userDocId } from './users.js';
import type { BlocksDoc } from './users.js';

describe('blocks read model', () => {
  it('writes a block on both sides, and an unblock lifts only its own direction', () => {
    const docs = new Map<string, BlocksDoc>();
    const apply = (event: ReturnType<typeof testEnvelope>) => {
      for (const id of blocksProjection.documentIds(event as never)) {
        const next = blocksProjection.evolve(docs.get(id) ?? null, event as never, id);
        if (next) docs.set(id, next);
      }
    };
    apply(testEnvelope('UsersBlocked', 'user:app1:ann', 2, { uid: 'ann', blockedUids: ['ben', 'cat'], blockedAt: 1 }));
    apply(testEnvelope('UsersBlocked', 'user:app1:ben', 2, { uid: 'ben', blockedUids: ['ann'], blockedAt: 2 }));
    apply(testEnvelope('UsersUnblocked', 'user:app1:ann', 3, { uid: 'ann', unblockedUids: ['ben'], unblockedAt: 3 }));
    expect(docs.get(userDocId('app1', 'ann'))).toEqual({ appId: 'app1', uid: 'ann', blocked: ['cat'], blockedBy: ['ben'] });
    expect(docs.get(userDocId('app1', 'ben'))).toEqual({ appId: 'app1', uid: 'ben', blocked: ['ann'], blockedBy: [] });
    expect(docs.get(userDocId('app1', 'cat'))).toEqual({ appId: 'app1', uid: 'cat', blocked: [], blockedBy: ['ann'] });
  });
});
