import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { applyInMemory } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { callDocId, callsProjection } from './projections/calls.js';
import { callRecordSelector } from './service.js';

const t0 = 1_760_000_000;
const stream = 'messages:app1:alice_user_bob';

function sent(version: number, id: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): EventEnvelope {
  return testEnvelope('MessageSent', stream, version, {
    id,
    conversationId: 'alice_user_bob',
    sender: 'alice',
    receiver: 'bob',
    receiverType: 'user',
    category: 'call',
    type: 'audio',
    data,
    sentAt: t0 + version,
    ...extra,
  });
}

function header(type: string | undefined, category?: string) {
  return { topic: 'chat.messages.events', type, appId: 'app1', keyId: 'k', category, timestamp: 0 };
}

describe('the calls consumer', () => {
  it('decodes only sends from the messages topic (and any record it cannot judge)', () => {
    expect(callRecordSelector([header('MessageSent'), header('MessageEdited'), header('MessageReactionAdded'), header(undefined)])).toEqual([true, false, false, true]);
  });

  it('skips, undecoded, the sends whose category header is not call (ADR 0086)', () => {
    const sends = ['call', 'message', 'custom', 'action', 'interactive'].map((category) => header('MessageSent', category));
    expect(callRecordSelector(sends)).toEqual([true, false, false, false, false]);
  });

  it('folds call messages into one record per session, and leaves other sends and redeliveries alone', async () => {
    const events = [
      sent(1, '10', { action: 'initiated', sessionId: 's1' }),
      sent(2, '11', { text: 'hi' }, { category: 'message', type: 'text' }),
      sent(3, '12', { action: 'ongoing', sessionId: 's1' }, { sender: 'bob', receiver: 'alice' }),
      sent(4, '13', { action: 'ended', sessionId: 's1', hasRecording: true }),
    ];
    const store = await applyInMemory(callsProjection, events);
    const written = store.stored();
    // The same batch again (Kafka redelivers after a crash): the guard makes it a no-op, not even a write.
    await applyInMemory(callsProjection, events, store);
    expect(store.stored()).toEqual(written);
    expect(store.document(callDocId('app1', 's1'))).toMatchObject({
      appId: 'app1',
      sessionId: 's1',
      mid: '10',
      status: 'ended',
      startedAt: t0 + 3,
      endedAt: t0 + 4,
      participantsCount: 2,
      hasRecording: true,
      hasTranscription: false,
    });
    expect([...store.snapshot().keys()]).toEqual([callDocId('app1', 's1')]);
  });
});
